// GET /app-installs/metering: what the tenant's installs used, per UTC day, install and action (holders
// of apps:read read it without spend data; apps:write adds spend). Rows are kept per
// install id and outlive their install: a live install is shown, and found by `install`, under its current
// name whatever it was called when metered; a removed one under the name it last had (nameMeteringRows).
import { and, desc, eq, gte, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { validationError } from '../http/errors.ts';
import { appInstalls } from '../installs/index.ts';
import { dayKey } from './quotas.ts';
import { appMetering } from './tables.ts';

/** The longest range one report covers. */
export const MAX_REPORT_DAYS = 366;
const DAY_MS = 86_400_000;

export interface MeteringQuery {
  tenantId: string;
  install?: string;
  /** YYYY-MM-DD (UTC); default the first day of this month. */
  from?: string;
  /** YYYY-MM-DD (UTC), inclusive; default today. */
  to?: string;
  withSpend: boolean;
}

export interface MeteringItem {
  installId: string;
  installName: string;
  appName: string;
  action: string;
  day: string;
  calls: number;
  httpRequests: number;
  webhooks: number;
  handoffs: number;
  /** Only for callers holding apps:write; one entry per currency charged that day. */
  spend?: { currency: string; micros: number }[];
}

/** The report's range: defaults, and the refusals (to before from, more than a year). Pure. */
export function reportRange(now: Date, from?: string, to?: string): { from: string; to: string } {
  const today = dayKey(now);
  const range = { from: from ?? `${today.slice(0, 8)}01`, to: to ?? today };
  for (const field of ['from', 'to'] as const) {
    // The route's pattern admits 2026-02-31; a calendar check refuses it.
    const ms = Date.parse(range[field]);
    if (Number.isNaN(ms) || dayKey(new Date(ms)) !== range[field]) {
      throw validationError([{ path: `query.${field}`, message: 'is not a calendar day' }]);
    }
  }
  const span = (Date.parse(range.to) - Date.parse(range.from)) / DAY_MS;
  if (span < 0) throw validationError([{ path: 'query.to', message: 'must not be before from' }]);
  if (span >= MAX_REPORT_DAYS) {
    throw validationError([{ path: 'query.to', message: `a report covers at most ${MAX_REPORT_DAYS} days` }]);
  }
  return range;
}

/** One app_metering row as the reports read it: the install named as it is now (see the file's head). */
export interface MeteringRow {
  installId: string;
  installName: string;
  appName: string;
  /** The install is gone: installName is the name it last had. */
  removed: boolean;
  action: string;
  day: string;
  /** '' for calls that cost nothing. */
  currency: string;
  calls: number;
  httpRequests: number;
  spendMicros: number;
  /** Vendor webhooks and hand-offs the module ran on: counted apart from calls, never limited. */
  webhooks: number;
  handoffs: number;
}

/**
 * The one reader of app_metering for reports (GET /app-installs/metering and GET /apps/metering): the
 * tenant's rows of the days from..to (inclusive), one per install, day, action and currency (the table's
 * key, so nothing is summed here), newest day first. `install` keeps the rows of the install so named now
 * and of removed installs last named so. Each report folds the rows its own way (`tally`).
 */
export async function meteringRows(
  db: Queryable,
  query: { tenantId: string; from: string; to: string; install?: string },
): Promise<MeteringRow[]> {
  const where = [
    eq(appMetering.tenantId, query.tenantId),
    gte(appMetering.day, query.from),
    lte(appMetering.day, query.to),
  ];
  if (query.install) {
    where.push(
      or(
        eq(appInstalls.name, query.install),
        and(isNull(appInstalls.id), eq(appMetering.installName, query.install)),
      ) as SQL,
    );
  }
  const installName = sql<string>`coalesce(${appInstalls.name}, ${appMetering.installName})`;
  return db
    .select({
      installId: appMetering.installId,
      installName,
      appName: appMetering.appName,
      removed: sql<boolean>`${appInstalls.id} is null`,
      action: appMetering.action,
      day: appMetering.day,
      currency: appMetering.currency,
      calls: appMetering.calls,
      httpRequests: appMetering.httpRequests,
      spendMicros: appMetering.spendMicros,
      webhooks: appMetering.webhooks,
      handoffs: appMetering.handoffs,
    })
    .from(appMetering)
    .leftJoin(appInstalls, eq(appInstalls.id, appMetering.installId))
    .where(and(...where) as SQL)
    .orderBy(
      desc(appMetering.day),
      installName,
      appMetering.installId,
      appMetering.action,
      appMetering.currency,
    );
}

/**
 * Calls, HTTP requests and spend per currency summed over some metering rows, and apart from them the
 * vendor webhooks and hand-offs (which no quota or budget weighs).
 */
export interface Tally {
  calls: number;
  httpRequests: number;
  /** Micros per currency charged; calls that cost nothing add none. */
  spend: Map<string, number>;
  webhooks: number;
  handoffs: number;
}

export const emptyTally = (): Tally => ({
  calls: 0,
  httpRequests: 0,
  spend: new Map(),
  webhooks: 0,
  handoffs: 0,
});

/** Adds one row to a tally. Pure but for the tally it is given. */
export function tally(
  into: Tally,
  row: Pick<MeteringRow, 'calls' | 'httpRequests' | 'currency' | 'spendMicros' | 'webhooks' | 'handoffs'>,
) {
  into.calls += row.calls;
  into.httpRequests += row.httpRequests;
  into.webhooks += row.webhooks;
  into.handoffs += row.handoffs;
  if (row.spendMicros > 0)
    into.spend.set(row.currency, (into.spend.get(row.currency) ?? 0) + row.spendMicros);
  return into;
}

/** A tally as reports answer it: spend as [{ currency, micros }] by currency, and only `withSpend`. */
export function shownTally(t: Tally, withSpend: boolean) {
  const counts = { calls: t.calls, httpRequests: t.httpRequests };
  const apart = { webhooks: t.webhooks, handoffs: t.handoffs };
  if (!withSpend) return { ...counts, ...apart };
  const spend = [...t.spend].sort(([a], [b]) => a.localeCompare(b));
  return { ...counts, spend: spend.map(([currency, micros]) => ({ currency, micros })), ...apart };
}

/** GET /app-installs/metering: the rows folded per install, action and day, newest day first. */
export async function meteringReport(db: Queryable, query: MeteringQuery, now = new Date()) {
  const range = reportRange(now, query.from, query.to);
  const rows = await meteringRows(db, { tenantId: query.tenantId, install: query.install, ...range });
  const groups = new Map<string, { row: MeteringRow; tally: Tally }>();
  for (const row of rows) {
    const key = `${row.day}/${row.installId}/${row.action}`;
    const group = groups.get(key) ?? { row, tally: emptyTally() };
    groups.set(key, group);
    tally(group.tally, row);
  }
  const items: MeteringItem[] = [...groups.values()].map(({ row, tally }) => ({
    installId: row.installId,
    installName: row.installName,
    appName: row.appName,
    action: row.action,
    day: row.day,
    ...shownTally(tally, query.withSpend),
  }));
  return { ...range, items };
}
