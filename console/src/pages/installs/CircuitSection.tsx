// The install's circuit: its state as calls moved it, outages in a row, the settings in force (the
// install's own or the deployment's), a form for its own (empty: the deployment's) and a reset.
import { useId, useState } from 'react';
import { ApiFailure } from '../../api/errors.ts';
import { Failure } from '../../components/Failure.tsx';
import { When } from '../../components/When.tsx';
import { CIRCUIT_TEXT, type InstallView, issuesOf } from './install-rules.ts';
import { useResetCircuit, useSaveCircuit } from './queries.ts';

/** A setting's text: empty is the deployment's (null), a whole number is the install's; else not valid. */
const asSetting = (text: string): number | null | undefined =>
  text.trim() === '' ? null : /^\d{1,9}$/.test(text.trim()) ? Number(text) : undefined;

export function CircuitSection({ install, canWrite }: { install: InstallView; canWrite: boolean }) {
  const { circuit } = install;
  const id = useId();
  const [threshold, setThreshold] = useState(String(circuit.settings?.failureThreshold ?? ''));
  const [openSeconds, setOpenSeconds] = useState(String(circuit.settings?.openSeconds ?? ''));
  const save = useSaveCircuit(install.name);
  const reset = useResetCircuit(install.name);
  const issues = save.error instanceof ApiFailure ? issuesOf(save.error.details) : [];
  const typed = { failureThreshold: threshold, openSeconds };
  const issueAt = (field: keyof typeof typed) =>
    asSetting(typed[field]) === undefined
      ? 'Enter a whole number, or leave it empty.'
      : issues.find((i) => i.path.endsWith(field))?.message;
  const inForce = {
    failureThreshold: circuit.settings?.failureThreshold ?? circuit.defaults.failureThreshold,
    openSeconds: circuit.settings?.openSeconds ?? circuit.defaults.openSeconds,
  };
  return (
    <section aria-labelledby="circuit-title" className="panel">
      <h2 id="circuit-title">Circuit</h2>
      <p>
        <span className={circuit.state === 'closed' ? 'tag' : 'tag tag-alert'}>
          {CIRCUIT_TEXT[circuit.state]}
        </span>{' '}
        {circuit.failures} outages in a row
        {circuit.since ? (
          <>
            , since <When at={circuit.since} />
          </>
        ) : null}
        . It opens after {inForce.failureThreshold} outages in a row and stays open {inForce.openSeconds} s
        {circuit.settings ? ' (this install’s settings).' : ' (the deployment’s settings).'}
      </p>
      {canWrite ? (
        <>
          <form
            className="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              const failureThreshold = asSetting(threshold);
              const open = asSetting(openSeconds);
              if (failureThreshold === undefined || open === undefined) return;
              save.mutate({ failureThreshold, openSeconds: open });
            }}
          >
            <label htmlFor={`${id}-threshold`}>Outages before it opens (1–100)</label>
            <input
              id={`${id}-threshold`}
              inputMode="numeric"
              value={threshold}
              placeholder={String(circuit.defaults.failureThreshold)}
              aria-describedby={issueAt('failureThreshold') ? `${id}-threshold-issue` : undefined}
              onChange={(event) => setThreshold(event.target.value)}
            />
            {issueAt('failureThreshold') ? (
              <span className="field-issue" id={`${id}-threshold-issue`}>
                {issueAt('failureThreshold')}
              </span>
            ) : null}
            <label htmlFor={`${id}-open`}>Seconds open (5–3600)</label>
            <input
              id={`${id}-open`}
              inputMode="numeric"
              value={openSeconds}
              placeholder={String(circuit.defaults.openSeconds)}
              aria-describedby={issueAt('openSeconds') ? `${id}-open-issue` : undefined}
              onChange={(event) => setOpenSeconds(event.target.value)}
            />
            {issueAt('openSeconds') ? (
              <span className="field-issue" id={`${id}-open-issue`}>
                {issueAt('openSeconds')}
              </span>
            ) : null}
            <button type="submit" disabled={save.isPending}>
              Save circuit settings
            </button>
          </form>
          <p className="hint">Leave a field empty to use the deployment’s setting.</p>
          <button
            type="button"
            className="secondary"
            disabled={reset.isPending}
            onClick={() => reset.mutate(undefined)}
          >
            Reset circuit
          </button>
        </>
      ) : null}
      {save.isError ? <Failure error={save.error} title="The circuit settings were not saved." /> : null}
      {reset.isError ? <Failure error={reset.error} title="The circuit was not reset." /> : null}
    </section>
  );
}
