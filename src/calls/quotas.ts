// The pure rules of quotas and budgets (docs/limits-and-metering.md): the UTC
// periods a limit counts over, and which limit, if any, refuses the next attempt. quota-check.ts reads
// the database and acts on the answer; nothing here does I/O.
import {
  BUDGET_METRICS,
  BUDGET_PERIODS,
  type Budget,
  type BudgetMetric,
  type BudgetPeriod,
} from '../installs/index.ts';

export type QuotaScope = 'tenant' | 'install';
/** The operator's quotas weigh calls and HTTP requests only; spend is the install's own business. */
export type QuotaMetric = Exclude<BudgetMetric, 'spend'>;

export { BUDGET_METRICS, BUDGET_PERIODS };
export const QUOTA_METRICS: readonly QuotaMetric[] = ['calls', 'http_requests'];

export interface TenantQuota {
  metric: QuotaMetric;
  period: BudgetPeriod;
  max: number;
}

export interface PeriodBounds {
  /** 00:00 UTC of the day, or of the month's first day. */
  start: Date;
  /** The next period's start. */
  resetsAt: Date;
}

/** The UTC day or month `now` falls in. */
export function periodBounds(period: BudgetPeriod, now: Date): PeriodBounds {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  if (period === 'month') {
    // Date.UTC rolls month 12 over into January of the next year.
    return { start: new Date(Date.UTC(year, month, 1)), resetsAt: new Date(Date.UTC(year, month + 1, 1)) };
  }
  const day = now.getUTCDate();
  return { start: new Date(Date.UTC(year, month, day)), resetsAt: new Date(Date.UTC(year, month, day + 1)) };
}

/** The UTC day as app_metering keys it: YYYY-MM-DD. */
export const dayKey = (date: Date): string => date.toISOString().slice(0, 10);

/** The metering days of the period `now` falls in, as a half-open range of day keys [from, to). */
export function meteringDays(period: BudgetPeriod, now: Date): { from: string; to: string } {
  const { start, resetsAt } = periodBounds(period, now);
  return { from: dayKey(start), to: dayKey(resetsAt) };
}

/** What was used in one period: calls, HTTP requests, and spend in micros of the install's currency. */
export interface PeriodUsage {
  calls: number;
  httpRequests: number;
  spendMicros: number;
}

export const NO_USAGE: PeriodUsage = { calls: 0, httpRequests: 0, spendMicros: 0 };

/**
 * Use so far in the periods `now` falls in. The tenant's spendMicros is never weighed (spend is kept
 * per install, each in its own currency); the install's is in the install's current currency.
 */
export interface UsageSnapshot {
  tenant: Record<BudgetPeriod, PeriodUsage>;
  install: Record<BudgetPeriod, PeriodUsage>;
}

export interface QuotaInputs {
  quotas: readonly TenantQuota[];
  budgets: readonly Budget[];
  /** The install's currency (spend budgets need one; the limits record guarantees it). */
  currency: string | null;
  /** The action's price in micros of the currency; 0 when it has none. */
  price: number;
  usage: UsageSnapshot;
  now: Date;
}

export interface QuotaRefusal {
  scope: QuotaScope;
  metric: BudgetMetric;
  period: BudgetPeriod;
  max: number;
  used: number;
  /** The install's currency for a spend budget, else null. */
  currency: string | null;
  periodStart: Date;
  resetsAt: Date;
}

/**
 * The action's price in micros: 0 without a currency or a price of its own (an own property only, so an
 * action named like an Object.prototype member has no inherited "price").
 */
export function actionPrice(
  limits: { currency: string | null; prices: Record<string, number> },
  action: string,
) {
  if (!limits.currency || !Object.hasOwn(limits.prices, action)) return 0;
  return limits.prices[action] ?? 0;
}

const usedOf = (usage: PeriodUsage, metric: BudgetMetric) =>
  metric === 'calls' ? usage.calls : metric === 'http_requests' ? usage.httpRequests : usage.spendMicros;

/**
 * Whether one limit refuses the attempt: calls when this one would be one too many; HTTP requests
 * when the period's are used up (the attempt's own requests are unknown before it runs); spend when
 * the price would pass the budget. A call without a price spends nothing, so no spend budget refuses it.
 */
export function refuses(metric: BudgetMetric, max: number, used: number, price: number): boolean {
  if (metric === 'calls') return used + 1 > max;
  if (metric === 'http_requests') return used >= max;
  return price > 0 && used + price > max;
}

/** A stable order, so the same state always names the same refusal: calls, HTTP requests, spend; day first. */
const byMetricThenPeriod = <T extends { metric: BudgetMetric; period: BudgetPeriod }>(limits: readonly T[]) =>
  [...limits].sort(
    (a, b) =>
      BUDGET_METRICS.indexOf(a.metric) - BUDGET_METRICS.indexOf(b.metric) ||
      BUDGET_PERIODS.indexOf(a.period) - BUDGET_PERIODS.indexOf(b.period),
  );

/** One limit weighed against its current period: what the check refuses by and the report shows. */
export interface LimitStanding {
  metric: BudgetMetric;
  period: BudgetPeriod;
  max: number;
  used: number;
  periodStart: Date;
  resetsAt: Date;
  /** The limit refuses the next call of that price (`refuses`). */
  reached: boolean;
}

/**
 * Every limit of one layer against the periods `now` falls in, in the check's order. `price` is the
 * call's price (0: none); only spend limits read it. The quota check and the metering report both
 * decide "reached" here, so a report never calls a limit reached that lets calls by, or the reverse.
 */
export function limitStandings(
  limits: readonly (TenantQuota | Budget)[],
  usage: Record<BudgetPeriod, PeriodUsage>,
  price: number,
  now: Date,
): LimitStanding[] {
  return byMetricThenPeriod(limits).map((limit) => {
    const used = usedOf(usage[limit.period], limit.metric);
    const bounds = periodBounds(limit.period, now);
    return {
      metric: limit.metric,
      period: limit.period,
      max: limit.max,
      used,
      periodStart: bounds.start,
      resetsAt: bounds.resetsAt,
      reached: refuses(limit.metric, limit.max, used, price),
    };
  });
}

/** The first limit that refuses the attempt, the operator's quotas before the install's budgets; else null. */
export function quotaRefusal(inputs: QuotaInputs): QuotaRefusal | null {
  const layers: { scope: QuotaScope; limits: readonly (TenantQuota | Budget)[] }[] = [
    { scope: 'tenant', limits: inputs.quotas },
    { scope: 'install', limits: inputs.budgets },
  ];
  for (const { scope, limits } of layers) {
    const standings = limitStandings(limits, inputs.usage[scope], inputs.price, inputs.now);
    const refusing = standings.find((standing) => standing.reached);
    if (!refusing) continue;
    const { reached: _, ...limit } = refusing;
    return { scope, ...limit, currency: limit.metric === 'spend' ? inputs.currency : null };
  }
  return null;
}

/**
 * The price a report weighs an install's spend budgets with: its dearest action the running version
 * has. A spend budget is reached once it refuses a call of that action; a price of an action the
 * version no longer has is never asked for (admission refuses the action first), so it does not count.
 */
export function dearestPrice(
  limits: { currency: string | null; prices: Record<string, number> },
  actions: readonly string[],
): number {
  return Math.max(0, ...actions.map((action) => actionPrice(limits, action)));
}

/**
 * Names a limit in app_quota_refusals: the tenant's quota, or one install's budget (by id, so a rename
 * does not make a second first refusal).
 */
export function limitKey(refusal: Pick<QuotaRefusal, 'scope' | 'metric' | 'period'>, installId: string) {
  const owner = refusal.scope === 'tenant' ? 'tenant' : `install:${installId}`;
  return `${owner}:${refusal.metric}:${refusal.period}`;
}

const PERIOD_WORD: Record<BudgetPeriod, string> = { day: 'daily', month: 'monthly' };

/** The refusal's message, naming the limit and when it resets. */
export function refusalMessage(refusal: QuotaRefusal, installName: string): string {
  const owner = refusal.scope === 'tenant' ? 'the tenant’s' : `install ${installName}’s`;
  const limit = `${owner} ${PERIOD_WORD[refusal.period]} ${refusal.metric} ${refusal.scope === 'tenant' ? 'quota' : 'budget'}`;
  const what =
    refusal.metric === 'spend'
      ? `the call’s price would pass ${limit} (${refusal.used} of ${refusal.max} micros ${refusal.currency} spent)`
      : `${limit} is used up (${refusal.used} of ${refusal.max})`;
  return `${what}; it resets at ${refusal.resetsAt.toISOString()}`;
}
