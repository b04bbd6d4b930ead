// The month day by day, for one install or all (`install` in the URL; GET /app-installs/metering with
// the month's first and last day): a bar chart of each day's counts, and the days with use as a table.
import { useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { withParams } from '../../components/page-params.ts';
import { Table } from '../../components/Table.tsx';
import { BarChart } from './BarChart.tsx';
import { useDailyMetering } from './queries.ts';
import { type Counts, dailySeries, METRICS, monthDays } from './usage-rules.ts';

type Day = Counts & { day: string };

export function DailyUse({ month, installs }: { month: string; installs: string[] }) {
  const [params, setParams] = useSearchParams();
  const asked = params.get('install') ?? '';
  const install = installs.includes(asked) ? asked : undefined;
  const range = monthDays(month);
  const metering = useDailyMetering({ ...(install ? { install } : {}), ...range });
  const days = metering.data ? dailySeries(metering.data.items, range.from, range.to) : [];
  const used = days.filter((day) => METRICS.some(({ key }) => day[key] > 0));
  const who = install ? `install ${install}` : 'all installs';
  return (
    <section aria-labelledby="daily-title" className="panel">
      <h2 id="daily-title">Day by day</h2>
      <label className="inline-field">
        Install
        <select
          value={install ?? ''}
          onChange={(event) => setParams(withParams(params, { install: event.target.value || null }))}
        >
          <option value="">All installs</option>
          {installs.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {metering.isPending ? <Loading what="the days" /> : null}
      {metering.isError ? <Failure error={metering.error} /> : null}
      {metering.data ? (
        <>
          <BarChart
            title={`Use per day of ${who} in ${month}`}
            labels={days.map((day) => day.day.slice(8))}
            series={METRICS.map(({ key, label }) => ({ label, values: days.map((day) => day[key]) }))}
          />
          <Table<Day>
            caption={`Days of ${month} with use, ${who} (the chart’s numbers; other days had none)`}
            rows={used}
            rowKey={(day) => day.day}
            empty={`No use by ${who} in ${month}.`}
            columns={[
              { header: 'Day (UTC)', cell: (day) => day.day },
              ...METRICS.map(({ key, label }) => ({
                header: label,
                cell: (day: Day) => day[key].toLocaleString('en'),
                className: 'numeric',
              })),
            ]}
          />
        </>
      ) : null}
    </section>
  );
}
