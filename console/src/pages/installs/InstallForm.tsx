// The form that installs an app version or saves an install: its version, its config through the form
// generated from that version's configSchema, the hosts the save adds (each approved by a tick), enabled,
// and a comment. The platform validates; its issues show beside their fields, a refusal as a sentence.
import { useId, useMemo, useState } from 'react';
import { ApiFailure } from '../../api/errors.ts';
import { Failure } from '../../components/Failure.tsx';
import { ConfigFields } from './ConfigFields.tsx';
import { describeConfig, type Json, placeIssues } from './config-form.ts';
import { hostsAdded, hostsNotApproved, type InstallView, issuesOf } from './install-rules.ts';

type Version = InstallView['version'];

export interface InstallFormState {
  name: string;
  versionId: string;
  config: Json;
  enabled: boolean;
  approveHosts: string[];
  comment: string;
}

export interface InstallFormProps {
  /** create: the name is asked for; save: the install's. */
  mode: 'create' | 'save';
  /** The versions it may run (the app's published ones, and the one it runs). */
  versions: readonly Version[];
  initial: { versionId: string; config: Json; enabled: boolean };
  /** The hosts the install has (none for a new one). */
  currentHosts: readonly string[];
  submitLabel: string;
  pending: boolean;
  error: Error | null;
  onSubmit: (state: InstallFormState) => void;
}

export function InstallForm(props: InstallFormProps) {
  const { mode, versions, initial, currentHosts, pending, error } = props;
  const id = useId();
  const [name, setName] = useState('');
  const [versionId, setVersionId] = useState(initial.versionId);
  const [config, setConfig] = useState<Json>(initial.config);
  const [enabled, setEnabled] = useState(initial.enabled);
  const [comment, setComment] = useState('');
  const [approved, setApproved] = useState<ReadonlySet<string>>(new Set());
  const [invalid, setInvalid] = useState<ReadonlyMap<string, string>>(new Map());

  const version = versions.find((v) => v.id === versionId) ?? versions[0];
  const fields = useMemo(() => describeConfig(version?.configSchema), [version]);
  const failure = error instanceof ApiFailure ? error : null;
  const placed = placeIssues(fields, failure?.code === 'validation_error' ? issuesOf(failure.details) : []);
  const toApprove = version
    ? [...new Set([...hostsAdded(version, config, currentHosts), ...hostsNotApproved(failure?.details)])]
    : [];

  const onInvalid = (pointer: string, message: string | null) =>
    setInvalid((before) => {
      const next = new Map(before);
      if (message === null) next.delete(pointer);
      else next.set(pointer, message);
      return next;
    });
  const toggleHost = (host: string, on: boolean) =>
    setApproved((before) => {
      const next = new Set(before);
      if (on) next.add(host);
      else next.delete(host);
      return next;
    });
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (invalid.size > 0 || !version) return;
    const approveHosts = toApprove.filter((host) => approved.has(host));
    props.onSubmit({ name: name.trim(), versionId: version.id, config, enabled, approveHosts, comment });
  };

  return (
    <form className="install-form" onSubmit={submit} noValidate>
      {mode === 'create' ? (
        <div className="field">
          <label htmlFor={`${id}-name`}>
            Install name<span className="required"> (required)</span>
          </label>
          <input
            id={`${id}-name`}
            value={name}
            aria-describedby={`${id}-name-help`}
            aria-required
            onChange={(event) => setName(event.target.value)}
          />
          <p className="hint" id={`${id}-name-help`}>
            Lower-case letters, digits and hyphens; workflows call the install by it.
          </p>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={`${id}-version`}>Version</label>
        <select
          id={`${id}-version`}
          value={version?.id ?? ''}
          onChange={(event) => setVersionId(event.target.value)}
        >
          {versions.map((v) => (
            <option key={v.id} value={v.id}>
              {v.version}
              {v.status === 'published' ? '' : ` (${v.status})`}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="config">
        <legend>Config</legend>
        <ConfigFields
          fields={fields}
          config={config}
          onChange={setConfig}
          issues={placed.at}
          onInvalid={onInvalid}
        />
      </fieldset>
      {toApprove.length > 0 ? (
        <fieldset className="config-group">
          <legend>Hosts to approve</legend>
          <p className="hint">The install may call these hosts once approved; the save adds them.</p>
          {toApprove.map((host) => (
            <label key={host} className="inline">
              <input
                type="checkbox"
                checked={approved.has(host)}
                onChange={(e) => toggleHost(host, e.target.checked)}
              />
              Approve <code>{host}</code>
            </label>
          ))}
        </fieldset>
      ) : null}
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        Enabled (calls may use it; every required secret must be stored)
      </label>
      <div className="field">
        <label htmlFor={`${id}-comment`}>Comment (optional, kept with the change)</label>
        <input id={`${id}-comment`} value={comment} onChange={(event) => setComment(event.target.value)} />
      </div>
      {invalid.size > 0 ? (
        <p className="failure" role="alert">
          Correct the fields marked before saving.
        </p>
      ) : null}
      {error ? (
        <Failure
          error={error}
          title={mode === 'create' ? 'The app was not installed.' : 'The install was not saved.'}
        />
      ) : null}
      {placed.unplaced.length > 0 ? (
        <ul className="field-issues">
          {placed.unplaced.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path ? <code>{issue.path}</code> : 'Config'}: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="submit" disabled={pending}>
        {props.submitLabel}
      </button>
    </form>
  );
}
