// Usage: a month's metering (the month in the URL) per install, as a chart and its table, the use day by
// day of one install or all (`install` in the URL), and the tenant's quotas with the installs' budgets,
// each with its use and whether it is reached. Spend shows only where the API answers it (apps:write).

import { useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { withParams } from '../../components/page-params.ts';
import { DailyUse } from './DailyUse.tsx';
import { InstallUse } from './InstallUse.tsx';
import { Limits } from './Limits.tsx';
import { useMonthMetering } from './queries.ts';
import { METRICS, monthOf, spendText } from './usage-rules.ts';

export default function UsagePage() {
  const [params, setParams] = useSearchParams();
  const month = monthOf(params.get('month') ?? undefined, new Date());
  const report = useMonthMetering(month);
  return (
    <>
      <h1>Usage</h1>
      <form
        className="filter-form"
        aria-label="Choose the month"
        onSubmit={(event) => event.preventDefault()}
      >
        <label>
          Month (UTC)
          <input
            type="month"
            name="month"
            value={month}
            onChange={(event) => setParams(withParams(params, { month: event.target.value || null }))}
          />
        </label>
      </form>
      {report.isPending ? <Loading what="the month’s use" /> : null}
      {report.isError ? <Failure error={report.error} /> : null}
      {report.data ? (
        <>
          <section aria-labelledby="totals-title" className="panel">
            <h2 id="totals-title">{month} in total</h2>
            <dl className="totals">
              {METRICS.map(({ key, label }) => (
                <div key={key}>
                  <dt>{label}</dt>
                  <dd>{report.data.total[key].toLocaleString('en')}</dd>
                </div>
              ))}
              {report.data.total.spend ? (
                <div>
                  <dt>Spend</dt>
                  <dd>{spendText(report.data.total.spend)}</dd>
                </div>
              ) : null}
            </dl>
          </section>
          <InstallUse month={month} installs={report.data.installs} />
          <DailyUse month={month} installs={report.data.installs.map((install) => install.installName)} />
          <Limits quotas={report.data.quotas} installs={report.data.installs} />
        </>
      ) : null}
    </>
  );
}
