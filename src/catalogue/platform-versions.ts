// The operator's platform versions outside a release (docs/operations.md "ops platform"): list, publish,
// withdraw and restore. Each change is one transaction with its audit records: the instance trail, and
// the trail of every tenant with an install on the version (actor operator), where the tenant sees it.

import { and, asc, count, eq, isNull, type SQL } from 'drizzle-orm';
import { operatorActor } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { Manifest } from '../module/index.ts';
import type { ProvenanceRecord } from '../provenance/index.ts';
import type { ModuleStorage } from '../storage/index.ts';
import { assertNotBlocked } from './blocks.ts';
import { byVersionDescending, type VersionStatus } from './catalogue-rules.ts';
import type { RunningInstall, RunningInstalls } from './operator-installs.ts';
import { rollbackCandidates } from './operator-rules.ts';
import { moveRefusal, publishRefusal, type Refusal, restoredSource } from './platform-rules.ts';
import { appVersions } from './tables.ts';

type VersionRow = typeof appVersions.$inferSelect;

/** One platform version as the operator lists it. */
export interface PlatformVersion {
  id: string;
  name: string;
  version: string;
  platformSource: 'release' | 'operator' | null;
  status: VersionStatus;
  withdrawnByOperator: boolean;
  sha256: string;
  sizeBytes: number;
  memoryMiB: number;
  createdAt: string;
  publishedAt: string | null;
  withdrawnAt: string | null;
  /** Installs running it, over every tenant. */
  installs: number;
}

export interface PlatformVersionFilter {
  app?: string;
  status?: VersionStatus;
  source?: 'release' | 'operator';
}

/** A module the operator publishes, already inspected: its manifest, and its bytes as stored and run. */
export interface PlatformModule {
  bytes: Uint8Array;
  manifest: Manifest;
  sha256: string;
  sizeBytes: number;
  /** What `--bundle` proved of the module (docs/provenance.md); absent: none. */
  provenance?: ProvenanceRecord;
}

/** An install on a version: what a rollback after a withdrawal moves (automatic upgrades). */
export interface InstallOnVersion {
  installId: string;
  tenantId: string;
  installName: string;
  autoUpgrade: 'off' | 'compatible';
}

/** What a withdrawal withdrew: the version, and the installs that keep running it. */
export interface WithdrawnPlatformVersion {
  version: PlatformVersion;
  installs: InstallOnVersion[];
  /** Of those, the installs the automatic upgrades must roll back (as a block's, rollbackCandidates). */
  rollback: string[];
}

/** The manifest the running release catalogue carries for a name and version, or null. */
export type ReleaseLookup = (name: string, version: string) => Promise<Manifest | null>;

const refused = (refusal: Refusal) =>
  refusal.code === 'conflict' ? conflict(refusal.message, refusal.details) : notFound(refusal.message);

function platformVersion(row: VersionRow, installs: number): PlatformVersion {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    platformSource: row.platformSource,
    status: row.status,
    withdrawnByOperator: row.withdrawnByOperator,
    sha256: row.sha256,
    sizeBytes: row.sizeBytes,
    memoryMiB: row.manifest.memoryMiB,
    createdAt: row.createdAt.toISOString(),
    publishedAt: row.publishedAt?.toISOString() ?? null,
    withdrawnAt: row.withdrawnAt?.toISOString() ?? null,
    installs,
  };
}

/** Platform versions (release and operator), by name, highest version first. */
export async function listPlatformVersions(
  db: Queryable,
  installsOf: RunningInstalls,
  filter: PlatformVersionFilter = {},
): Promise<PlatformVersion[]> {
  const conditions: SQL[] = [isNull(appVersions.tenantId)];
  if (filter.app) conditions.push(eq(appVersions.name, filter.app));
  if (filter.status) conditions.push(eq(appVersions.status, filter.status));
  if (filter.source) conditions.push(eq(appVersions.platformSource, filter.source));
  const rows = await db
    .select()
    .from(appVersions)
    .where(and(...conditions))
    .orderBy(asc(appVersions.name));
  const installs = await installsOf.counts(
    db,
    rows.map((r) => r.id),
  );
  return rows
    .sort((a, b) => a.name.localeCompare(b.name) || byVersionDescending(a, b))
    .map((row) => platformVersion(row, installs.get(row.id) ?? 0));
}

/**
 * Publishes a module as a platform version of source operator, status published. Refused 409
 * app_blocked when its hash or the platform's app is blocked; 409 conflict when the version exists in
 * any status; --new-app as publishRefusal says. The row and the stored module commit together.
 */
export async function publishPlatformVersion(
  deps: { database: Database; storage: ModuleStorage },
  module: PlatformModule,
  options: { by: string; newApp: boolean },
): Promise<PlatformVersion> {
  const { name, version } = module.manifest;
  try {
    return await deps.database.db.transaction(async (tx) => {
      await assertNotBlocked(tx, { sha256: module.sha256, publisher: 'platform', tenantId: null, name });
      const platformVersions = await tx
        .select({ version: appVersions.version, status: appVersions.status })
        .from(appVersions)
        .where(and(isNull(appVersions.tenantId), eq(appVersions.name, name)));
      const [tenants] = await tx.select({ n: count() }).from(
        tx
          .selectDistinct({ tenantId: appVersions.tenantId })
          .from(appVersions)
          .where(and(eq(appVersions.publisher, 'tenant'), eq(appVersions.name, name)))
          .as('tenants'),
      );
      const refusal = publishRefusal({
        name,
        version,
        platformVersions,
        tenantsWithName: Number(tenants?.n ?? 0),
        newApp: options.newApp,
      });
      if (refusal) throw refused(refusal);
      const [row] = await tx
        .insert(appVersions)
        .values({
          publisher: 'platform',
          tenantId: null,
          platformSource: 'operator',
          name,
          version,
          status: 'published',
          sha256: module.sha256,
          sizeBytes: module.sizeBytes,
          manifest: module.manifest,
          uploadedBy: options.by,
          publishedAt: new Date(),
          provenance: (module.provenance ?? null) as Record<string, unknown> | null,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      await deps.storage.put(module.bytes);
      await recordAudit(tx, {
        tenantId: null,
        action: 'app.published',
        actor: operatorActor(options.by),
        resource: { type: 'app_version', id: row.id },
        data: {
          name,
          version,
          sha256: row.sha256,
          sizeBytes: row.sizeBytes,
          platformSource: 'operator',
          via: 'operator',
          newApp: options.newApp,
        },
      });
      return platformVersion(row, 0);
    });
  } catch (error) {
    // A concurrent publish of the same version took it between the check and the insert.
    if (isUniqueViolation(error))
      throw conflict(`${name}@${version} already exists`, { name, version, status: 'published' });
    throw error;
  }
}

/** The platform version of that name and version, locked for this transaction; 404 not_found when none. */
async function lockPlatformVersion(tx: Tx, name: string, version: string): Promise<VersionRow> {
  const [row] = await tx
    .select()
    .from(appVersions)
    .where(and(isNull(appVersions.tenantId), eq(appVersions.name, name), eq(appVersions.version, version)))
    .for('update');
  if (!row) throw notFound(`the platform has no version ${name}@${version}`);
  return row;
}

const installOnVersion = (i: RunningInstall): InstallOnVersion => ({
  installId: i.id,
  tenantId: i.tenantId,
  installName: i.name,
  autoUpgrade: i.autoUpgrade,
});

/** The installs running a version, by tenant name then install name. */
const installsOn = async (installsOf: RunningInstalls, tx: Tx, versionId: string) =>
  (await installsOf.running(tx, eq(appVersions.id, versionId))).map(installOnVersion);

/**
 * The instance trail's record, and one in the trail of each tenant with installs on the version (naming
 * them), so the tenants concerned see the operator's change.
 */
async function auditMove(
  tx: Tx,
  action: 'app.withdrawn' | 'app.published',
  row: VersionRow,
  by: string,
  data: Record<string, unknown>,
  installs: readonly InstallOnVersion[],
) {
  const entry = { action, actor: operatorActor(by), resource: { type: 'app_version', id: row.id } };
  const base = { name: row.name, version: row.version, sha256: row.sha256, via: 'operator', ...data };
  await recordAudit(tx, { ...entry, tenantId: null, data: { ...base, installs: installs.length } });
  const byTenant = new Map<string, string[]>();
  for (const install of installs)
    byTenant.set(install.tenantId, [...(byTenant.get(install.tenantId) ?? []), install.installName]);
  for (const [tenantId, names] of byTenant)
    await recordAudit(tx, { ...entry, tenantId, data: { ...base, installs: names } });
}

/**
 * Withdraws a published platform version and marks it withdrawn by the operator: no release start-up
 * republishes it. Installs keep running it; the answer names them for the upgrades' rollback. 404
 * not_found for an unknown version; 409 conflict unless it is published.
 */
export async function withdrawPlatformVersion(
  database: Database,
  installsOf: RunningInstalls,
  target: { name: string; version: string },
  options: { by: string; reason: string | null },
): Promise<WithdrawnPlatformVersion> {
  return database.db.transaction(async (tx) => {
    const row = await lockPlatformVersion(tx, target.name, target.version);
    const refusal = moveRefusal('withdraw', row.status);
    if (refusal) throw refused(refusal);
    const [withdrawn] = await tx
      .update(appVersions)
      .set({ status: 'withdrawn', withdrawnAt: new Date(), withdrawnByOperator: true })
      .where(eq(appVersions.id, row.id))
      .returning();
    const running = await installsOf.running(tx, eq(appVersions.id, row.id));
    const installs = running.map(installOnVersion);
    await auditMove(
      tx,
      'app.withdrawn',
      row,
      options.by,
      { platformSource: row.platformSource, reason: options.reason },
      installs,
    );
    return {
      version: platformVersion(withdrawn as VersionRow, installs.length),
      installs,
      rollback: rollbackCandidates(running),
    };
  });
}

/**
 * Publishes a withdrawn platform version again: the release's version when the running release carries
 * it with the same manifest, else the operator's (restoredSource). 404 not_found for an unknown version;
 * 409 conflict unless it is withdrawn; 409 app_blocked when its module or app is blocked.
 */
export async function restorePlatformVersion(
  database: Database,
  installsOf: RunningInstalls,
  target: { name: string; version: string },
  options: { by: string; release: ReleaseLookup },
): Promise<PlatformVersion> {
  const inRelease = await options.release(target.name, target.version);
  return database.db.transaction(async (tx) => {
    const row = await lockPlatformVersion(tx, target.name, target.version);
    const refusal = moveRefusal('restore', row.status);
    if (refusal) throw refused(refusal);
    await assertNotBlocked(tx, { sha256: row.sha256, publisher: 'platform', tenantId: null, name: row.name });
    const source = restoredSource(row.manifest, inRelease);
    const [restored] = await tx
      .update(appVersions)
      .set({
        status: 'published',
        platformSource: source,
        publishedAt: new Date(),
        withdrawnAt: null,
        withdrawnByOperator: false,
      })
      .where(eq(appVersions.id, row.id))
      .returning();
    const installs = await installsOn(installsOf, tx, row.id);
    await auditMove(
      tx,
      'app.published',
      row,
      options.by,
      { platformSource: source, restored: true },
      installs,
    );
    return platformVersion(restored as VersionRow, installs.length);
  });
}
