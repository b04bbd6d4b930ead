// GET /apps/health (docs/calls.md "Health report"): how a tenant's installs fared over
// the last windowMinutes — per install its calls, failures, timeouts, p95 and last call and failure,
// from the invocation records; the circuits open or half-open, with the settings in force; the installs
// on a blocked module or app. Two reads: the window's records grouped by install (an index-only scan of
// app_invocations_tenant_created_idx), and the tenant's installs with their version, circuit and block.
// Each install once, under its current name (records keep the name they were made under); the window
// ends at the database's now, as the circuit does.
import { and, eq, sql } from 'drizzle-orm';
import { blocksOfVersionRow } from '../catalogue/blocks.ts';
import { appBlocks, appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import {
  appInstallCircuits,
  appInstalls,
  type CircuitRow,
  type CircuitSettings,
  gateOf,
  readDatabaseNow,
  settingsInForce,
  shownCircuit,
} from '../installs/index.ts';
import { appInvocations } from './tables.ts';

/** The window's records of one install, summed by PostgreSQL. */
export interface InstallStats {
  installId: string;
  calls: number;
  failures: number;
  timeouts: number;
  p95Ms: number | null;
  lastCallAt: Date | null;
  lastFailureAt: Date | null;
}

/** One install as the report reads it: what it runs, its own circuit settings, row and block. */
export interface HealthInstall {
  id: string;
  name: string;
  appName: string;
  version: string;
  enabled: boolean;
  sha256: string;
  circuitFailureThreshold: number | null;
  circuitOpenSeconds: number | null;
  circuit: CircuitRow | null;
  block: { reason: string; blockedAt: Date } | null;
}

const FAILED = sql`${appInvocations.status} in ('error', 'timeout')`;

/** The window's records per install, in the database's time, as a query (bench/health.ts explains it). */
export function windowStatsQuery(db: Queryable, tenantId: string, windowMinutes: number) {
  // Grouped by the id as text: grouped by the uuid itself, PostgreSQL walks app_invocations_install_
  // created_idx for its order and fetches every record from the heap (3.5 s for a day of 1M records,
  // bench/health.ts), where a scan and a sort take 0.7 s.
  const installId = sql<string>`${appInvocations.installId}::text`;
  return db
    .select({
      installId,
      calls: sql<number>`count(*)::int`,
      failures: sql<number>`(count(*) filter (where ${FAILED}))::int`,
      timeouts: sql<number>`(count(*) filter (where ${appInvocations.status} = 'timeout'))::int`,
      p95Ms: sql<number>`round(percentile_cont(0.95) within group (order by ${appInvocations.durationMs}))::int`,
      lastCallAt: sql<string>`max(${appInvocations.createdAt})`,
      lastFailureAt: sql<string | null>`max(${appInvocations.createdAt}) filter (where ${FAILED})`,
    })
    .from(appInvocations)
    .where(
      and(
        eq(appInvocations.tenantId, tenantId),
        sql`${appInvocations.createdAt} > now() - make_interval(mins => ${windowMinutes})`,
      ),
    )
    .groupBy(installId);
}

/** The window's records per install. */
export async function windowStats(db: Queryable, tenantId: string, windowMinutes: number) {
  const rows = await windowStatsQuery(db, tenantId, windowMinutes);
  return rows.map(
    (row): InstallStats => ({
      ...row,
      lastCallAt: new Date(row.lastCallAt),
      lastFailureAt: row.lastFailureAt === null ? null : new Date(row.lastFailureAt),
    }),
  );
}

/** The tenant's installs with their version, circuit row and the block covering their version, and now. */
export async function healthInstalls(db: Queryable, tenantId: string) {
  const block = db
    .select({
      json: sql`json_build_object('reason', ${appBlocks.reason}, 'blockedAt', ${appBlocks.createdAt})`,
    })
    .from(appBlocks)
    .where(blocksOfVersionRow())
    .orderBy(appBlocks.createdAt)
    .limit(1);
  const [rows, now] = await Promise.all([
    db
      .select({
        id: appInstalls.id,
        name: appInstalls.name,
        appName: appInstalls.appName,
        version: appVersions.version,
        enabled: appInstalls.enabled,
        sha256: appVersions.sha256,
        circuitFailureThreshold: appInstalls.circuitFailureThreshold,
        circuitOpenSeconds: appInstalls.circuitOpenSeconds,
        circuit: appInstallCircuits,
        block: sql<{ reason: string; blockedAt: string } | null>`(${block})`,
      })
      .from(appInstalls)
      .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
      .leftJoin(appInstallCircuits, eq(appInstallCircuits.installId, appInstalls.id))
      .where(eq(appInstalls.tenantId, tenantId))
      .orderBy(appInstalls.name),
    readDatabaseNow(db),
  ]);
  const installs = rows.map(
    ({ block: blocked, ...row }): HealthInstall => ({
      ...row,
      block: blocked && { reason: blocked.reason, blockedAt: new Date(blocked.blockedAt) },
    }),
  );
  return { installs, now };
}

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

/**
 * The report from what the two reads found. Pure: every install in name order, with zeros where the
 * window holds none of its records; records of installs removed since are left out.
 */
export function healthOf(
  read: { installs: readonly HealthInstall[]; now: Date },
  stats: readonly InstallStats[],
  window: { windowMinutes: number; defaults: CircuitSettings },
) {
  const { installs, now } = read;
  const byInstall = new Map(stats.map((s) => [s.installId, s]));
  const named = (install: HealthInstall) => ({
    installId: install.id,
    name: install.name,
    appName: install.appName,
    version: install.version,
  });
  return {
    windowMinutes: window.windowMinutes,
    from: new Date(now.getTime() - window.windowMinutes * 60_000).toISOString(),
    to: now.toISOString(),
    installs: installs.map((install) => {
      const s = byInstall.get(install.id);
      return {
        ...named(install),
        enabled: install.enabled,
        calls: s?.calls ?? 0,
        failures: s?.failures ?? 0,
        timeouts: s?.timeouts ?? 0,
        p95Ms: s?.p95Ms ?? null,
        lastCallAt: iso(s?.lastCallAt ?? null),
        lastFailureAt: iso(s?.lastFailureAt ?? null),
      };
    }),
    circuits: installs.flatMap((install) => {
      const settings = settingsInForce(install, window.defaults);
      const shown = shownCircuit(install.circuit, settings, now);
      if (shown.state === 'closed') return [];
      const gate = gateOf(install.circuit, settings, now);
      return [
        {
          ...named(install),
          state: shown.state,
          failures: shown.failures,
          since: iso(shown.since),
          retryAt: gate.kind === 'refused' ? gate.until.toISOString() : null,
          ...settings,
        },
      ];
    }),
    blocked: installs.flatMap((install) =>
      install.block
        ? [
            {
              ...named(install),
              sha256: install.sha256,
              reason: install.block.reason,
              blockedAt: install.block.blockedAt.toISOString(),
            },
          ]
        : [],
    ),
  };
}

/** GET /apps/health: the two reads, side by side, and the report. */
export async function healthReport(
  db: Queryable,
  query: { tenantId: string; windowMinutes: number; defaults: CircuitSettings },
) {
  const [read, stats] = await Promise.all([
    healthInstalls(db, query.tenantId),
    windowStats(db, query.tenantId, query.windowMinutes),
  ]);
  return healthOf(read, stats, query);
}
