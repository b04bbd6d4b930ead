// The tenant's installs with how each fares: success rate, p95 latency and last call over a window
// (GET /apps/health, `?window=` minutes in the URL), its circuit, a block, its budgets' use this period
// (GET /apps/metering), enabled, version, an open change; filtered by app (`?app=`). Holders of
// apps:write also get "Install an app". The health refreshes by itself while the tab shows.
import { Link, useSearchParams } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { withParams } from '../../components/page-params.ts';
import { type Column, Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { InstallAppSection } from './InstallAppSection.tsx';
import {
  CIRCUIT_TEXT,
  type InstallRow,
  installPath,
  installRows,
  latencyText,
  successRate,
} from './install-rules.ts';
import { useApps, useHealth, useInstalls, useMonthMetering } from './queries.ts';

const WINDOWS = [
  { minutes: 60, label: 'last hour' },
  { minutes: 360, label: 'last 6 hours' },
  { minutes: 1440, label: 'last 24 hours' },
];

const columns: Column<InstallRow>[] = [
  { header: 'Install', cell: (row) => <Link to={installPath(row.name)}>{row.name}</Link> },
  {
    header: 'App',
    cell: (row) => (
      <>
        {row.appName} <span className="meta">{row.version}</span>
      </>
    ),
  },
  {
    header: 'State',
    cell: (row) => (
      <>
        {row.blocked ? <span className="tag tag-alert">blocked: {row.blocked}</span> : null}
        <span className={row.enabled ? 'tag' : 'tag tag-muted'}>{row.enabled ? 'enabled' : 'disabled'}</span>
        {row.missingSecrets.length ? <span className="tag tag-alert">secrets missing</span> : null}
        {row.pendingChange ? <span className="tag">change waiting</span> : null}
      </>
    ),
  },
  { header: 'Calls', cell: (row) => row.calls.toLocaleString('en'), className: 'numeric' },
  { header: 'Success rate', cell: (row) => successRate(row.calls, row.failures), className: 'numeric' },
  { header: 'p95 latency', cell: (row) => latencyText(row.p95Ms), className: 'numeric' },
  { header: 'Last call', cell: (row) => (row.lastCallAt ? <When at={row.lastCallAt} /> : '—') },
  {
    header: 'Circuit',
    cell: (row) => (
      <span className={row.circuit === 'closed' ? undefined : 'alert-text'}>
        {CIRCUIT_TEXT[row.circuit]}
        {row.retryAt ? (
          <>
            {' '}
            (retry <When at={row.retryAt} />)
          </>
        ) : null}
      </span>
    ),
  },
  {
    header: 'Budgets',
    cell: (row) =>
      row.budgets.length === 0 ? (
        <span className="meta">none</span>
      ) : (
        <ul className="plain">
          {row.budgets.map((budget) => (
            <li key={budget.text} className={budget.reached ? 'alert-text' : undefined}>
              {budget.text}
            </li>
          ))}
        </ul>
      ),
  },
];

export default function InstallsPage() {
  const [params, setParams] = useSearchParams();
  const app = params.get('app') ?? undefined;
  const asked = Number(params.get('window'));
  const windowMinutes = WINDOWS.some((w) => w.minutes === asked) ? asked : 60;
  const installs = useInstalls(app);
  const health = useHealth(windowMinutes);
  const metering = useMonthMetering();
  const canWrite = useCan('apps:write');
  const rows = installRows(installs.data?.items ?? [], health.data, metering.data);
  const apps = useApps();
  const appNames = (apps.data?.items ?? []).map((item) => item.name);

  return (
    <>
      <h1>Installs</h1>
      <section aria-labelledby="installs-title" className="panel">
        <h2 id="installs-title">Installs and their health</h2>
        <div className="filters">
          <label>
            Health over{' '}
            <select
              value={String(windowMinutes)}
              onChange={(event) =>
                setParams(
                  withParams(params, { window: event.target.value === '60' ? null : event.target.value }),
                )
              }
            >
              {WINDOWS.map((w) => (
                <option key={w.minutes} value={String(w.minutes)}>
                  {w.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            App{' '}
            <select
              value={app ?? ''}
              onChange={(event) => setParams(withParams(params, { app: event.target.value }))}
            >
              <option value="">all apps</option>
              {[...new Set([...appNames, ...(app ? [app] : [])])].map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        </div>
        {installs.isPending ? <Loading what="installs" /> : null}
        {installs.isError ? <Failure error={installs.error} /> : null}
        {health.isError ? <Failure error={health.error} title="Health is not shown." /> : null}
        {metering.isError ? <Failure error={metering.error} title="Budgets are not shown." /> : null}
        {installs.data ? (
          <Table
            caption={`Installs${app ? ` of ${app}` : ''}; calls over the ${WINDOWS.find((w) => w.minutes === windowMinutes)?.label}, budgets this period`}
            columns={columns}
            rows={rows}
            rowKey={(row) => row.name}
            empty={app ? `No install of ${app}.` : 'No app is installed yet.'}
          />
        ) : null}
      </section>
      {canWrite ? <InstallAppSection /> : null}
    </>
  );
}
