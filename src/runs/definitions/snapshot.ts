// The tenant as definition validation reads it (validation.ts Snapshot), loaded in a few queries once per
// request: installs with their versions' actions, kept aliases, open install changes, and rule sets.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { appVersions } from '../../catalogue/tables.ts';
import type { Queryable } from '../../db/pool.ts';
import { appInstallAliases, appInstallChanges, appInstalls, webhookUrl } from '../../installs/index.ts';
import type { DefinitionKind } from '../model.ts';
import { definitions, definitionVersions } from '../tables.ts';
import type { ActionFacts, InstallFacts, Snapshot } from './validation.ts';

export async function loadSnapshot(
  db: Queryable,
  tenantId: string,
  kind: DefinitionKind,
  /** WEBHOOK_PUBLIC_URL: whether an install receives webhooks is read as its view's webhookUrl. */
  webhookBase: string | null,
): Promise<Snapshot> {
  const rows = await db
    .select({
      id: appInstalls.id,
      name: appInstalls.name,
      enabled: appInstalls.enabled,
      config: appInstalls.config,
      version: appVersions.version,
      manifest: appVersions.manifest,
    })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .where(eq(appInstalls.tenantId, tenantId));
  const aliases = await db
    .select({ alias: appInstallAliases.alias, name: appInstalls.name })
    .from(appInstallAliases)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallAliases.installId))
    .where(eq(appInstallAliases.tenantId, tenantId));
  const open = await db
    .select({ installId: appInstallChanges.installId })
    .from(appInstallChanges)
    .where(and(eq(appInstallChanges.tenantId, tenantId), isNull(appInstallChanges.decision)));
  const pending = new Set(open.map((c) => c.installId));

  const installs = new Map<string, InstallFacts>();
  for (const row of rows) {
    const actions = new Map<string, ActionFacts>(
      row.manifest.actions.map((a) => [
        a.name,
        { async: a.async !== undefined, ...(a.mappable ? { mappable: a.mappable } : {}) },
      ]),
    );
    installs.set(row.name, {
      name: row.name,
      app: row.manifest.name,
      version: row.version,
      enabled: row.enabled,
      changePending: pending.has(row.id),
      receivesWebhooks: webhookUrl(row.manifest, row.config, row.id, webhookBase) !== null,
      actions,
    });
  }
  return {
    installs,
    aliases: new Map(aliases.map((a) => [a.alias, a.name])),
    ruleSets: kind === 'workflow' ? await ruleSetsOf(db, tenantId) : new Map(),
  };
}

/** The tenant's rule set keys, each with whether it has a published version. */
async function ruleSetsOf(db: Queryable, tenantId: string) {
  const rows = await db
    .select({
      key: definitions.key,
      published: sql<boolean>`coalesce(bool_or(${definitionVersions.status} = 'published'), false)`,
    })
    .from(definitions)
    .leftJoin(definitionVersions, eq(definitionVersions.definitionId, definitions.id))
    .where(and(eq(definitions.tenantId, tenantId), eq(definitions.kind, 'rule_set')))
    .groupBy(definitions.key);
  return new Map(rows.map((r) => [r.key, { published: r.published }]));
}
