// The usage page's pure rules: the month the URL asks for, its days, the day-by-day series of an install's
// metering, spend and limits as text, and a chart's text alternative. Pure.

/** What the metering reports count, in the order the page shows them. */
export const METRICS = [
  { key: 'calls', label: 'Calls' },
  { key: 'httpRequests', label: 'HTTP requests' },
  { key: 'webhooks', label: 'Vendor webhooks' },
  { key: 'handoffs', label: 'Hand-offs' },
] as const;
export type MetricKey = (typeof METRICS)[number]['key'];
export type Counts = Record<MetricKey, number>;

export interface Spend {
  currency: string;
  micros: number;
}

/** The month the URL names (`YYYY-MM`, 01 to 12), else the UTC month `now` falls in. */
export function monthOf(asked: string | undefined, now: Date): string {
  if (asked && /^\d{4}-(0[1-9]|1[0-2])$/.test(asked)) return asked;
  return now.toISOString().slice(0, 7);
}

/** The first and last UTC day of a month, as `GET /app-installs/metering` takes them. */
export function monthDays(month: string): { from: string; to: string } {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, number, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** Every day from `from` to `to` (inclusive) with the counts of the items of that day summed (over actions). */
export function dailySeries(
  items: readonly (Counts & { day: string })[],
  from: string,
  to: string,
): (Counts & { day: string })[] {
  const byDay = new Map<string, Counts>();
  for (const item of items) {
    const sum = byDay.get(item.day) ?? { calls: 0, httpRequests: 0, webhooks: 0, handoffs: 0 };
    for (const { key } of METRICS) sum[key] += item[key];
    byDay.set(item.day, sum);
  }
  const days: (Counts & { day: string })[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
    const day = new Date(at).toISOString().slice(0, 10);
    days.push({ day, ...(byDay.get(day) ?? { calls: 0, httpRequests: 0, webhooks: 0, handoffs: 0 }) });
  }
  return days;
}

/** Spend per currency as text ("EUR 3.00, USD 0.25"); "none" when nothing was charged. Never summed across currencies. */
export function spendText(spend: readonly Spend[]): string {
  if (spend.length === 0) return 'none';
  return spend.map(({ currency, micros }) => `${currency} ${(micros / 1_000_000).toFixed(2)}`).join(', ');
}

export interface Standing {
  metric: string;
  period: string;
  max: number;
  used: number;
  reached: boolean;
}

const METRIC_WORDS: Record<string, string> = {
  calls: 'calls',
  http_requests: 'HTTP requests',
  spend: 'spend',
};

/** A quota or budget as a sentence: "1,250 of 100,000 calls this month (reached)". Spend is in micros. */
export function standingText(
  { metric, period, max, used, reached }: Standing,
  currency?: string | null,
): string {
  const amount = (n: number) =>
    metric === 'spend' ? `${currency ?? ''} ${(n / 1_000_000).toFixed(2)}`.trim() : n.toLocaleString('en');
  const when = period === 'day' ? 'today' : 'this month';
  return `${amount(used)} of ${amount(max)} ${METRIC_WORDS[metric] ?? metric} ${when}${reached ? ' (reached)' : ''}`;
}

/** A chart's text alternative: each series with its values by label ("Calls: idv 3, kyc 0."). */
export function chartSummary(
  title: string,
  labels: readonly string[],
  series: readonly { label: string; values: readonly number[] }[],
): string {
  if (labels.length === 0) return `${title}: no use.`;
  const parts = series.map(
    ({ label, values }) => `${label}: ${labels.map((name, i) => `${name} ${values[i] ?? 0}`).join(', ')}.`,
  );
  return `${title}. ${parts.join(' ')}`;
}
