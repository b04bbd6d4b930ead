// An app (GET /apps/:name): what it is, the tenant's installs of it (each linking to its install page),
// and every version the tenant sees, highest first, with status, provenance, block and review.
import { Link, useParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { type AppVersion, installPath, STATUS_TEXT, versionPath } from './app-rules.ts';
import { useApp } from './queries.ts';

const columns: Column<AppVersion>[] = [
  {
    header: 'Version',
    cell: (v) => <Link to={versionPath(v.name, v.id)}>{v.version}</Link>,
  },
  { header: 'Status', cell: (v) => STATUS_TEXT[v.status] },
  { header: 'Published', cell: (v) => (v.publishedAt ? <When at={v.publishedAt} /> : '—') },
  {
    header: 'Provenance',
    cell: (v) => (v.provenance === null ? 'not signed' : v.provenance.trusted ? 'trusted' : 'not trusted'),
  },
  { header: 'Block', cell: (v) => (v.block ? `blocked: ${v.block.reason}` : '—') },
  { header: 'Review', cell: (v) => v.review?.status ?? '—' },
];

export default function AppPage() {
  const { name = '' } = useParams();
  const app = useApp(name);
  const latest = app.data?.latest;
  return (
    <>
      <p className="crumbs">
        <Link to="/apps">Apps</Link>
      </p>
      <h1>{name}</h1>
      {app.isPending ? <Loading what="the app" /> : null}
      {app.isError ? <Failure error={app.error} /> : null}
      {app.data && latest ? (
        <>
          {latest.title ? <p className="lead">{latest.title}</p> : null}
          {latest.description ? <p>{latest.description}</p> : null}
          <section aria-labelledby="installs-title" className="panel">
            <h2 id="installs-title">Installs</h2>
            {app.data.installs.length === 0 ? (
              <p className="empty">This tenant has not installed {name}.</p>
            ) : (
              <ul className="plain">
                {app.data.installs.map((install) => (
                  <li key={install}>
                    <Link to={installPath(install)}>{install}</Link>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="versions-title" className="panel">
            <h2 id="versions-title">Versions</h2>
            <Table
              caption={`${app.data.items.length} versions, highest first; installs get ${latest.version} by default`}
              columns={columns}
              rows={app.data.items}
              rowKey={(v) => v.id}
              empty="No versions you may see."
            />
          </section>
        </>
      ) : null}
    </>
  );
}
