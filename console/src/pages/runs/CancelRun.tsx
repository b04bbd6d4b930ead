// Cancel a run, after a confirmation in the page (POST /workflow-runs/:id/cancel). An ended run offers no
// button but says why; the platform's refusal (it ended meanwhile: 409) shows as its sentence.
import { useState } from 'react';
import { Failure } from '../../components/Failure.tsx';
import { useCancelRun } from './queries.ts';
import { cancelRefusal } from './run-rules.ts';

export function CancelRun({ id, status }: { id: string; status: string }) {
  const [confirming, setConfirming] = useState(false);
  const cancel = useCancelRun();
  const refusal = cancelRefusal(status);
  if (refusal) {
    return (
      <>
        {cancel.isSuccess ? <output className="done">The run was cancelled.</output> : null}
        <p className="meta">{refusal}</p>
      </>
    );
  }
  return (
    <div className="run-actions">
      {cancel.isError ? <Failure error={cancel.error} title="The run was not cancelled." /> : null}
      {confirming ? (
        <fieldset className="confirm">
          <legend>
            Cancel this run? Its open steps end as cancelled, a vendor session it waits on fails, and nothing
            after them runs.
          </legend>
          <button
            type="button"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate(id, { onSettled: () => setConfirming(false) })}
          >
            Yes, cancel the run
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </fieldset>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)}>
          Cancel run…
        </button>
      )}
    </div>
  );
}
