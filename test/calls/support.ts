// An install row without the catalogue (which plays no part in metering or the quota check), with
// optional limits, straight in the test database.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/pool.ts';
import { appInstallLimits, appInstalls, type Budget } from '../../src/installs/tables.ts';

export interface LimitsRow {
  currency: string | null;
  prices: Record<string, number>;
  budgets?: Budget[];
}

export async function insertInstall(database: Database, tenantId: string, name: string, limits?: LimitsRow) {
  const [install] = await database.db
    .insert(appInstalls)
    .values({
      tenantId,
      name,
      appName: 'echo',
      versionId: randomUUID(),
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
