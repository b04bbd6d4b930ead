// The installs an operator's change concerns: those running a version the change touches, in any tenant,
// with the version they run and their tenant's name (docs/operations.md "ops apps …"). Installs stand
// above the catalogue, so its operator changes ask through this port, which installs answer
// (src/installs/running-store.ts `runningInstalls`) and the ops commands hand in.
import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
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

/** The port: the installs running versions of the catalogue, over every tenant. */
export interface RunningInstalls {
  /** The installs running a version the condition on app_versions keeps, by tenant name then install name. */
  running(db: Queryable, versions: SQL): Promise<RunningInstall[]>;
  /** How many installs run each of these versions (a version no install runs is absent). */
  counts(db: Queryable, versionIds: readonly string[]): Promise<Map<string, number>>;
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

/** The installs running any of these versions. */
export const installsOfVersions = (
  installs: RunningInstalls,
  db: Queryable,
  versionIds: readonly string[],
) =>
  versionIds.length === 0
    ? Promise.resolve([] as RunningInstall[])
    : installs.running(db, inArray(appVersions.id, [...versionIds]));
