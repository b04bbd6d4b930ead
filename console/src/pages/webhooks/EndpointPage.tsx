// One endpoint: what it is and how it fares, a link to its deliveries, and, for a principal who may
// write it, edit, enable or disable, send a test ping, rotate its secret (shown once) and delete.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { When } from '../../components/When.tsx';
import { DeleteEndpoint, RotateSecret, TestPing } from './EndpointActions.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { EventList } from './EventList.tsx';
import { useEndpoint, useEventCatalogue, useReplaceEndpoint } from './queries.ts';
import { WebhooksNav } from './WebhooksNav.tsx';
import type { EndpointBody } from './webhook-rules.ts';

type Endpoint = NonNullable<ReturnType<typeof useEndpoint>['data']>;

export default function EndpointPage() {
  const { id = '' } = useParams();
  const endpoint = useEndpoint(id);
  const canWrite = useCan('webhooks:write');
  const navigate = useNavigate();
  return (
    <>
      <h1>Webhook endpoint</h1>
      <WebhooksNav />
      {endpoint.isPending ? <Loading what="the endpoint" /> : null}
      {endpoint.isError ? <Failure error={endpoint.error} /> : null}
      {endpoint.data ? (
        <>
          <Details endpoint={endpoint.data} />
          {canWrite ? (
            <>
              <Settings endpoint={endpoint.data} />
              <TestPing id={id} />
              <RotateSecret id={id} />
              <DeleteEndpoint id={id} url={endpoint.data.url} onDeleted={() => navigate('/webhooks')} />
            </>
          ) : null}
        </>
      ) : null}
    </>
  );
}

function Details({ endpoint }: { endpoint: Endpoint }) {
  return (
    <section aria-labelledby="endpoint-details-title" className="panel">
      <h2 id="endpoint-details-title">Details</h2>
      <dl className="webhook-facts">
        <dt>URL</dt>
        <dd>
          <code>{endpoint.url}</code>
        </dd>
        <dt>Description</dt>
        <dd>{endpoint.description ?? 'None'}</dd>
        <dt>Events</dt>
        <dd>
          <EventList events={endpoint.events} />
        </dd>
        <dt>State</dt>
        <dd>{endpoint.enabled ? 'Enabled' : 'Disabled: it is sent nothing, its deliveries wait'}</dd>
        <dt>Health</dt>
        <dd>
          {endpoint.failing ? (
            <span className="webhook-status-failed">
              Failing: a delivery was exhausted, none delivered since
            </span>
          ) : (
            'Healthy'
          )}
        </dd>
        <dt>Last delivery</dt>
        <dd>{endpoint.lastDeliveryAt ? <When at={endpoint.lastDeliveryAt} /> : 'Never'}</dd>
        <dt>Created</dt>
        <dd>
          <When at={endpoint.createdAt} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <When at={endpoint.updatedAt} />
        </dd>
      </dl>
      <Link to={`/webhooks/deliveries?endpointId=${encodeURIComponent(endpoint.id)}`}>Its deliveries</Link>
    </section>
  );
}

const bodyOf = (e: Endpoint, enabled = e.enabled): EndpointBody => ({
  url: e.url,
  description: e.description,
  events: e.events as EndpointBody['events'],
  enabled,
});

/** Enable or disable at once; edit through the form (PUT takes every field: the rest as they are). */
function Settings({ endpoint }: { endpoint: Endpoint }) {
  const replace = useReplaceEndpoint(endpoint.id);
  const catalogue = useEventCatalogue();
  const [editing, setEditing] = useState(false);
  const types = (catalogue.data?.items ?? []).filter((e) => e.type !== 'ping');
  return (
    <section aria-labelledby="endpoint-settings-title" className="panel">
      <h2 id="endpoint-settings-title">Settings</h2>
      {editing ? null : (
        <div className="webhook-actions">
          <button
            type="button"
            onClick={() => {
              replace.reset();
              setEditing(true);
            }}
          >
            Edit endpoint
          </button>
          <button
            type="button"
            className="secondary"
            disabled={replace.isPending}
            onClick={() => replace.mutate(bodyOf(endpoint, !endpoint.enabled))}
          >
            {endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
          </button>
        </div>
      )}
      {!editing && replace.isError ? <Failure error={replace.error} title="Not saved." /> : null}
      {editing && catalogue.isError ? <Failure error={catalogue.error} /> : null}
      {editing && catalogue.data ? (
        <EndpointForm
          initial={{
            url: endpoint.url,
            description: endpoint.description ?? '',
            events: endpoint.events,
            enabled: endpoint.enabled,
          }}
          catalogue={types}
          submitLabel="Save endpoint"
          pending={replace.isPending}
          error={replace.error}
          onSubmit={(body) => replace.mutate(body, { onSuccess: () => setEditing(false) })}
          onCancel={() => setEditing(false)}
        />
      ) : null}
    </section>
  );
}
