// An install row without the catalogue (which plays no part in metering or the quota check), with
// optional limits, straight in the test database; with `actions`, a version row naming them (the month
// report weighs spend budgets with the prices of the running version's actions).
import { randomUUID } from 'node:crypto';
import { appVersions } from '../../src/catalogue/tables.ts';
import type { Database } from '../../src/db/pool.ts';
import { appInstallLimits, appInstalls, type Budget } from '../../src/installs/tables.ts';
import type { Manifest } from '../../src/module/manifest.ts';

export interface LimitsRow {
  currency: string | null;
  prices: Record<string, number>;
  budgets?: Budget[];
}

export async function insertInstall(
  database: Database,
  tenantId: string,
  name: string,
  limits?: LimitsRow,
  actions?: string[],
) {
  const versionId = actions ? await insertVersion(database, tenantId, actions) : randomUUID();
  const [install] = await database.db
    .insert(appInstalls)
    .values({
      tenantId,
      name,
      appName: 'echo',
      versionId,
      enabled: true,
      config: {},
      hosts: [],
    })
    .returning();
  if (!install) throw new Error('no install');
  if (limits)
    await database.db.insert(appInstallLimits).values({ installId: install.id, tenantId, ...limits });
  return install;
}

/** A published version of the tenant's echo app whose manifest names only its actions. */
async function insertVersion(database: Database, tenantId: string, actions: string[]) {
  const [version] = await database.db
    .insert(appVersions)
    .values({
      publisher: 'tenant',
      tenantId,
      name: 'echo',
      version: `1.0.0-${randomUUID()}`,
      status: 'published',
      sha256: '0'.repeat(64),
      sizeBytes: 1,
      manifest: { actions: actions.map((name) => ({ name })) } as unknown as Manifest,
    })
    .returning({ id: appVersions.id });
  if (!version) throw new Error('no version');
  return version.id;
}
