// The catalogue (GET /apps): every app the tenant sees, its publisher, the version installs get by
// default, how many versions and which installs; a holder of apps:write gets an Install link per app (the
// installs page's form with the app chosen); an administrator uploads and publishes a module here.
import { Link } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import {
  type AppEntry,
  appPath,
  installAppPath,
  installPath,
  STATUS_TEXT,
  versionPath,
} from './app-rules.ts';
import { useCatalogue } from './queries.ts';
import { UploadPanel } from './UploadPanel.tsx';

const columns: Column<AppEntry>[] = [
  {
    header: 'App',
    cell: (app) => (
      <>
        <Link to={appPath(app.name)}>{app.name}</Link>
        {app.latest.title ? <span className="meta"> {app.latest.title}</span> : null}
      </>
    ),
  },
  { header: 'Publisher', cell: (app) => (app.publisher === 'platform' ? 'Platform' : 'This tenant') },
  {
    header: 'Latest version',
    cell: (app) => (
      <>
        <Link to={versionPath(app.name, app.latest.id)}>{app.latest.version}</Link>
        <span className="meta"> {STATUS_TEXT[app.latest.status]}</span>
        {app.latest.block ? <span className="badge badge-alert"> blocked</span> : null}
      </>
    ),
  },
  { header: 'Versions', cell: (app) => app.versions, className: 'numeric' },
  {
    header: 'Installs',
    cell: (app) =>
      app.installs.length === 0 ? (
        <span className="meta">none</span>
      ) : (
        <ul className="inline-list">
          {app.installs.map((install) => (
            <li key={install}>
              <Link to={installPath(install)}>{install}</Link>
            </li>
          ))}
        </ul>
      ),
  },
];

/** The last column for a holder of apps:write: a link to install the app (named for a screen reader). */
const installColumn: Column<AppEntry> = {
  header: 'Install',
  cell: (app) => (
    <Link to={installAppPath(app.name)}>
      Install<span className="visually-hidden"> {app.name}</span>
    </Link>
  ),
};

export default function AppsPage() {
  const canPublish = useCan('apps:publish');
  const canInstall = useCan('apps:write');
  const catalogue = useCatalogue();
  return (
    <>
      <h1>Apps</h1>
      <nav aria-label="Apps" className="subnav">
        <Link to="/apps/installs">Installs</Link>
        <Link to="/apps/approvals">Publish requests</Link>
      </nav>
      <section aria-labelledby="catalogue-title" className="panel">
        <h2 id="catalogue-title">Catalogue</h2>
        {catalogue.isPending ? <Loading what="the catalogue" /> : null}
        {catalogue.isError ? <Failure error={catalogue.error} /> : null}
        {catalogue.data ? (
          <Table
            caption={`${catalogue.data.items.length} apps; signatures ${catalogue.data.signatures}`}
            columns={canInstall ? [...columns, installColumn] : columns}
            rows={catalogue.data.items}
            rowKey={(app) => `${app.publisher}:${app.name}`}
            empty="No apps in the catalogue yet."
          />
        ) : null}
      </section>
      {canPublish ? <UploadPanel /> : null}
    </>
  );
}
