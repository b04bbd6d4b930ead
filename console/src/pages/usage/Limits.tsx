// The tenant's quotas (the operator's, over all installs) and each install's budgets, weighed against
// their current period: use, limit, when it resets, and a reached one marked in words and colour.
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import type { useMonthMetering } from './queries.ts';
import { standingText } from './usage-rules.ts';

type Report = NonNullable<ReturnType<typeof useMonthMetering>['data']>;
type Quota = Report['quotas'][number];
type Budget = Report['installs'][number]['budgets'][number] & { install: string; currency?: string | null };

const Reached = ({ reached }: { reached: boolean }) =>
  reached ? <strong className="reached">Reached: calls are refused</strong> : <span>Within</span>;

export function Limits({ quotas, installs }: { quotas: Quota[]; installs: Report['installs'] }) {
  const budgets: Budget[] = installs.flatMap((install) =>
    install.budgets.map((budget) => ({
      ...budget,
      install: install.installName,
      currency: install.currency,
    })),
  );
  return (
    <section aria-labelledby="limits-title" className="panel">
      <h2 id="limits-title">Quotas and budgets</h2>
      <Table<Quota>
        caption="The tenant’s quotas (set by the operator), over all installs, in their current period"
        rows={quotas}
        rowKey={(quota) => `${quota.metric}:${quota.period}`}
        empty="The operator set no quota for this tenant."
        columns={[
          { header: 'Quota', cell: (quota) => standingText(quota) },
          { header: 'Used', cell: (quota) => quota.used.toLocaleString('en'), className: 'numeric' },
          { header: 'Limit', cell: (quota) => quota.max.toLocaleString('en'), className: 'numeric' },
          { header: 'State', cell: (quota) => <Reached reached={quota.reached} /> },
          { header: 'Resets', cell: (quota) => <When at={quota.resetsAt} /> },
        ]}
      />
      <Table<Budget>
        caption="Each install’s budgets (its limits), in their current period"
        rows={budgets}
        rowKey={(budget) => `${budget.install}:${budget.metric}:${budget.period}`}
        empty="No install has a budget."
        columns={[
          { header: 'Install', cell: (budget) => budget.install },
          { header: 'Budget', cell: (budget) => standingText(budget, budget.currency) },
          { header: 'State', cell: (budget) => <Reached reached={budget.reached} /> },
          { header: 'Resets', cell: (budget) => <When at={budget.resetsAt} /> },
        ]}
      />
    </section>
  );
}
