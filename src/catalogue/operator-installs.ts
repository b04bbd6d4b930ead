// The installs an operator's change concerns: those running a version the change touches, in any tenant,
// with the version they run and their tenant's name (docs/operations.md "ops apps …").
import { and, asc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { appInstalls } from '../installs/index.ts';
import { tenants } from '../tenants/tables.ts';
import type { BlockTargetRow } from './operator-rules.ts';
import { appVersions } from './tables.ts';

export interface RunningInstall {
  id: string;
  tenantId: string;
  tenant: string;
  name: string;
  appName: string;
  autoUpgrade: 'off' | 'compatible';
  enabled: boolean;
  /** The approved hosts. */
  hosts: string[];
  versionId: string;
  version: string;
  sha256: string;
}

/** The versions a block covers, as a condition on app_versions. */
export function versionsCoveredBy(block: BlockTargetRow): SQL {
  if (block.sha256 !== null) return eq(appVersions.sha256, block.sha256);
  return and(
    eq(appVersions.publisher, block.publisher ?? 'tenant'),
    block.publisherTenantId === null
      ? isNull(appVersions.tenantId)
      : eq(appVersions.tenantId, block.publisherTenantId),
    eq(appVersions.name, block.appName ?? ''),
  ) as SQL;
}

/** The installs running a version the condition keeps, by tenant name then install name. */
export async function installsRunning(db: Queryable, versions: SQL): Promise<RunningInstall[]> {
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

/** The installs running any of these versions. */
export const installsOfVersions = (db: Queryable, versionIds: readonly string[]) =>
  versionIds.length === 0
    ? Promise.resolve([] as RunningInstall[])
    : installsRunning(db, inArray(appVersions.id, [...versionIds]));
