// `ops tenants usage` (docs/operations.md "ops tenants usage"): a month's use per install with the
// operator's quotas and the installs' budgets, spend included, and the vendor webhooks and hand-offs
// counted apart from calls. With a tenant and --json the answer is
// the month report GET /apps/metering answers an apps:write caller of that tenant (days included): the
// billing export. Without a tenant, every tenant's report, by name.
import { asc } from 'drizzle-orm';
import { monthOf, monthReport } from '../calls/month-report.ts';
import type { Queryable } from '../db/pool.ts';
import { tenants } from '../tenants/tables.ts';
import { amountText, spendText } from './args.ts';
import { record, table } from './output.ts';

export type MonthReport = Awaited<ReturnType<typeof monthReport>>;
type Standing = MonthReport['quotas'][number];
type InstallEntry = MonthReport['installs'][number];

/** One tenant's report, as GET /apps/metering answers it with spend (apps:write). */
export const tenantUsage = (db: Queryable, tenantId: string, month: string, now: Date) =>
  monthReport(db, { tenantId, month, withSpend: true }, now);

export interface EveryTenantUsage {
  month: string;
  tenants: ({ tenantId: string; tenantName: string } & MonthReport)[];
}

/** Every tenant's report of one month, by tenant name; `progress` told after each. */
export async function everyTenantUsage(
  db: Queryable,
  month: string | undefined,
  now: Date,
  progress: (done: number, total: number) => void,
): Promise<EveryTenantUsage> {
  const shown = month ?? monthOf(now);
  const all = await db
    .select({ id: tenants.id, name: tenants.name })
    .from(tenants)
    .orderBy(asc(tenants.name));
  const reports: EveryTenantUsage['tenants'] = [];
  for (const tenant of all) {
    reports.push({
      tenantId: tenant.id,
      tenantName: tenant.name,
      ...(await tenantUsage(db, tenant.id, shown, now)),
    });
    progress(reports.length, all.length);
  }
  return { month: shown, tenants: reports };
}

type Spend = { currency: string; micros: number }[];
/** The spend of a tally (the report shows it to spend readers only; the operator always is one). */
const spendOf = (tally: object): string => spendText('spend' in tally ? (tally.spend as Spend) : undefined);

/** A limit as one phrase: `calls/day 1000/1000 reached`; spend in the install's currency. Pure. */
export function standingText(standing: Standing, currency: string | null = null): string {
  const amount = (micros: number) =>
    standing.metric === 'spend' && currency ? amountText({ currency, micros }) : String(micros);
  return `${standing.metric}/${standing.period} ${amount(standing.used)}/${amount(standing.max)}${
    standing.reached ? ' reached' : ''
  }`;
}

const installsTable = (installs: readonly InstallEntry[]) =>
  table(installs, [
    { header: 'INSTALL', value: (i) => i.installName },
    { header: 'APP', value: (i) => i.appName },
    { header: 'REMOVED', value: (i) => (i.removed ? 'removed' : '') },
    { header: 'CALLS', value: (i) => i.calls },
    { header: 'HTTP_REQUESTS', value: (i) => i.httpRequests },
    { header: 'SPEND', value: (i) => spendOf(i) },
    { header: 'WEBHOOKS', value: (i) => i.webhooks },
    { header: 'HANDOFFS', value: (i) => i.handoffs },
    {
      header: 'BUDGETS',
      value: (i) =>
        i.budgets.map((b) => standingText(b, 'currency' in i ? (i.currency ?? null) : null)).join(', '),
    },
  ]);

const quotasTable = (quotas: readonly Standing[]) =>
  quotas.length === 0
    ? 'no quotas\n'
    : table(quotas, [
        { header: 'QUOTA', value: (q) => `${q.metric}/${q.period}` },
        { header: 'MAX', value: (q) => q.max },
        { header: 'USED', value: (q) => q.used },
        { header: 'REACHED', value: (q) => (q.reached ? 'reached' : '') },
        { header: 'RESETS', value: (q) => q.resetsAt },
      ]);

/** One tenant's report for a terminal: totals, then the installs, then the quotas (no days). */
export function tenantUsageText(tenantName: string, report: MonthReport): string {
  return [
    record([
      ['tenant', tenantName],
      ['month', report.month],
      ['calls', report.total.calls],
      ['http requests', report.total.httpRequests],
      ['spend', spendOf(report.total)],
      ['webhooks', report.total.webhooks],
      ['handoffs', report.total.handoffs],
    ]),
    installsTable(report.installs),
    quotasTable(report.quotas),
  ].join('\n');
}

/** Every tenant's report for a terminal: one line each. */
export function everyTenantUsageText(usage: EveryTenantUsage): string {
  return `month ${usage.month}\n${table(usage.tenants, [
    { header: 'TENANT', value: (t) => t.tenantName },
    { header: 'CALLS', value: (t) => t.total.calls },
    { header: 'HTTP_REQUESTS', value: (t) => t.total.httpRequests },
    { header: 'SPEND', value: (t) => spendOf(t.total) },
    { header: 'WEBHOOKS', value: (t) => t.total.webhooks },
    { header: 'HANDOFFS', value: (t) => t.total.handoffs },
    { header: 'INSTALLS', value: (t) => t.installs.length },
    { header: 'QUOTAS', value: (t) => t.quotas.map((q) => standingText(q)).join(', ') },
  ])}`;
}
