// An install's limits record as stored: read by the limits routes (limits.ts), the
// quota check, metering and its month report (src/calls/). A leaf: it imports no service, so both sides
// may use it.
import { and, asc, eq, sql } from 'drizzle-orm';
import { appVersions } from '../../catalogue/tables.ts';
import type { Queryable } from '../../db/pool.ts';
import { appInstallLimits, appInstalls, type Budget } from '../tables.ts';

export interface LimitsRecord {
  /** ISO 4217 code, or null. */
  currency: string | null;
  /** Micros of the currency per call, by action name. */
  prices: Record<string, number>;
  budgets: Budget[];
}

/** A fresh empty record (no currency, no prices, no budgets). */
export const noLimits = (): LimitsRecord => ({ currency: null, prices: {}, budgets: [] });

/** The install's record; no row is no currency, no prices and no budgets. */
export async function readLimits(db: Queryable, tenantId: string, installId: string): Promise<LimitsRecord> {
  const [row] = await db
    .select()
    .from(appInstallLimits)
    .where(and(eq(appInstallLimits.installId, installId), eq(appInstallLimits.tenantId, tenantId)));
  return limitsOfRow(row ?? null);
}

/** The record of a row of app_install_limits read with something else (a call's install); none: empty. */
export const limitsOfRow = (row: typeof appInstallLimits.$inferSelect | null): LimitsRecord =>
  row ? { currency: row.currency, prices: row.prices, budgets: row.budgets } : noLimits();

/** An install as the metering report weighs its budgets: its record and its running version's actions. */
export interface InstallLimits {
  installId: string;
  installName: string;
  appName: string;
  /** The actions of the version the install runs; a price of another action is never charged. */
  actions: string[];
  limits: LimitsRecord;
}

/** Every install of the tenant with its limits record (none stored: an empty one), by name. */
export async function readTenantInstallLimits(db: Queryable, tenantId: string): Promise<InstallLimits[]> {
  const rows = await db
    .select({
      installId: appInstalls.id,
      installName: appInstalls.name,
      appName: appInstalls.appName,
      // Only the names: a manifest carries every action's schemas, which the report has no use for.
      actions: sql<string[] | null>`jsonb_path_query_array(${appVersions.manifest}, '$.actions[*].name')`,
      currency: appInstallLimits.currency,
      prices: appInstallLimits.prices,
      budgets: appInstallLimits.budgets,
    })
    .from(appInstalls)
    .leftJoin(appInstallLimits, eq(appInstallLimits.installId, appInstalls.id))
    .leftJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .where(eq(appInstalls.tenantId, tenantId))
    .orderBy(asc(appInstalls.name));
  return rows.map(({ actions, currency, prices, budgets, ...install }) => ({
    ...install,
    actions: actions ?? [],
    limits: prices && budgets ? { currency, prices, budgets } : noLimits(),
  }));
}
