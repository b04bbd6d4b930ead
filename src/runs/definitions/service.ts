// Definitions of a tenant (docs/runs.md "Definitions"): workflows and rule sets, each a key with numbered
// versions. At most one draft, always the newest version: a save replaces it or adds one; publishing makes
// the draft the current published version, which never changes again. Every write locks its definition's
// row and commits with its audit record; every query is scoped by the tenant (another tenant's key is 404).
import { and, desc, eq, max, sql } from 'drizzle-orm';
import { auditedBy } from '../../audit/actor.ts';
import { recordAudit } from '../../audit/trail.ts';
import type { Queryable, Tx } from '../../db/pool.ts';
import { ApiError, conflict, notFound, validationError } from '../../http/errors.ts';
import { lockTenantInstalls } from '../../installs/index.ts';
import type { DefinitionBody, DefinitionKind, DefinitionStatus } from '../model.ts';
import { definitions, definitionVersions } from '../tables.ts';
import { type ApprovalView, approvalView } from './approvals-rules.ts';
import { assertNoOpenApproval, publishSettings, requestApproval } from './approvals-store.ts';
import type { DefinitionContext, DefinitionRow, VersionRow } from './context.ts';
import { loadSnapshot } from './snapshot.ts';
import { installNamesOf, shapeIssues, type Validation, validateDefinition } from './validation.ts';

export type { DefinitionContext, DefinitionRow, VersionRow };

export const NOUN: Record<DefinitionKind, string> = { workflow: 'workflow', rule_set: 'rule set' };

export interface VersionSummary {
  version: number;
  status: DefinitionStatus;
  createdAt: string;
  createdBy: string;
  publishedAt: string | null;
  publishedBy: string | null;
}

export interface VersionView extends VersionSummary {
  kind: DefinitionKind;
  key: string;
  body: DefinitionBody;
  installNames: string[];
  validation: Validation;
}

export const summaryOf = (row: Omit<VersionRow, 'body' | 'installNames'>): VersionSummary => ({
  version: row.version,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
  publishedAt: row.publishedAt?.toISOString() ?? null,
  publishedBy: row.publishedBy,
});

export const versionView = (def: DefinitionRow, row: VersionRow, validation: Validation): VersionView => ({
  kind: def.kind,
  key: def.key,
  ...summaryOf(row),
  body: row.body,
  installNames: row.installNames,
  validation,
});

export const audit = (
  tx: Queryable,
  ctx: DefinitionContext,
  action: string,
  def: DefinitionRow,
  data: Record<string, unknown>,
) =>
  recordAudit(tx, {
    ...auditedBy(ctx),
    action,
    resource: { type: 'definition', id: def.id },
    data: { kind: def.kind, key: def.key, ...data },
  });

/** The body validated against the tenant as it stands now. */
export const validated = async (
  db: Queryable,
  ctx: DefinitionContext,
  kind: DefinitionKind,
  body: DefinitionBody,
) =>
  validateDefinition(
    kind,
    body,
    await loadSnapshot(db, ctx.principal.tenantId, kind, ctx.settings.webhookBase),
  );

const counts = (validation: Validation) => ({
  errors: validation.errors.length,
  warnings: validation.warnings.length,
});

/**
 * 400 validation_error for what the body's schema cannot say (repeated step ids or rule keys), at their
 * pointers in the request (the definition's body sits at `at`).
 */
function assertShape(kind: DefinitionKind, body: DefinitionBody, at: '' | '/body') {
  const issues = shapeIssues(kind, body).map((issue) => ({ ...issue, path: `${at}${issue.path}` }));
  if (issues.length > 0) throw validationError(issues);
}

const byKey = (tenantId: string, kind: DefinitionKind, key: string) =>
  and(eq(definitions.tenantId, tenantId), eq(definitions.kind, kind), eq(definitions.key, key));

/** The tenant's definition of that kind and key (locked for update when asked), or null. */
export async function findDefinition(
  db: Queryable,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
  lock = false,
): Promise<DefinitionRow | null> {
  const query = db
    .select()
    .from(definitions)
    .where(byKey(tenantId, kind, key));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** The tenant's definition of that kind and key (locked for update when asked), else 404 not_found. */
export async function requireDefinition(
  db: Queryable,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
  lock: boolean,
) {
  const row = await findDefinition(db, tenantId, kind, key, lock);
  if (!row) throw notFound(`no ${NOUN[kind]} has the key ${key}`);
  return row;
}

/** A definition by id, locked for update: the rewrite of a rename finds its callers by id. */
export async function lockDefinition(tx: Tx, tenantId: string, id: string): Promise<DefinitionRow | null> {
  const [row] = await tx
    .select()
    .from(definitions)
    .where(and(eq(definitions.tenantId, tenantId), eq(definitions.id, id)))
    .for('update');
  return row ?? null;
}

export const ofDefinition = (def: DefinitionRow) =>
  and(eq(definitionVersions.tenantId, def.tenantId), eq(definitionVersions.definitionId, def.id));

export async function draftOf(db: Queryable, def: DefinitionRow): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(definitionVersions)
    .where(and(ofDefinition(def), eq(definitionVersions.status, 'draft')));
  return row ?? null;
}

/** The current published version: the highest published one. */
export async function publishedOf(db: Queryable, def: DefinitionRow): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(definitionVersions)
    .where(and(ofDefinition(def), eq(definitionVersions.status, 'published')))
    .orderBy(desc(definitionVersions.version))
    .limit(1);
  return row ?? null;
}

/**
 * Writes the definition's draft (its row locked by the caller): replaces the draft there is, saved by
 * this caller now, or adds one after the newest version.
 */
export async function writeDraft(
  tx: Tx,
  ctx: DefinitionContext,
  def: DefinitionRow,
  body: DefinitionBody,
): Promise<{ row: VersionRow; replaced: boolean }> {
  const fields = {
    body,
    installNames: installNamesOf(def.kind, body),
    createdBy: ctx.principal.subject,
  };
  const draft = await draftOf(tx, def);
  if (draft) {
    const [row] = await tx
      .update(definitionVersions)
      .set({ ...fields, createdAt: sql`now()` })
      .where(eq(definitionVersions.id, draft.id))
      .returning();
    return { row: row as VersionRow, replaced: true };
  }
  const [newest] = await tx
    .select({ version: max(definitionVersions.version) })
    .from(definitionVersions)
    .where(ofDefinition(def));
  const [row] = await tx
    .insert(definitionVersions)
    .values({ ...fields, definitionId: def.id, tenantId: def.tenantId, version: (newest?.version ?? 0) + 1 })
    .returning();
  return { row: row as VersionRow, replaced: false };
}

/**
 * Makes a draft without errors the current published version, audited <kind>.published (with the
 * approvalId when an approval published it).
 */
export async function publishVersion(
  tx: Tx,
  ctx: DefinitionContext,
  def: DefinitionRow,
  draft: VersionRow,
  data: { approvalId?: string } = {},
) {
  const [row] = await tx
    .update(definitionVersions)
    .set({ status: 'published', publishedAt: sql`now()`, publishedBy: ctx.principal.subject })
    .where(eq(definitionVersions.id, draft.id))
    .returning();
  await audit(tx, ctx, `${def.kind}.published`, def, { version: draft.version, ...data });
  return row as VersionRow;
}

/**
 * 400 validation_error while the version's validation has errors (details.issues with path, message and
 * code, pointers into the definition's body): a version with errors is never published, nor held for
 * approval. `fix` says what the caller does about it.
 */
export function assertPublishable(
  version: VersionRow,
  validation: Validation,
  fix = 'fix them in the draft before publishing',
  details: Record<string, unknown> = {},
) {
  const n = validation.errors.length;
  if (n === 0) return;
  throw new ApiError(
    'validation_error',
    `version ${version.version} has ${n} error${n === 1 ? '' : 's'}: ${fix}`,
    {
      ...details,
      issues: validation.errors.map(({ path, message, code }) => ({ path, message, code })),
    },
  );
}

// ---- the routes' services --------------------------------------------------------------------------

/** POST /workflow-definitions, /rule-sets: the definition with its first draft (version 1). */
export async function createDefinition(
  ctx: DefinitionContext,
  kind: DefinitionKind,
  key: string,
  body: DefinitionBody,
): Promise<VersionView> {
  assertShape(kind, body, '/body');
  const tenantId = ctx.principal.tenantId;
  return ctx.database.db.transaction(async (tx) => {
    const [def] = await tx
      .insert(definitions)
      .values({ tenantId, kind, key, createdBy: ctx.principal.subject })
      .onConflictDoNothing()
      .returning();
    if (!def) {
      throw new ApiError('definition_key_taken', `a ${NOUN[kind]} with the key ${key} already exists`, {
        kind,
        key,
      });
    }
    const { row } = await writeDraft(tx, ctx, def, body);
    const validation = await validated(tx, ctx, kind, body);
    await audit(tx, ctx, 'definition.created', def, { version: row.version, ...counts(validation) });
    return versionView(def, row, validation);
  });
}

/** PUT /…/:key/draft: replaces the draft, or starts one after the published version. */
export async function saveDefinitionDraft(
  ctx: DefinitionContext,
  kind: DefinitionKind,
  key: string,
  body: DefinitionBody,
): Promise<VersionView> {
  assertShape(kind, body, '');
  return ctx.database.db.transaction(async (tx) => {
    const def = await requireDefinition(tx, ctx.principal.tenantId, kind, key, true);
    // The draft an open approval request pinned does not change until it is decided.
    await assertNoOpenApproval(tx, def, 'save');
    const { row, replaced } = await writeDraft(tx, ctx, def, body);
    const validation = await validated(tx, ctx, kind, body);
    await audit(tx, ctx, 'definition.draft.saved', def, {
      version: row.version,
      replaced,
      ...counts(validation),
    });
    return versionView(def, row, validation);
  });
}

/** What a publish did: published the draft, or held it for approval (the request it opened). */
export type PublishOutcome = { published: VersionView } | { requested: VersionView; approval: ApprovalView };

/**
 * POST /…/:key/publish: the draft becomes the current published version, unless it has errors; when the
 * tenant requires approval for definitions, an approval request pinning it opens instead.
 */
export async function publishDefinition(
  ctx: DefinitionContext,
  kind: DefinitionKind,
  key: string,
): Promise<PublishOutcome> {
  return ctx.database.db.transaction(async (tx) => {
    // The tenant's install lock: a rename or an alias removal checking for callers and this publish
    // (validating the names it calls) take turns, so neither misses the other.
    await lockTenantInstalls(tx, ctx.principal.tenantId);
    const def = await requireDefinition(tx, ctx.principal.tenantId, kind, key, true);
    await assertNoOpenApproval(tx, def, 'publish');
    const draft = await draftOf(tx, def);
    if (!draft) {
      const published = await publishedOf(tx, def);
      throw conflict(`${NOUN[kind]} ${key} has no draft to publish`, {
        kind,
        key,
        publishedVersion: published?.version ?? null,
      });
    }
    const validation = await validated(tx, ctx, kind, draft.body);
    assertPublishable(draft, validation);
    const settings = await publishSettings(tx, ctx.principal.tenantId);
    if (settings.required) {
      const approval = await requestApproval(tx, ctx, def, draft, {
        origin: 'publish',
        fourEyes: settings.fourEyes,
      });
      return { requested: versionView(def, draft, validation), approval: approvalView(approval) };
    }
    return { published: versionView(def, await publishVersion(tx, ctx, def, draft), validation) };
  });
}
