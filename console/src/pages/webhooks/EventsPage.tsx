// The event catalogue (GET /webhook-events): each event type an endpoint may subscribe to, what raises
// it, and a sample body, as the receiver gets it (JSON, shown as text). The test ping comes last.
import { Failure } from '../../components/Failure.tsx';
import { JsonBlock } from '../../components/JsonBlock.tsx';
import { Loading } from '../../components/Loading.tsx';
import { useEventCatalogue } from './queries.ts';
import { WebhooksNav } from './WebhooksNav.tsx';
import { sampleText } from './webhook-rules.ts';

export default function EventsPage() {
  const catalogue = useEventCatalogue();
  return (
    <>
      <h1>Webhook events</h1>
      <WebhooksNav />
      <p>
        Every delivery is a JSON body <code>{'{ id, type, occurredAt, tenantId, resource, data }'}</code>, the
        same bytes on every attempt; deduplicate on its <code>id</code>.
      </p>
      {catalogue.isPending ? <Loading what="the event catalogue" /> : null}
      {catalogue.isError ? <Failure error={catalogue.error} /> : null}
      {catalogue.data?.items.map((event) => {
        const titleId = `event-${event.type.replace(/[^a-z0-9]+/gi, '-')}`;
        return (
          <section key={event.type} aria-labelledby={titleId} className="panel webhook-event">
            <h2 id={titleId}>
              <code>{event.type}</code>
            </h2>
            <p>{event.description}</p>
            <dl className="webhook-facts">
              <dt>Resource</dt>
              <dd>
                <code>{event.resourceType}</code>
              </dd>
              <dt>Raised by</dt>
              <dd>{event.actions.length > 0 ? event.actions.join(', ') : 'The test ping only'}</dd>
            </dl>
            <figure className="webhook-sample">
              <figcaption>Sample body</figcaption>
              <JsonBlock className="webhook-json" text={sampleText(event.sample)} />
            </figure>
          </section>
        );
      })}
    </>
  );
}
