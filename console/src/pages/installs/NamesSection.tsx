// The install's name and the former names it keeps as aliases (definitions calling a former name still
// reach it): rename (keeping the former name as an alias by default) and remove an alias. A refusal names
// the definitions and runs still calling the name.
import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiFailure } from '../../api/errors.ts';
import { Failure } from '../../components/Failure.tsx';
import { Confirm } from './Confirm.tsx';
import { type InstallView, installPath, runsNamed } from './install-rules.ts';
import { useRemoveAlias, useRename } from './queries.ts';

export function NamesSection({ install, canWrite }: { install: InstallView; canWrite: boolean }) {
  const id = useId();
  const [name, setName] = useState('');
  const [keepAlias, setKeepAlias] = useState(true);
  const rename = useRename(install.name);
  const removeAlias = useRemoveAlias(install.name);
  const navigate = useNavigate();
  return (
    <section aria-labelledby="names-title" className="panel">
      <h2 id="names-title">Name and aliases</h2>
      {install.aliases.length === 0 ? (
        <p className="empty">No former name is kept.</p>
      ) : (
        <ul className="items">
          {install.aliases.map((alias) => (
            <li key={alias} className="item">
              <code>{alias}</code> <span className="meta">former name, still answered</span>
              {canWrite ? (
                <Confirm
                  label={`Remove alias ${alias}`}
                  question={`Free the name ${alias}? Definitions calling it stop reaching this install.`}
                  confirm="Yes, remove it"
                  pending={removeAlias.isPending}
                  onConfirm={() => removeAlias.mutate(alias)}
                />
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {removeAlias.isError ? <Refusal error={removeAlias.error} title="The alias was not removed." /> : null}
      {canWrite ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            rename.mutate(
              { name: name.trim(), keepAlias },
              { onSuccess: (answer) => navigate(installPath(answer.install.name), { replace: true }) },
            );
          }}
        >
          <label htmlFor={`${id}-name`}>New name</label>
          <input id={`${id}-name`} value={name} onChange={(event) => setName(event.target.value)} />
          <label className="inline">
            <input
              type="checkbox"
              checked={keepAlias}
              onChange={(event) => setKeepAlias(event.target.checked)}
            />
            Keep {install.name} as an alias
          </label>
          <button type="submit" disabled={rename.isPending || name.trim() === ''}>
            Rename
          </button>
        </form>
      ) : null}
      {rename.isError ? <Refusal error={rename.error} title="The install was not renamed." /> : null}
    </section>
  );
}

/** A refusal as a sentence, with the runs it names as links to their pages. */
export function Refusal({ error, title }: { error: Error; title: string }) {
  const runs = error instanceof ApiFailure ? runsNamed(error.details) : [];
  return (
    <>
      <Failure error={error} title={title} />
      {runs.length > 0 ? (
        <div className="refusal-runs">
          <p>Runs waiting on it:</p>
          <ul>
            {runs.map((run) => (
              <li key={run}>
                <Link to={`/runs/${encodeURIComponent(run)}`}>Run {run}</Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
