// One install (GET /app-installs/:name): what it runs and may call, its open change, its config through
// the form generated from its version's configSchema, secrets, a test call, limits, cached values, its
// circuit, names, and removal. Write controls only for apps:write (approve/reject for apps:publish).
// It refreshes by itself (calls move its circuit; a change may be decided elsewhere).
import { Link, useParams } from 'react-router';
import { ApiFailure } from '../../api/errors.ts';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { CacheSection } from './CacheSection.tsx';
import { ChangePanel } from './ChangePanel.tsx';
import { CircuitSection } from './CircuitSection.tsx';
import { ConfigSection } from './ConfigSection.tsx';
import { DeleteSection } from './DeleteSection.tsx';
import { type InstallView, installPath } from './install-rules.ts';
import { LimitsSection } from './LimitsSection.tsx';
import { NamesSection } from './NamesSection.tsx';
import { useInstall, useSaveInstall } from './queries.ts';
import { SecretsSection } from './SecretsSection.tsx';
import { TestCallPanel } from './TestCallPanel.tsx';

export default function InstallPage() {
  const { name = '' } = useParams();
  const install = useInstall(name);
  const canWrite = useCan('apps:write');
  const renamedTo =
    install.error instanceof ApiFailure && typeof install.error.details?.renamedTo === 'string'
      ? install.error.details.renamedTo
      : null;
  if (!install.data) {
    return (
      <>
        <h1>Install {name}</h1>
        {install.isPending ? <Loading what="the install" /> : null}
        {install.isError ? <Failure error={install.error} /> : null}
        {renamedTo ? (
          <p>
            It is now named <Link to={installPath(renamedTo)}>{renamedTo}</Link>.
          </p>
        ) : null}
        <Link to="/apps/installs">All installs</Link>
      </>
    );
  }
  const view = install.data;
  return (
    <>
      <h1>Install {view.name}</h1>
      <Overview install={view} canWrite={canWrite} />
      {view.pendingChange ? (
        <section aria-labelledby="change-title" className="panel panel-attention">
          <h2 id="change-title">Change waiting for approval</h2>
          <ChangePanel change={view.pendingChange} linkToPage />
        </section>
      ) : null}
      <ConfigSection install={view} canWrite={canWrite} />
      <SecretsSection install={view} canWrite={canWrite} />
      {canWrite ? <TestCallPanel install={view} /> : null}
      {canWrite ? <LimitsSection install={view} /> : null}
      <CacheSection name={view.name} canWrite={canWrite} />
      <CircuitSection install={view} canWrite={canWrite} />
      <NamesSection install={view} canWrite={canWrite} />
      {canWrite ? <DeleteSection name={view.name} /> : null}
    </>
  );
}

function Overview({ install, canWrite }: { install: InstallView; canWrite: boolean }) {
  const save = useSaveInstall(install.name);
  const toggle = () =>
    save.mutate({
      versionId: install.versionId,
      config: install.config,
      enabled: !install.enabled,
      approveHosts: [],
    });
  const { version } = install;
  return (
    <section aria-labelledby="overview-title" className="panel">
      <h2 id="overview-title">Overview</h2>
      <dl className="facts">
        <dt>App</dt>
        <dd>
          <Link to={`/apps/${encodeURIComponent(install.appName)}`}>{version.title ?? install.appName}</Link>{' '}
          {version.version}
          {install.updateAvailable ? <span className="tag"> a newer version is published</span> : null}
          {install.autoUpgrade === 'compatible' ? (
            <span className="meta"> (upgrades automatically)</span>
          ) : null}
        </dd>
        <dt>State</dt>
        <dd>
          <span className={install.enabled ? 'tag' : 'tag tag-muted'}>
            {install.enabled ? 'enabled' : 'disabled'}
          </span>
          {install.missingSecrets.length ? (
            <span className="tag tag-alert">missing secrets: {install.missingSecrets.join(', ')}</span>
          ) : null}
        </dd>
        <dt>Approved hosts</dt>
        <dd>{install.hosts.length ? install.hosts.join(', ') : 'none'}</dd>
        {install.webhookUrl ? (
          <>
            <dt>Vendor webhook URL</dt>
            <dd>
              <code>{install.webhookUrl}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {canWrite ? (
        <button type="button" className="secondary" disabled={save.isPending} onClick={toggle}>
          {install.enabled ? 'Disable install' : 'Enable install'}
        </button>
      ) : null}
      {save.isError ? (
        <Failure
          error={save.error}
          title={install.enabled ? 'It was not disabled.' : 'It was not enabled.'}
        />
      ) : null}
    </section>
  );
}
