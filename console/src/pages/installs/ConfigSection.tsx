// The install's config: for apps:write the form generated from the version's configSchema (InstallForm,
// saved whole with PUT; a save adding hosts may wait for approval, then the page shows the change), for
// everyone else the values by field, read-only.
import { Failure } from '../../components/Failure.tsx';
import { describeConfig, type Field, fieldText, type Json, valueAt } from './config-form.ts';
import { InstallForm, type InstallFormState } from './InstallForm.tsx';
import type { InstallView } from './install-rules.ts';
import { useSaveInstall, useVersions } from './queries.ts';

export function ConfigSection({ install, canWrite }: { install: InstallView; canWrite: boolean }) {
  return (
    <section aria-labelledby="config-title" className="panel">
      <h2 id="config-title">Config</h2>
      {canWrite ? <ConfigEditor install={install} /> : <ConfigView install={install} />}
    </section>
  );
}

function ConfigEditor({ install }: { install: InstallView }) {
  const versions = useVersions(install.appName);
  const save = useSaveInstall(install.name);
  const choices = [
    install.version,
    ...(versions.data?.items ?? []).filter(
      (v) => v.status === 'published' && !v.block && v.id !== install.versionId,
    ),
  ];
  const submit = (state: InstallFormState) =>
    save.mutate({
      versionId: state.versionId,
      enabled: state.enabled,
      config: state.config as Record<string, unknown>,
      approveHosts: state.approveHosts,
      comment: state.comment.trim() === '' ? null : state.comment,
    });
  return (
    <>
      {versions.isError ? <Failure error={versions.error} title="Other versions are not offered." /> : null}
      <InstallForm
        // A saved install starts the form again from what the platform holds.
        key={install.updatedAt}
        mode="save"
        versions={choices}
        initial={{ versionId: install.versionId, config: install.config as Json, enabled: install.enabled }}
        currentHosts={install.hosts}
        submitLabel="Save config"
        pending={save.isPending}
        error={save.error}
        onSubmit={submit}
      />
      {save.isSuccess ? (
        <output className="status">
          {'change' in save.data ? 'Saved: the change waits for approval.' : 'Saved.'}
        </output>
      ) : null}
    </>
  );
}

function ConfigView({ install }: { install: InstallView }) {
  return (
    <FieldValues fields={describeConfig(install.version.configSchema)} config={install.config as Json} />
  );
}

function FieldValues({ fields, config }: { fields: readonly Field[]; config: Json }) {
  return (
    <dl className="facts">
      {fields.map((field) => (
        <div key={field.pointer} className="fact">
          <dt>{field.label}</dt>
          <dd>
            {field.kind === 'group' ? (
              <FieldValues fields={field.fields} config={config} />
            ) : valueAt(config, field.pointer) === undefined ? (
              <span className="meta">not set</span>
            ) : (
              <code className="value">{fieldText(field, valueAt(config, field.pointer))}</code>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
