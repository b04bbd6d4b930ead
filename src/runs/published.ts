// Reading what runs and evaluations start from: the highest published version of a definition.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../db/pool.ts';
import { preparedOn } from '../db/prepared.ts';
import { ApiError } from '../http/errors.ts';
import { findDefinition } from './definitions/service.ts';
import type { DefinitionKind } from './model.ts';
import { definitions, definitionVersions } from './tables.ts';

export type DefinitionVersionRow = typeof definitionVersions.$inferSelect;

/** The highest published version of the definition of that kind and key, or null (none, or no such key). */
export async function publishedVersion(
  db: Db,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
): Promise<DefinitionVersionRow | null> {
  const [row] = await highestPublished(db).execute({ tenantId, kind, key });
  return row?.version ?? null;
}

/** Every run's and evaluation's first read: prepared on the pool (db/prepared.ts). */
const highestPublished = preparedOn((db) =>
  db
    .select({ version: definitionVersions })
    .from(definitionVersions)
    .innerJoin(definitions, eq(definitions.id, definitionVersions.definitionId))
    .where(
      and(
        eq(definitions.tenantId, sql.placeholder('tenantId')),
        eq(definitions.kind, sql.placeholder('kind')),
        eq(definitions.key, sql.placeholder('key')),
        eq(definitionVersions.status, 'published'),
      ),
    )
    .orderBy(desc(definitionVersions.version))
    .limit(1)
    .prepare('highest_published_version'),
);

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
