// Metering of app calls (docs/limits-and-metering.md): what each attempt the module ran on
// used, summed per install, UTC day, action and currency in app_metering, and the readers the quota
// check and the limits record need.
import { type AnyColumn, and, eq, gt, gte, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, Queryable } from '../db/pool.ts';
import { type Bindable, bound, placeholders, preparedOn } from '../db/prepared.ts';
import { type BudgetPeriod, type MeteringRecords, readLimits } from '../installs/index.ts';
import {
  actionPrice,
  BUDGET_PERIODS,
  dayKey,
  meteringDays,
  NO_USAGE,
  type PeriodUsage,
  type UsageSnapshot,
} from './quotas.ts';
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
  await meteringUpsert(db, await meteredRow(db, call, now), 1);
}

/** Today's row of the call, its price read when the attempt was not admitted with one. */
export async function meteredRow(db: Queryable, call: MeteredCall, now: Date = new Date()) {
  if (!Number.isSafeInteger(call.httpRequests) || call.httpRequests < 0) {
    throw new Error(`httpRequests must be a non-negative integer, not ${call.httpRequests}`);
  }
  const { currency, priceMicros } = call.charged
    ? (call.price ?? (await priceOf(db, call.tenantId, call.installId, call.action)))
    : { currency: null, priceMicros: 0 };
  const spendMicros = currency && priceMicros > 0 ? priceMicros : 0;
  return {
    tenantId: call.tenantId,
    installId: call.installId,
    installName: call.installName,
    appName: call.appName,
    action: call.action,
    day: dayKey(now),
    currency: spendMicros > 0 ? (currency as string) : '',
    httpRequests: call.httpRequests,
    spendMicros,
  };
}

export type MeteredRow = Awaited<ReturnType<typeof meteredRow>>;

/**
 * The upsert of `calls` calls into the row's day: 1, or an expression (record-write.ts counts the record
 * its statement wrote, so a record written before meters nothing again). Not yet sent.
 */
export function meteringUpsert(db: Pick<Queryable, 'insert'>, row: Bindable<MeteredRow>, calls: 1 | SQL) {
  return db
    .insert(appMetering)
    .values({
      ...row,
      calls: calls === 1 ? 1 : sql`${calls}`,
      httpRequests: calls === 1 ? row.httpRequests : sql`${row.httpRequests}::bigint * ${calls}`,
      spendMicros: calls === 1 ? row.spendMicros : sql`${row.spendMicros}::bigint * ${calls}`,
    })
    .onConflictDoUpdate({
      target: [appMetering.installId, appMetering.day, appMetering.action, appMetering.currency],
      set: {
        installName: sql`excluded.install_name`,
        appName: sql`excluded.app_name`,
        calls: sql`${appMetering.calls} + excluded.calls`,
        httpRequests: sql`${appMetering.httpRequests} + excluded.http_requests`,
        spendMicros: sql`${appMetering.spendMicros} + excluded.spend_micros`,
      },
    });
}

/** The columns of a metered row (meteredRow): the placeholders of a prepared upsert. */
const METERED_COLUMNS: Record<keyof MeteredRow, true> = {
  tenantId: true,
  installId: true,
  installName: true,
  appName: true,
  action: true,
  day: true,
  currency: true,
  httpRequests: true,
  spendMicros: true,
};

/**
 * A record and its metering written in one statement, prepared once per pool under `name` (issue 48: built
 * on every call before, and planned each time): the record's insert into `table` (its `columns`, nothing
 * written when `key` is taken) is a CTE of the metering's upsert, which counts the records the CTE wrote,
 * so the two commit together and a try after a lost commit (the record already there) meters nothing
 * again. Without metering (the module did not run), the record's insert alone. The writer answers whether
 * it wrote the record (false: a try before did).
 */
export function recordWithMetering<K extends string>(
  name: string,
  table: PgTable,
  columns: Record<K, true>,
  key: PgColumn,
) {
  const statement = preparedOn((db) => {
    const insert = db
      .insert(table)
      .values(placeholders('record', columns))
      .onConflictDoNothing({ target: key })
      .returning({ key });
    const recorded = db.$with('recorded', {}).as(insert.getSQL());
    const written = sql<number>`(select count(*) from recorded)::int`;
    return meteringUpsert(db.with(recorded), placeholders('metered', METERED_COLUMNS), written)
      .returning({ written })
      .prepare(name);
  });
  return async (db: Db, record: Record<string, unknown>, metered: MeteredCall | null): Promise<boolean> => {
    if (!metered) {
      const inserted = await db
        .insert(table)
        .values(record)
        .onConflictDoNothing({ target: key })
        .returning({ key });
      return inserted.length > 0;
    }
    const [row] = await statement(db).execute({
      ...bound('record', record, table),
      ...bound('metered', await meteredRow(db, metered), appMetering),
    });
    return (row?.written ?? 0) > 0;
  };
}

/** An install's action a vendor webhook or a hand-off was for (the session's action). */
export interface MeteredApart {
  tenantId: string;
  installId: string;
  installName: string;
  appName: string;
  action: string;
}

/**
 * Counts one vendor webhook delivery or hand-off the module ran on (or may have) in today's row, under no
 * currency. They are counted apart from calls and never limited: neither `calls` nor `http_requests`
 * moves (those are what quotas and budgets weigh), so a vendor's deliveries or an applicant's hand-offs
 * can never use up a tenant's calls.
 */
export async function meterApart(
  db: Db,
  row: MeteredApart,
  counter: 'webhooks' | 'handoffs',
  now: Date = new Date(),
): Promise<void> {
  await meteredApart[counter](db).execute({ ...row, day: dayKey(now) });
}

/** The upsert of one delivery or hand-off, prepared once per pool and counter (db/prepared.ts). */
const apartUpsert = (db: Db, counter: 'webhooks' | 'handoffs') =>
  db
    .insert(appMetering)
    .values({
      tenantId: sql.placeholder('tenantId'),
      installId: sql.placeholder('installId'),
      installName: sql.placeholder('installName'),
      appName: sql.placeholder('appName'),
      action: sql.placeholder('action'),
      day: sql.placeholder('day'),
      currency: '',
      [counter]: 1,
    })
    .onConflictDoUpdate({
      target: [appMetering.installId, appMetering.day, appMetering.action, appMetering.currency],
      set: {
        installName: sql`excluded.install_name`,
        appName: sql`excluded.app_name`,
        [counter]: sql`${appMetering[counter]} + 1`,
      },
    })
    .prepare(`meter_${counter}`);

const meteredApart = {
  webhooks: preparedOn((db) => apartUpsert(db, 'webhooks')),
  handoffs: preparedOn((db) => apartUpsert(db, 'handoffs')),
};

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

/** What one install used in one currency ('' for calls that cost nothing) today and this month. */
export interface PeriodUseRow {
  installId: string;
  currency: string;
  day: PeriodUsage;
  month: PeriodUsage;
}

/**
 * The tenant's use in the UTC day and month `now` falls in, per install and currency: one query over the
 * tenant's rows of the month. The quota check and the month report both read use through here and fold
 * it with `tenantUsage` and `installUsage`, so the two weigh a limit against the same number.
 */
export async function periodUse(db: Queryable, tenantId: string, now: Date): Promise<PeriodUseRow[]> {
  const month = meteringDays('month', now);
  const today = sql`${appMetering.day} = ${dayKey(now)}`;
  const rows = await db
    .select({
      installId: appMetering.installId,
      currency: appMetering.currency,
      dayCalls: total(appMetering.calls, today),
      dayHttp: total(appMetering.httpRequests, today),
      daySpend: total(appMetering.spendMicros, today),
      monthCalls: total(appMetering.calls),
      monthHttp: total(appMetering.httpRequests),
      monthSpend: total(appMetering.spendMicros),
    })
    .from(appMetering)
    .where(
      and(
        eq(appMetering.tenantId, tenantId),
        gte(appMetering.day, month.from),
        lt(appMetering.day, month.to),
      ),
    )
    .groupBy(appMetering.installId, appMetering.currency);
  const usage = (calls: string, httpRequests: string, spendMicros: string): PeriodUsage => ({
    calls: Number(calls),
    httpRequests: Number(httpRequests),
    spendMicros: Number(spendMicros),
  });
  return rows.map((row) => ({
    installId: row.installId,
    currency: row.currency,
    day: usage(row.dayCalls, row.dayHttp, row.daySpend),
    month: usage(row.monthCalls, row.monthHttp, row.monthSpend),
  }));
}

/** Sums `periodUse` rows per period; spend only of the rows `spends` keeps. Pure. */
function summed(rows: readonly PeriodUseRow[], spends: (row: PeriodUseRow) => boolean) {
  const sums: Record<BudgetPeriod, PeriodUsage> = { day: { ...NO_USAGE }, month: { ...NO_USAGE } };
  for (const row of rows) {
    for (const period of BUDGET_PERIODS) {
      sums[period].calls += row[period].calls;
      sums[period].httpRequests += row[period].httpRequests;
      if (spends(row)) sums[period].spendMicros += row[period].spendMicros;
    }
  }
  return sums;
}

/**
 * The tenant's calls and HTTP requests over all installs; its spend is never weighed (spend is kept per
 * install, each in its own currency).
 */
export const tenantUsage = (rows: readonly PeriodUseRow[]) => summed(rows, () => false);

/** One install's use; only spend in `currency` counts (null: none), the currency its spend budgets are in. */
export const installUsage = (rows: readonly PeriodUseRow[], installId: string, currency: string | null) =>
  summed(
    rows.filter((row) => row.installId === installId),
    (row) => row.currency !== '' && row.currency === currency,
  );

/** Folds `periodUse` into the snapshot the quota check weighs limits against. Pure. */
export const usageSnapshot = (
  rows: readonly PeriodUseRow[],
  installId: string,
  currency: string | null,
): UsageSnapshot => ({ tenant: tenantUsage(rows), install: installUsage(rows, installId, currency) });

/** The tenant's and the install's use in the UTC day and month `now` falls in (see periodUse). */
export async function usageOf(
  db: Queryable,
  scope: { tenantId: string; installId: string; currency: string | null },
  now: Date,
): Promise<UsageSnapshot> {
  return usageSnapshot(await periodUse(db, scope.tenantId, now), scope.installId, scope.currency);
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

/** An install's metering rows as its writes reach them: the installs' port, wired in by the api. */
export const installMeteringRecords: MeteringRecords = { nameRows: nameMeteringRows, monthSpendCurrencies };
