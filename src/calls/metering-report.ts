// GET /app-installs/metering: what the tenant's installs used, per UTC day, install and action (spec
// part 2 §5: apps:read reads metering without spend data; apps:write adds spend). Rows are kept per
// install id and outlive their install: a live install is shown, and found by `install`, under its current
// name whatever it was called when metered; a removed one under the name it last had (nameMeteringRows).
import { and, desc, eq, gte, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { validationError } from '../http/errors.ts';
import { appInstalls } from '../installs/tables.ts';
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

export async function meteringReport(db: Queryable, query: MeteringQuery, now = new Date()) {
  const range = reportRange(now, query.from, query.to);
  const where = [
    eq(appMetering.tenantId, query.tenantId),
    gte(appMetering.day, range.from),
    lte(appMetering.day, range.to),
  ];
  if (query.install) {
    where.push(
      or(
        eq(appInstalls.name, query.install),
        and(isNull(appInstalls.id), eq(appMetering.installName, query.install)),
      ) as SQL,
    );
  }
  const rows = await db
    .select({
      installId: appMetering.installId,
      installName: sql<string>`coalesce(max(${appInstalls.name}), max(${appMetering.installName}))`,
      appName: sql<string>`max(${appMetering.appName})`,
      action: appMetering.action,
      day: appMetering.day,
      calls: sql<number>`sum(${appMetering.calls})::bigint`.mapWith(Number),
      httpRequests: sql<number>`sum(${appMetering.httpRequests})::bigint`.mapWith(Number),
      spend: sql<
        { currency: string; micros: number }[]
      >`coalesce(jsonb_agg(jsonb_build_object('currency', ${appMetering.currency}, 'micros', ${appMetering.spendMicros})) filter (where ${appMetering.spendMicros} > 0), '[]'::jsonb)`,
    })
    .from(appMetering)
    .leftJoin(appInstalls, eq(appInstalls.id, appMetering.installId))
    .where(and(...where) as SQL)
    .groupBy(appMetering.installId, appMetering.action, appMetering.day)
    .orderBy(desc(appMetering.day), sql`2`, appMetering.action);
  const items: MeteringItem[] = rows.map(({ spend, ...row }) =>
    query.withSpend
      ? { ...row, spend: spend.map((s) => ({ currency: s.currency, micros: Number(s.micros) })) }
      : row,
  );
  return { ...range, items };
}
