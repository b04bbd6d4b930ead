// Reading what runs and evaluations start from: the highest published version of a definition.
import { and, desc, eq } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
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
    ? new ApiError('conflict', `${NOUNS[kind]} ${key} has no published version`)
    : new ApiError('not_found', `no ${NOUNS[kind]} named ${key}`);
}
