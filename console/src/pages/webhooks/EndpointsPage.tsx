// Webhooks: the tenant's endpoints (at most 20, so one unpaged table) with their health, and, for a
// principal who may write them, a form to add one; its signing secret is shown once, after the create.
import { useState } from 'react';
import { Link } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { EventList } from './EventList.tsx';
import { useCreateEndpoint, useEndpoints, useEventCatalogue } from './queries.ts';
import { SecretOnce } from './SecretOnce.tsx';
import { WebhooksNav } from './WebhooksNav.tsx';

type Endpoint = NonNullable<ReturnType<typeof useEndpoints>['data']>['items'][number];

const EMPTY_FORM = { url: '', description: '', events: [], enabled: true };

export default function EndpointsPage() {
  const endpoints = useEndpoints();
  const canWrite = useCan('webhooks:write');
  return (
    <>
      <h1>Webhooks</h1>
      <WebhooksNav />
      <section aria-labelledby="endpoints-title" className="panel">
        <h2 id="endpoints-title">Endpoints</h2>
        {endpoints.isPending ? <Loading what="endpoints" /> : null}
        {endpoints.isError ? <Failure error={endpoints.error} /> : null}
        {endpoints.data ? (
          <Table<Endpoint>
            caption="Where the tenant's events are sent, oldest first"
            rows={endpoints.data.items}
            rowKey={(e) => e.id}
            empty="No endpoints yet."
            columns={[
              {
                header: 'URL',
                cell: (e) => <Link to={`/webhooks/endpoints/${encodeURIComponent(e.id)}`}>{e.url}</Link>,
              },
              { header: 'Description', cell: (e) => e.description ?? '' },
              { header: 'Events', cell: (e) => <EventList events={e.events} /> },
              { header: 'State', cell: (e) => (e.enabled ? 'Enabled' : 'Disabled') },
              {
                header: 'Health',
                cell: (e) => (e.failing ? <span className="webhook-status-failed">Failing</span> : 'Healthy'),
              },
              {
                header: 'Last delivery',
                cell: (e) => (e.lastDeliveryAt ? <When at={e.lastDeliveryAt} /> : 'Never'),
              },
            ]}
          />
        ) : null}
      </section>
      {canWrite ? <AddEndpoint /> : null}
    </>
  );
}

/** The add form; once created, the endpoint's secret (this once) and a link to its page. */
function AddEndpoint() {
  const catalogue = useEventCatalogue();
  const create = useCreateEndpoint();
  // A new form after each create: the fields start empty again.
  const [round, setRound] = useState(0);
  const created = create.data;
  const types = (catalogue.data?.items ?? []).filter((e) => e.type !== 'ping');
  return (
    <>
      {created ? (
        <SecretOnce
          title={`Endpoint created: ${created.url}`}
          secret={created.secret}
          note="Its deliveries are signed with this secret."
        />
      ) : null}
      {created ? (
        <p>
          <Link to={`/webhooks/endpoints/${encodeURIComponent(created.id)}`}>Open the new endpoint</Link>
        </p>
      ) : null}
      <section aria-labelledby="add-endpoint-title" className="panel">
        <h2 id="add-endpoint-title">Add an endpoint</h2>
        {catalogue.isPending ? <Loading what="the event catalogue" /> : null}
        {catalogue.isError ? <Failure error={catalogue.error} /> : null}
        {catalogue.data ? (
          <EndpointForm
            key={round}
            initial={EMPTY_FORM}
            catalogue={types}
            submitLabel="Add endpoint"
            pending={create.isPending}
            error={create.error}
            onSubmit={(body) => create.mutate(body, { onSuccess: () => setRound((r) => r + 1) })}
          />
        ) : null}
      </section>
    </>
  );
}
