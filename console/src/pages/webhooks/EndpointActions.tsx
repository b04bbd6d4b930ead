// An endpoint's actions that answer something to show: a test ping's outcome, a rotated secret (once),
// and deletion after a confirmation naming what goes with it.
import { useState } from 'react';
import { Failure } from '../../components/Failure.tsx';
import { useDeleteEndpoint, useRotateSecret, useTestEndpoint } from './queries.ts';
import { SecretOnce } from './SecretOnce.tsx';
import { pingSummary } from './webhook-rules.ts';

export function TestPing({ id }: { id: string }) {
  const ping = useTestEndpoint(id);
  return (
    <section aria-labelledby="ping-title" className="panel">
      <h2 id="ping-title">Test ping</h2>
      <p>
        Sends one signed <code>ping</code> event now (a disabled endpoint too). It is not a delivery: nothing
        is retried.
      </p>
      <button type="button" disabled={ping.isPending} onClick={() => ping.mutate(undefined)}>
        Send test ping
      </button>
      <div aria-live="polite">
        {ping.isPending ? <p className="loading">Sending…</p> : null}
        {ping.data ? (
          <dl className="webhook-facts">
            <dt>Outcome</dt>
            <dd className={ping.data.delivered ? 'webhook-status-delivered' : 'webhook-status-failed'}>
              {pingSummary(ping.data)}
            </dd>
            <dt>Response code</dt>
            <dd>{ping.data.responseCode ?? 'None'}</dd>
            <dt>Latency</dt>
            <dd>{ping.data.latencyMs} ms</dd>
            {ping.data.error ? (
              <>
                <dt>Error</dt>
                <dd>{ping.data.error}</dd>
              </>
            ) : null}
          </dl>
        ) : null}
      </div>
      {ping.isError ? <Failure error={ping.error} title="The ping was not sent." /> : null}
    </section>
  );
}

export function RotateSecret({ id }: { id: string }) {
  const rotate = useRotateSecret(id);
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      {rotate.data ? (
        <SecretOnce
          title="New signing secret"
          secret={rotate.data.secret}
          note={`The previous secret keeps signing until ${new Date(rotate.data.previousSecretUntil).toLocaleString()}: deliveries carry both signatures until then.`}
        />
      ) : null}
      <section aria-labelledby="rotate-title" className="panel">
        <h2 id="rotate-title">Signing secret</h2>
        <p>
          The secret was shown once, when it was made. Rotating makes a new one; the previous one keeps
          signing for 24 hours.
        </p>
        {confirming ? (
          <div className="webhook-confirm">
            <p>Rotate the signing secret now?</p>
            <button
              type="button"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate(undefined, { onSettled: () => setConfirming(false) })}
            >
              Rotate now
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep the current secret
            </button>
          </div>
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Rotate secret
          </button>
        )}
        {rotate.isError ? <Failure error={rotate.error} title="The secret was not rotated." /> : null}
      </section>
    </>
  );
}

export function DeleteEndpoint({ id, url, onDeleted }: { id: string; url: string; onDeleted: () => void }) {
  const remove = useDeleteEndpoint(id);
  const [confirming, setConfirming] = useState(false);
  return (
    <section aria-labelledby="delete-title" className="panel">
      <h2 id="delete-title">Delete</h2>
      {confirming ? (
        <div className="webhook-confirm">
          <p>
            Delete the endpoint <code>{url}</code>? Its deliveries and their attempts go with it; this cannot
            be undone.
          </p>
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate(undefined, { onSuccess: onDeleted })}
          >
            Delete for good
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete endpoint
        </button>
      )}
      {remove.isError ? <Failure error={remove.error} title="The endpoint was not deleted." /> : null}
    </section>
  );
}
