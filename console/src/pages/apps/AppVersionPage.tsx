// One version of an app (read from GET /apps/:name, which carries every version the tenant sees): what it
// is, its status, provenance, the operator's block and review, and its manifest; an uploaded version of
// the tenant's own is published from here.
import { Link, useParams } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { When } from '../../components/When.tsx';
import { type AppVersion, appPath, publishOutcome, STATUS_TEXT, webHref } from './app-rules.ts';
import { Manifest } from './Manifest.tsx';
import { ProvenanceFacts } from './ProvenanceFacts.tsx';
import { useApp, usePublish } from './queries.ts';

export default function AppVersionPage() {
  const { name = '', versionId = '' } = useParams();
  const app = useApp(name);
  const version = app.data?.items.find((item) => item.id === versionId);
  return (
    <>
      <p className="crumbs">
        <Link to="/apps">Apps</Link> / <Link to={appPath(name)}>{name}</Link>
      </p>
      {app.isPending ? <Loading what="the version" /> : null}
      {app.isError ? (
        <>
          <h1>Version of {name}</h1>
          <Failure error={app.error} />
        </>
      ) : null}
      {app.data && !version ? (
        <>
          <h1>Version of {name}</h1>
          <p className="empty">This app has no such version that you may see.</p>
        </>
      ) : null}
      {version ? <VersionDetails version={version} /> : null}
    </>
  );
}

function VersionDetails({ version }: { version: AppVersion }) {
  const docs = webHref(version.docsUrl);
  return (
    <>
      <h1>
        {version.name} {version.version}
      </h1>
      {version.title ? <p className="lead">{version.title}</p> : null}
      <div className="panels">
        <section aria-labelledby="about-title" className="panel">
          <h2 id="about-title">About</h2>
          {version.description ? <p>{version.description}</p> : null}
          <dl className="facts">
            <dt>Status</dt>
            <dd>{STATUS_TEXT[version.status]}</dd>
            <dt>Publisher</dt>
            <dd>
              {version.publisher === 'platform'
                ? `Platform (${version.platformSource ?? 'platform'})`
                : 'This tenant'}
            </dd>
            <dt>Uploaded</dt>
            <dd>
              <When at={version.createdAt} />
            </dd>
            <dt>Published</dt>
            <dd>{version.publishedAt ? <When at={version.publishedAt} /> : 'not published'}</dd>
            <dt>Vendor</dt>
            <dd>{version.vendor ?? 'not named'}</dd>
            <dt>Category</dt>
            <dd>{version.category ?? 'none'}</dd>
            <dt>Documentation</dt>
            <dd>{docs ? <a href={docs}>{version.docsUrl}</a> : (version.docsUrl ?? 'none')}</dd>
            <dt>Pricing</dt>
            <dd>{version.pricingNote ?? 'not stated'}</dd>
            <dt>Module hash</dt>
            <dd>
              <code>{version.sha256}</code>
            </dd>
          </dl>
          <PublishControl version={version} />
        </section>
        <ProvenanceFacts version={version} />
      </div>
      <Manifest version={version} />
    </>
  );
}

/** Publish, for an uploaded version; stays to say what the publish did once the version has moved on. */
function PublishControl({ version }: { version: AppVersion }) {
  const canPublish = useCan('apps:publish');
  const publish = usePublish();
  if (!canPublish || (version.status !== 'uploaded' && !publish.data)) return null;
  return (
    <div className="decide">
      {publish.data ? (
        <output className="notice-line">{publishOutcome(publish.data)}</output>
      ) : (
        <button
          type="button"
          disabled={publish.isPending}
          onClick={() => publish.mutate({ name: version.name, id: version.id })}
        >
          Publish {version.name} {version.version}
        </button>
      )}
      {publish.isError ? <Failure error={publish.error} title="The version was not published." /> : null}
    </div>
  );
}
