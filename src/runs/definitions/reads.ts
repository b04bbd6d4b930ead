// Reading definitions (docs/runs.md "Definitions"): one with its versions, validated now, and the paged
// list of a kind. Every query is scoped by the tenant.
import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/pool.ts';
import { countCapped, type Page } from '../../http/paging.ts';
import type { DefinitionKind, DefinitionStatus } from '../model.ts';
import { definitions, definitionVersions } from '../tables.ts';
import {
  type DefinitionContext,
  type DefinitionRow,
  ofDefinition,
  requireDefinition,
  summaryOf,
  type VersionSummary,
  type VersionView,
  versionView,
} from './service.ts';
import { loadSnapshot } from './snapshot.ts';
import { validateDefinition } from './validation.ts';

export interface DefinitionView {
  kind: DefinitionKind;
  key: string;
  createdAt: string;
  createdBy: string;
  published: VersionView | null;
  draft: VersionView | null;
  versions: VersionSummary[];
}

export interface DefinitionSummary {
  kind: DefinitionKind;
  key: string;
  createdAt: string;
  createdBy: string;
  publishedVersion: number | null;
  publishedAt: string | null;
  draftVersion: number | null;
}

/** GET /…/:key: the definition, its current published version and its draft, validated now. */
export async function getDefinition(
  ctx: DefinitionContext,
  kind: DefinitionKind,
  key: string,
): Promise<DefinitionView> {
  const db = ctx.database.db;
  const def = await requireDefinition(db, ctx.principal.tenantId, kind, key, false);
  const { body: _body, installNames: _names, ...summaryColumns } = getTableColumns(definitionVersions);
  const versions = await db
    .select(summaryColumns)
    .from(definitionVersions)
    .where(ofDefinition(def))
    .orderBy(desc(definitionVersions.version));
  const shown = [
    versions.find((v) => v.status === 'draft'),
    versions.find((v) => v.status === 'published'),
  ].flatMap((v) => (v ? [v.id] : []));
  const rows =
    shown.length === 0
      ? []
      : await db
          .select()
          .from(definitionVersions)
          .where(and(ofDefinition(def), inArray(definitionVersions.id, shown)));
  const snapshot =
    rows.length === 0 ? null : await loadSnapshot(db, def.tenantId, kind, ctx.settings.webhookBase);
  const viewOf = (status: DefinitionStatus) => {
    const row = rows.find((r) => r.status === status);
    return row && snapshot ? versionView(def, row, validateDefinition(kind, row.body, snapshot)) : null;
  };
  return {
    kind,
    key: def.key,
    createdAt: def.createdAt.toISOString(),
    createdBy: def.createdBy,
    published: viewOf('published'),
    draft: viewOf('draft'),
    versions: versions.map(summaryOf),
  };
}

/** GET /workflow-definitions, /rule-sets: the tenant's definitions of a kind by key. */
export async function listDefinitions(
  ctx: DefinitionContext,
  kind: DefinitionKind,
  page: { limit: number; offset: number },
): Promise<Page<DefinitionSummary>> {
  const db = ctx.database.db;
  const where = and(eq(definitions.tenantId, ctx.principal.tenantId), eq(definitions.kind, kind));
  const rows = await db
    .select()
    .from(definitions)
    .where(where)
    .orderBy(asc(definitions.key))
    .limit(page.limit)
    .offset(page.offset);
  const latest = rows.length === 0 ? [] : await versionNumbersOf(db, ctx.principal.tenantId, rows);
  const items = rows.map((def) => {
    const numbers = latest.find((l) => l.definitionId === def.id);
    return {
      kind,
      key: def.key,
      createdAt: def.createdAt.toISOString(),
      createdBy: def.createdBy,
      publishedVersion: numbers?.published ?? null,
      publishedAt: numbers?.publishedAt ? new Date(numbers.publishedAt).toISOString() : null,
      draftVersion: numbers?.draft ?? null,
    };
  });
  return { items, ...(await countCapped(db, definitions, where)) };
}

/** Per definition: its current published version (and when), and its draft's number. */
function versionNumbersOf(db: Queryable, tenantId: string, defs: readonly DefinitionRow[]) {
  const v = definitionVersions;
  return db
    .select({
      definitionId: v.definitionId,
      published: sql<number | null>`max(${v.version}) filter (where ${v.status} = 'published')`,
      publishedAt: sql<string | null>`max(${v.publishedAt})`,
      draft: sql<number | null>`max(${v.version}) filter (where ${v.status} = 'draft')`,
    })
    .from(v)
    .where(
      and(
        eq(v.tenantId, tenantId),
        inArray(
          v.definitionId,
          defs.map((d) => d.id),
        ),
      ),
    )
    .groupBy(v.definitionId);
}
