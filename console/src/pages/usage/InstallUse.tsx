// A month's use per install: a bar chart of calls, HTTP requests, vendor webhooks and hand-offs, and the
// same numbers as a table (with spend when the API answers it), the chart's text alternative.
import { Table } from '../../components/Table.tsx';
import { BarChart } from './BarChart.tsx';
import type { useMonthMetering } from './queries.ts';
import { METRICS, spendText } from './usage-rules.ts';

type Install = NonNullable<ReturnType<typeof useMonthMetering>['data']>['installs'][number];

export function InstallUse({ month, installs }: { month: string; installs: Install[] }) {
  const withSpend = installs.some((install) => install.spend !== undefined);
  const name = (install: Install) => `${install.installName}${install.removed ? ' (removed)' : ''}`;
  const labels = installs.map(name);
  const series = METRICS.map(({ key, label }) => ({
    label,
    values: installs.map((install) => install[key]),
  }));
  return (
    <section aria-labelledby="installs-use-title" className="panel">
      <h2 id="installs-use-title">Per install</h2>
      {installs.length > 0 ? (
        <BarChart title={`Use per install in ${month}`} labels={labels} series={series} />
      ) : null}
      <Table<Install>
        caption={`Use per install in ${month} (the chart’s numbers)`}
        rows={installs}
        rowKey={(install) => install.installId}
        empty="The tenant has no install and used none this month."
        columns={[
          { header: 'Install', cell: (install) => `${name(install)} · ${install.appName}` },
          ...METRICS.map(({ key, label }) => ({
            header: label,
            cell: (install: Install) => install[key].toLocaleString('en'),
            className: 'numeric',
          })),
          ...(withSpend
            ? [
                {
                  header: 'Spend',
                  cell: (install: Install) => spendText(install.spend ?? []),
                  className: 'numeric',
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
