// The installs running versions of the catalogue, over every tenant: what the catalogue's operator changes
// (blocks, withdrawals, platform versions) ask through their port (src/catalogue/operator-installs.ts),
// handed in by the ops commands.
import { asc, count, eq, inArray, type SQL } from 'drizzle-orm';
import type { RunningInstall, RunningInstalls } from '../catalogue/operator-installs.ts';
import { appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { tenants } from '../tenants/tables.ts';
import { appInstalls } from './tables.ts';

/** The installs running a version the condition keeps, by tenant name then install name. */
async function installsRunning(db: Queryable, versions: SQL): Promise<RunningInstall[]> {
  return db
    .select({
      id: appInstalls.id,
      tenantId: appInstalls.tenantId,
      tenant: tenants.name,
      name: appInstalls.name,
      appName: appInstalls.appName,
      autoUpgrade: appInstalls.autoUpgrade,
      enabled: appInstalls.enabled,
      hosts: appInstalls.hosts,
      versionId: appVersions.id,
      version: appVersions.version,
      sha256: appVersions.sha256,
    })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .innerJoin(tenants, eq(tenants.id, appInstalls.tenantId))
    .where(versions)
    .orderBy(asc(tenants.name), asc(appInstalls.name));
}

/** Installs per version id, over every tenant. */
async function installCounts(db: Queryable, versionIds: readonly string[]): Promise<Map<string, number>> {
  if (versionIds.length === 0) return new Map();
  const rows = await db
    .select({ versionId: appInstalls.versionId, installs: count() })
    .from(appInstalls)
    .where(inArray(appInstalls.versionId, [...versionIds]))
    .groupBy(appInstalls.versionId);
  return new Map(rows.map((r) => [r.versionId, Number(r.installs)]));
}

/** The installs' answer to the catalogue's port. */
export const runningInstalls: RunningInstalls = { running: installsRunning, counts: installCounts };
