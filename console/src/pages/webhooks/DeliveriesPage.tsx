// Webhook deliveries, newest first: filtered by endpoint, status, event and creation time, paged, all in
// the URL; a delivery's attempts open beneath its row (`delivery=<id>` in the URL, so that is a link too).
// The list refreshes itself while a delivery in it is still to be tried.
import { Fragment } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { withParams } from '../../components/page-params.ts';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { DeliveryAttempts } from './DeliveryAttempts.tsx';
import { DeliveryFilters } from './DeliveryFilters.tsx';
import { useDeliveries, useEndpoints } from './queries.ts';
import { WebhooksNav } from './WebhooksNav.tsx';
import { deliveryFilterOf } from './webhook-rules.ts';

type Delivery = NonNullable<ReturnType<typeof useDeliveries>['data']>['items'][number];

const COLUMNS = ['Created', 'Event', 'Endpoint', 'Status', 'Attempts', 'Last answer', 'Next attempt', ''];

export default function DeliveriesPage() {
  const [params] = useSearchParams();
  const filter = deliveryFilterOf(params);
  const page = usePageParams({ defaultLimit: 20, maxLimit: 100 });
  const deliveries = useDeliveries(filter, { limit: page.limit, offset: page.offset });
  const items = deliveries.data?.items ?? [];
  return (
    <>
      <h1>Webhook deliveries</h1>
      <WebhooksNav />
      <DeliveryFilters key={JSON.stringify(filter)} filter={filter} />
      <section aria-labelledby="deliveries-title" className="panel">
        <h2 id="deliveries-title">Deliveries</h2>
        {deliveries.isPending ? <Loading what="deliveries" /> : null}
        {deliveries.isError ? <Failure error={deliveries.error} /> : null}
        {deliveries.data && items.length === 0 ? <p className="empty">No deliveries match.</p> : null}
        {items.length > 0 ? <DeliveryTable items={items} open={params.get('delivery')} /> : null}
        {deliveries.data ? (
          <Paged
            page={page}
            shown={items.length}
            total={deliveries.data.total}
            totalIsEstimate={deliveries.data.totalIsEstimate}
            noun="deliveries"
          />
        ) : null}
      </section>
    </>
  );
}

function DeliveryTable({ items, open }: { items: Delivery[]; open: string | null }) {
  const [params] = useSearchParams();
  const endpoints = useEndpoints();
  const urlOf = (id: string) => endpoints.data?.items.find((e) => e.id === id)?.url ?? id;
  return (
    <table>
      <caption>Newest first</caption>
      <thead>
        <tr>
          {COLUMNS.map((name) => (
            <th key={name} scope="col">
              {name || <span className="visually-hidden">Attempt log</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {items.map((d) => {
          const expanded = d.id === open;
          const detailId = `delivery-${d.id}`;
          return (
            <Fragment key={d.id}>
              <tr>
                <td>
                  <When at={d.createdAt} />
                </td>
                <td>
                  <code>{d.event}</code>
                </td>
                <td className="webhook-url">
                  <Link to={`/webhooks/endpoints/${encodeURIComponent(d.endpointId)}`}>
                    {urlOf(d.endpointId)}
                  </Link>
                </td>
                <td>
                  <span className={`webhook-status-${d.status}`}>{d.status}</span>
                </td>
                <td className="numeric">{d.attempts}</td>
                <td>{lastAnswer(d)}</td>
                <td>{d.nextAttemptAt ? <When at={d.nextAttemptAt} /> : '—'}</td>
                <td>
                  <Link
                    to={{ search: `?${withParams(params, { delivery: expanded ? null : d.id })}` }}
                    aria-expanded={expanded}
                    aria-controls={expanded ? detailId : undefined}
                    replace
                  >
                    {expanded ? 'Hide attempts' : 'Show attempts'}
                    <span className="visually-hidden">
                      {' '}
                      of the {d.event} delivery created {new Date(d.createdAt).toLocaleString()}
                    </span>
                  </Link>
                </td>
              </tr>
              {expanded ? (
                <tr id={detailId} className="webhook-detail">
                  <td colSpan={COLUMNS.length}>
                    <DeliveryAttempts delivery={d} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

/** The latest attempt's answer: its code and latency, or its error. */
function lastAnswer(d: Delivery): string {
  if (d.lastAttemptAt === null) return 'Not tried yet';
  const code = d.responseCode === null ? 'no answer' : String(d.responseCode);
  const latency = d.latencyMs === null ? '' : ` in ${d.latencyMs} ms`;
  return d.error ? `${d.error}${latency}` : `${code}${latency}`;
}
