// Definitions with one published version, written straight into the tables (the definition routes are
// another worktree's): what run and evaluation tests start from.
import type { Database } from '../../src/db/pool.ts';
import type { DefinitionBody, DefinitionKind } from '../../src/runs/model.ts';
import { definitions, definitionVersions } from '../../src/runs/tables.ts';

export async function publishDefinitionRows(
  database: Database,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
  body: DefinitionBody,
): Promise<{ definitionId: string; versionId: string }> {
  const [definition] = await database.db
    .insert(definitions)
    .values({ tenantId, kind, key, createdBy: 'user:test' })
    .returning();
  if (!definition) throw new Error('no definition');
  const [version] = await database.db
    .insert(definitionVersions)
    .values({
      definitionId: definition.id,
      tenantId,
      version: 1,
      status: 'published',
      body,
      createdBy: 'user:test',
      publishedAt: new Date(),
      publishedBy: 'user:test',
    })
    .returning({ id: definitionVersions.id });
  if (!version) throw new Error('no version');
  return { definitionId: definition.id, versionId: version.id };
}
