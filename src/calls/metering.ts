// Metering of app calls (spec part 1 §4.8 "Quotas and metering"): what each attempt the module ran on
// used, summed per install, UTC day, action and currency in app_metering, and the readers the quota
// check and the limits record need.
import { type AnyColumn, and, eq, gt, gte, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { readLimits } from '../installs/limits-record.ts';
import { actionPrice, dayKey, meteringDays, type PeriodUsage, type UsageSnapshot } from './quotas.ts';
import { appMetering } from './tables.ts';

export interface MeteredCall {
  tenantId: string;
  installId: string;
  /** The install's name and app now, kept on the row for reports after the install's removal. */
  installName: string;
  appName: string;
  action: string;
  /** HTTP requests the runner reported (model requests are not among them). */
  httpRequests: number;
  /** The call succeeded or started asynchronous work: it costs the action's price. */
  charged: boolean;
  /** The price the attempt was admitted under (the quota check read it); read now when absent. */
  price?: { currency: string | null; priceMicros: number };
}

/** The action's price and the install's currency as they are now; no price or no currency: free. */
export async function priceOf(
  db: Queryable,
  tenantId: string,
  installId: string,
  action: string,
): Promise<{ currency: string | null; priceMicros: number }> {
  const limits = await readLimits(db, tenantId, installId);
  return { currency: limits.currency, priceMicros: actionPrice(limits, action) };
}

/**
 * Counts one attempt the module ran on, or may have: one upsert into today's row. Spend is kept in the
 * currency charged at that moment; a call that cost nothing goes under currency '' (no spend), so a
 * row's currency always says what its spend_micros are in.
 */
export async function meterCall(db: Queryable, call: MeteredCall, now: Date = new Date()): Promise<void> {
  if (!Number.isSafeInteger(call.httpRequests) || call.httpRequests < 0) {
    throw new Error(`httpRequests must be a non-negative integer, not ${call.httpRequests}`);
  }
  const { currency, priceMicros } = call.charged
    ? (call.price ?? (await priceOf(db, call.tenantId, call.installId, call.action)))
    : { currency: null, priceMicros: 0 };
  const spendMicros = currency && priceMicros > 0 ? priceMicros : 0;
  await db
    .insert(appMetering)
    .values({
      tenantId: call.tenantId,
      installId: call.installId,
      installName: call.installName,
      appName: call.appName,
      action: call.action,
      day: dayKey(now),
      currency: spendMicros > 0 ? (currency as string) : '',
      calls: 1,
      httpRequests: call.httpRequests,
      spendMicros,
    })
    .onConflictDoUpdate({
      target: [appMetering.installId, appMetering.day, appMetering.action, appMetering.currency],
      set: {
        installName: sql`excluded.install_name`,
        appName: sql`excluded.app_name`,
        calls: sql`${appMetering.calls} + 1`,
        httpRequests: sql`${appMetering.httpRequests} + excluded.http_requests`,
        spendMicros: sql`${appMetering.spendMicros} + excluded.spend_micros`,
      },
    });
}

/**
 * Names every metering row of a removed install as the install was last named (called in the removal's
 * transaction): the report shows live installs under their current name and removed ones under this one.
 */
export async function nameMeteringRows(db: Queryable, installId: string, name: string): Promise<void> {
  await db
    .update(appMetering)
    .set({ installName: name })
    .where(and(eq(appMetering.installId, installId), ne(appMetering.installName, name)));
}

const total = (column: AnyColumn, filter?: SQL) =>
  filter
    ? sql<string>`coalesce(sum(${column}) filter (where ${filter}), 0)::bigint`
    : sql<string>`coalesce(sum(${column}), 0)::bigint`;

/**
 * The tenant's and the install's use in the UTC day and month `now` falls in, in one query over the
 * tenant's rows of the month. The install's spend counts only spend in `currency` (null: none).
 */
export async function usageOf(
  db: Queryable,
  scope: { tenantId: string; installId: string; currency: string | null },
  now: Date,
): Promise<UsageSnapshot> {
  const month = meteringDays('month', now);
  const today = sql`${appMetering.day} = ${dayKey(now)}`;
  const install = sql`${appMetering.installId} = ${scope.installId}`;
  const inCurrency = sql`${install} and ${appMetering.currency} = ${scope.currency ?? ''} and ${appMetering.currency} <> ''`;
  const [row] = await db
    .select({
      tenantDayCalls: total(appMetering.calls, today),
      tenantDayHttp: total(appMetering.httpRequests, today),
      tenantMonthCalls: total(appMetering.calls),
      tenantMonthHttp: total(appMetering.httpRequests),
      installDayCalls: total(appMetering.calls, sql`${install} and ${today}`),
      installDayHttp: total(appMetering.httpRequests, sql`${install} and ${today}`),
      installDaySpend: total(appMetering.spendMicros, sql`${inCurrency} and ${today}`),
      installMonthCalls: total(appMetering.calls, install),
      installMonthHttp: total(appMetering.httpRequests, install),
      installMonthSpend: total(appMetering.spendMicros, inCurrency),
    })
    .from(appMetering)
    .where(
      and(
        eq(appMetering.tenantId, scope.tenantId),
        gte(appMetering.day, month.from),
        lt(appMetering.day, month.to),
      ),
    );
  const n = (value: string | undefined) => Number(value ?? 0);
  const usage = (calls?: string, httpRequests?: string, spendMicros?: string): PeriodUsage => ({
    calls: n(calls),
    httpRequests: n(httpRequests),
    spendMicros: n(spendMicros),
  });
  return {
    tenant: {
      day: usage(row?.tenantDayCalls, row?.tenantDayHttp),
      month: usage(row?.tenantMonthCalls, row?.tenantMonthHttp),
    },
    install: {
      day: usage(row?.installDayCalls, row?.installDayHttp, row?.installDaySpend),
      month: usage(row?.installMonthCalls, row?.installMonthHttp, row?.installMonthSpend),
    },
  };
}

/** The currencies the install spent in during the UTC month `now` falls in (normally at most one). */
export async function monthSpendCurrencies(
  db: Queryable,
  tenantId: string,
  installId: string,
  now: Date,
): Promise<string[]> {
  const month = meteringDays('month', now);
  const rows = await db
    .selectDistinct({ currency: appMetering.currency })
    .from(appMetering)
    .where(
      and(
        eq(appMetering.tenantId, tenantId),
        eq(appMetering.installId, installId),
        gte(appMetering.day, month.from),
        lt(appMetering.day, month.to),
        gt(appMetering.spendMicros, 0),
      ),
    )
    .orderBy(appMetering.currency);
  return rows.map((r) => r.currency);
}
