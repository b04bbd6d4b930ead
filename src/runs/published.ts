// Reading what runs and evaluations use: the highest published version of a definition, and the action
// an install (by its name or a kept alias) declares — read before a call so an asynchronous action in an
// app rule is refused before anything is sent, and so retries know the action's policy.
import { and, desc, eq, or } from 'drizzle-orm';
import { appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { appInstallAliases, appInstalls } from '../installs/tables.ts';
import type { ActionDeclaration } from '../module/manifest-types.ts';
import { findDefinition } from './definitions/service.ts';
import type { DefinitionKind } from './model.ts';
import { definitions, definitionVersions } from './tables.ts';

export type DefinitionVersionRow = typeof definitionVersions.$inferSelect;

/** The highest published version of the definition of that kind and key, or null (none, or no such key). */
export async function publishedVersion(
  db: Queryable,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
): Promise<DefinitionVersionRow | null> {
  const [row] = await db
    .select({ version: definitionVersions })
    .from(definitionVersions)
    .innerJoin(definitions, eq(definitions.id, definitionVersions.definitionId))
    .where(
      and(
        eq(definitions.tenantId, tenantId),
        eq(definitions.kind, kind),
        eq(definitions.key, key),
        eq(definitionVersions.status, 'published'),
      ),
    )
    .orderBy(desc(definitionVersions.version))
    .limit(1);
  return row?.version ?? null;
}

const NOUNS: Record<DefinitionKind, string> = { workflow: 'workflow', rule_set: 'rule set' };

/**
 * What a run or an evaluation starts from: the highest published version, else 409 conflict when the
 * definition exists with none published, or 404 not_found when there is no such key (read only then).
 */
export async function requirePublished(
  db: Queryable,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
): Promise<DefinitionVersionRow> {
  const version = await publishedVersion(db, tenantId, kind, key);
  if (version) return version;
  throw (await findDefinition(db, tenantId, kind, key))
    ? new ApiError(409, 'conflict', `${NOUNS[kind]} ${key} has no published version`)
    : new ApiError(404, 'not_found', `no ${NOUNS[kind]} named ${key}`);
}

/** The action the install of that name (or kept alias) declares in the version it runs, or null. */
export async function declaredAction(
  db: Queryable,
  tenantId: string,
  install: string,
  action: string,
): Promise<ActionDeclaration | null> {
  const [row] = await db
    .selectDistinct({ manifest: appVersions.manifest })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .leftJoin(appInstallAliases, eq(appInstallAliases.installId, appInstalls.id))
    .where(
      and(
        eq(appInstalls.tenantId, tenantId),
        or(eq(appInstalls.name, install), eq(appInstallAliases.alias, install)),
      ),
    )
    .limit(1);
  return row?.manifest.actions?.find((a) => a.name === action) ?? null;
}
