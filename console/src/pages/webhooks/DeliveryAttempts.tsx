// One delivery's attempts (GET /webhook-deliveries/{id}/attempts, newest first): when, how long, the
// answer's status, the error and the first KiB of the answer ("[redacted]" without runs:context), as
// text; and, for a principal who may, retry (due now). Read again when the delivery's latest attempt
// changes (the deliveries list follows it).
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { JsonBlock } from '../../components/JsonBlock.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { useAttempts, useRetryDelivery } from './queries.ts';

type Attempt = NonNullable<ReturnType<typeof useAttempts>['data']>['items'][number];

export interface DeliveryLike {
  id: string;
  event: string;
  eventId: string;
  status: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
}

export function DeliveryAttempts({ delivery }: { delivery: DeliveryLike }) {
  const attempts = useAttempts(delivery.id, delivery.lastAttemptAt);
  const canRetry = useCan('webhooks:write');
  const retry = useRetryDelivery();
  const titleId = `attempts-${delivery.id}`;
  return (
    <section aria-labelledby={titleId} className="webhook-attempts">
      <h3 id={titleId}>
        Attempts of the <code>{delivery.event}</code> delivery
      </h3>
      <p className="meta">
        Event id <code>{delivery.eventId}</code>
        {delivery.nextAttemptAt ? (
          <>
            {' '}
            · next attempt <When at={delivery.nextAttemptAt} />
          </>
        ) : null}
      </p>
      {attempts.isPending ? <Loading what="attempts" /> : null}
      {attempts.isError ? <Failure error={attempts.error} /> : null}
      {attempts.data ? (
        <Table<Attempt>
          caption={`${attempts.data.total} attempt${attempts.data.total === 1 ? '' : 's'}, newest first`}
          rows={attempts.data.items}
          rowKey={(a) => a.id}
          empty="Not tried yet."
          columns={[
            { header: 'Attempt', cell: (a) => a.number, className: 'numeric' },
            { header: 'At', cell: (a) => <When at={a.attemptedAt} /> },
            { header: 'Duration', cell: (a) => `${a.durationMs} ms`, className: 'numeric' },
            { header: 'Response code', cell: (a) => a.responseCode ?? 'None' },
            { header: 'Error', cell: (a) => a.error ?? '' },
            {
              header: 'Response body',
              cell: (a) =>
                a.responseBody === null ? (
                  <span className="meta">None</span>
                ) : a.responseBody === '[redacted]' ? (
                  <span className="webhook-redacted">[redacted]</span>
                ) : (
                  <JsonBlock className="webhook-json" text={a.responseBody} />
                ),
            },
          ]}
        />
      ) : null}
      {canRetry && delivery.status !== 'delivered' ? (
        <button type="button" disabled={retry.isPending} onClick={() => retry.mutate(delivery.id)}>
          Retry now<span className="visually-hidden">: the {delivery.event} delivery</span>
        </button>
      ) : null}
      <div aria-live="polite">
        {retry.isSuccess && retry.variables === delivery.id ? (
          <p>Retry asked: the delivery is due now.</p>
        ) : null}
      </div>
      {retry.isError ? <Failure error={retry.error} title="The delivery was not retried." /> : null}
    </section>
  );
}
