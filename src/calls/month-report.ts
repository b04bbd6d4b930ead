// GET /apps/metering (docs/limits-and-metering.md "The month report"): a month's use in
// total, per UTC day and per install, with the operator's quotas of the tenant and the installs' budgets
// weighed against their current periods (today, this month), whichever month is asked. It reads through
// the same code as GET /app-installs/metering (meteringRows, tally) and weighs limits as the quota check
// does (periodUse, limitStandings), so a budget it calls reached is one the check refuses calls by.
// Spend (per currency, the install's currency, spend budgets) only for callers holding apps:write.
import type { Queryable } from '../db/pool.ts';
import { type InstallLimits, readTenantInstallLimits } from '../installs/index.ts';
import { installUsage, type PeriodUseRow, periodUse, tenantUsage } from './metering.ts';
import {
  emptyTally,
  type MeteringRow,
  meteringRows,
  shownTally,
  type Tally,
  tally,
} from './metering-report.ts';
import { dayKey, dearestPrice, type LimitStanding, limitStandings, periodBounds } from './quotas.ts';
import { tenantQuotasOf } from './tenant-quotas.ts';

/** The UTC month `now` falls in, as YYYY-MM. */
export const monthOf = (now: Date): string => dayKey(now).slice(0, 7);

/**
 * The metering days of a month YYYY-MM (the route's schema refuses any other form), first and last
 * inclusive, as meteringRows reads them. Pure.
 */
export function monthDays(month: string): { from: string; to: string } {
  const { start, resetsAt } = periodBounds('month', new Date(`${month}-01T00:00:00Z`));
  return { from: dayKey(start), to: dayKey(new Date(resetsAt.getTime() - 86_400_000)) };
}

/** A month's rows summed in total, per day and per install (the row names the install as reported). */
export interface MonthUse {
  total: Tally;
  days: Map<string, Tally>;
  installs: Map<string, { row: MeteringRow; tally: Tally }>;
}

/** Folds a month's metering rows; each install once, under the name its rows carry. Pure. */
export function monthUse(rows: readonly MeteringRow[]): MonthUse {
  const use: MonthUse = { total: emptyTally(), days: new Map(), installs: new Map() };
  for (const row of rows) {
    tally(use.total, row);
    const day = use.days.get(row.day) ?? emptyTally();
    use.days.set(row.day, tally(day, row));
    const install = use.installs.get(row.installId) ?? { row, tally: emptyTally() };
    use.installs.set(row.installId, install);
    tally(install.tally, row);
  }
  return use;
}

/** A standing as the answer writes it: the period's bounds as ISO 8601. */
const shownStanding = ({ periodStart, resetsAt, ...standing }: LimitStanding) => ({
  ...standing,
  periodStart: periodStart.toISOString(),
  resetsAt: resetsAt.toISOString(),
});

/**
 * An install's budgets against their current periods. Spend budgets are weighed with its dearest
 * action's price, so one is reached once it refuses that call; without apps:write they are left out.
 */
function budgetStandings(
  install: InstallLimits,
  current: readonly PeriodUseRow[],
  now: Date,
  withSpend: boolean,
) {
  const { limits } = install;
  const usage = installUsage(current, install.installId, limits.currency);
  const budgets = limits.budgets.filter((budget) => withSpend || budget.metric !== 'spend');
  return limitStandings(budgets, usage, dearestPrice(limits, install.actions), now);
}

/**
 * One entry of `installs`. A removed install has no limits (they went with it): no budgets, currency null.
 */
function installEntry(
  install: { installId: string; installName: string; appName: string; removed: boolean },
  used: Tally,
  withSpend: boolean,
  limits: { currency: string | null; budgets: LimitStanding[] } = { currency: null, budgets: [] },
) {
  return {
    ...install,
    ...shownTally(used, withSpend),
    ...(withSpend ? { currency: limits.currency } : {}),
    budgets: limits.budgets.map(shownStanding),
  };
}

export interface MonthQuery {
  tenantId: string;
  /** YYYY-MM; default the UTC month `now` falls in. */
  month?: string;
  withSpend: boolean;
}

/**
 * The report. Installs: every install the tenant has now (with or without use, since their budgets
 * count now), then the removed ones metered in the month; by name. Days: those with use, oldest first.
 */
export async function monthReport(db: Queryable, query: MonthQuery, now: Date = new Date()) {
  const month = query.month ?? monthOf(now);
  const [rows, installs, quotas, current] = await Promise.all([
    meteringRows(db, { tenantId: query.tenantId, ...monthDays(month) }),
    readTenantInstallLimits(db, query.tenantId),
    tenantQuotasOf(db, query.tenantId),
    periodUse(db, query.tenantId, now),
  ]);
  const use = monthUse(rows);
  const live = new Set(installs.map((install) => install.installId));
  const entries = [
    ...installs.map((install) =>
      installEntry(
        {
          installId: install.installId,
          installName: install.installName,
          appName: install.appName,
          removed: false,
        },
        use.installs.get(install.installId)?.tally ?? emptyTally(),
        query.withSpend,
        {
          currency: install.limits.currency,
          budgets: budgetStandings(install, current, now, query.withSpend),
        },
      ),
    ),
    ...[...use.installs.values()]
      .filter(({ row }) => !live.has(row.installId))
      .map(({ row, tally }) =>
        installEntry(
          { installId: row.installId, installName: row.installName, appName: row.appName, removed: true },
          tally,
          query.withSpend,
        ),
      ),
  ].sort(
    (a, b) =>
      a.installName.localeCompare(b.installName) ||
      Number(a.removed) - Number(b.removed) ||
      a.installId.localeCompare(b.installId),
  );
  return {
    month,
    total: shownTally(use.total, query.withSpend),
    days: [...use.days]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([day, used]) => ({ day, ...shownTally(used, query.withSpend) })),
    installs: entries,
    // Quotas count calls and HTTP requests only: no price weighs them.
    quotas: limitStandings(quotas, tenantUsage(current), 0, now).map(shownStanding),
  };
}
