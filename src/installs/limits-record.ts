// An install's limits record as stored (spec part 1 §2.12): read by the limits routes (limits.ts), the
// quota check and metering (src/calls/). A leaf: it imports no service, so both sides may use it.
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { appInstallLimits, type Budget } from './tables.ts';

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
  return row ? { currency: row.currency, prices: row.prices, budgets: row.budgets } : noLimits();
}
