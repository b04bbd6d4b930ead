// "Install an app": an app of the catalogue (GET /apps) and one of its published versions, named and
// configured (InstallForm), then POST /app-installs. A save that applies leads to the install's page; one
// that waits for approval (202) to its change's page. The app picked is in the URL (`?install=<app>`), so
// the catalogue can link straight here.
import { useNavigate, useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { withParams } from '../../components/page-params.ts';
import { InstallForm, type InstallFormState } from './InstallForm.tsx';
import { changePath, installPath } from './install-rules.ts';
import { useApps, useCreateInstall, useVersions } from './queries.ts';

export function InstallAppSection() {
  const [params, setParams] = useSearchParams();
  const app = params.get('install') ?? '';
  const apps = useApps();
  const versions = useVersions(app);
  const create = useCreateInstall();
  const navigate = useNavigate();
  const published = (versions.data?.items ?? []).filter((v) => v.status === 'published' && !v.block);

  const submit = (state: InstallFormState) =>
    create.mutate(
      {
        name: state.name,
        versionId: state.versionId,
        enabled: state.enabled,
        config: state.config as Record<string, unknown>,
        approveHosts: state.approveHosts,
        comment: state.comment.trim() === '' ? null : state.comment,
      },
      {
        onSuccess: (answer) =>
          navigate(
            'change' in answer ? changePath(answer.install.name, answer.change.id) : installPath(answer.name),
          ),
      },
    );

  return (
    <section aria-labelledby="install-app-title" className="panel">
      <h2 id="install-app-title">Install an app</h2>
      {apps.isError ? <Failure error={apps.error} /> : null}
      <div className="field">
        <label htmlFor="install-app">App</label>
        <select
          id="install-app"
          value={app}
          onChange={(event) => setParams(withParams(params, { install: event.target.value }))}
        >
          <option value="">Choose an app…</option>
          {(apps.data?.items ?? []).map((item) => (
            <option key={item.name} value={item.name}>
              {item.latest?.title ?? item.name} ({item.name})
            </option>
          ))}
        </select>
      </div>
      {app && versions.isPending ? <Loading what="the app's versions" /> : null}
      {versions.isError ? <Failure error={versions.error} /> : null}
      {app && versions.data && published.length === 0 ? (
        <p className="empty">This app has no published version to install.</p>
      ) : null}
      {published[0] ? (
        <InstallForm
          key={app}
          mode="create"
          versions={published}
          initial={{ versionId: published[0].id, config: {}, enabled: false }}
          currentHosts={[]}
          submitLabel="Install"
          pending={create.isPending}
          error={create.error}
          onSubmit={submit}
        />
      ) : null}
    </section>
  );
}
