// The outbound webhook routes' schemas: what they take (validated as sent) and what they answer.
import { Type } from 'typebox';
import { pageQuery } from '../http/paging.ts';
import { dateTime, nullable } from '../http/responses.ts';
import { timeRangeQuery } from '../http/time-range.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from './deliveries/deliveries-store.ts';
import { MAX_URL_LENGTH } from './endpoints/url-rules.ts';
import { EVENT_TYPE_NAMES } from './fan-out/event-types.ts';

const closed = { additionalProperties: false } as const;
const Uuid = Type.String({ format: 'uuid' });
export const MAX_DESCRIPTION_LENGTH = 500;

const EventType = Type.Unsafe<string>({ type: 'string', enum: [...EVENT_TYPE_NAMES] });

export const IdParams = Type.Object({ id: Uuid }, closed);

export const EndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        'Where events are POSTed: https, no user name or password, no fragment, no localhost and no IP address of a private, loopback, link-local, NAT64 or 6to4 range (WEBHOOK_ALLOW_PRIVATE_NETWORKS admits http and private addresses). A name resolving to such an address is refused at each delivery, not here.',
    }),
    description: Type.Optional(nullable(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }))),
    events: Type.Array(EventType, {
      minItems: 1,
      maxItems: EVENT_TYPE_NAMES.length,
      uniqueItems: true,
      description: 'The event types sent to this endpoint (GET /webhook-events lists them), each once',
    }),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'Default true. A disabled endpoint is sent nothing; its deliveries wait.',
      }),
    ),
  },
  {
    ...closed,
    title: 'WebhookEndpointInput',
    examples: [
      {
        url: 'https://hooks.example.com/platform',
        description: 'CRM sync',
        events: ['decision.created', 'run.failed'],
        enabled: true,
      },
    ],
  },
);

const endpointFields = {
  id: Uuid,
  url: Type.String(),
  description: nullable(Type.String()),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  lastDeliveryAt: nullable(dateTime(), { description: 'When a delivery last reached it (a 2xx answer)' }),
  failing: Type.Boolean({
    description: 'A delivery to it was exhausted, and none has been delivered since',
  }),
  createdAt: dateTime(),
  updatedAt: dateTime(),
};

export const Endpoint = Type.Object(endpointFields, { ...closed, title: 'WebhookEndpoint' });
export const EndpointList = Type.Object({ items: Type.Array(Endpoint) }, closed);

const Secret = Type.String({
  description: 'The signing secret (whsec_…): shown this once, never again. Sign with its text as it is.',
});

export const CreatedEndpoint = Type.Object(
  { ...endpointFields, secret: Secret },
  { ...closed, title: 'CreatedWebhookEndpoint' },
);

export const RotatedSecret = Type.Object(
  {
    secret: Secret,
    previousSecretUntil: dateTime('Until then deliveries carry a second v1, signed with the previous secret'),
  },
  { ...closed, title: 'RotatedWebhookSecret' },
);

export const TestResult = Type.Object(
  {
    delivered: Type.Boolean({ description: 'The endpoint answered 2xx within 10 seconds' }),
    responseCode: nullable(Type.Integer(), { description: 'Its HTTP status; null when none came' }),
    latencyMs: Type.Integer({ minimum: 0 }),
    error: Type.Optional(Type.String({ description: 'What went wrong, when it was not delivered' })),
  },
  { ...closed, title: 'WebhookTestResult' },
);

const Status = Type.Unsafe<DeliveryStatus>({ type: 'string', enum: [...DELIVERY_STATUSES] });

export const Delivery = Type.Object(
  {
    id: Uuid,
    endpointId: Uuid,
    eventId: Type.String({ format: 'uuid', description: 'The body’s id: the same for every endpoint' }),
    event: Type.String({ description: 'The event type' }),
    workflowRunId: nullable(Type.String()),
    status: Status,
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: nullable(dateTime('When it is due next; null once delivered or exhausted')),
    lastAttemptAt: nullable(dateTime()),
    responseCode: nullable(Type.Integer()),
    latencyMs: nullable(Type.Integer()),
    error: nullable(Type.String()),
    deliveredAt: nullable(dateTime()),
    createdAt: dateTime(),
    occurredAt: dateTime('When the event happened'),
  },
  { ...closed, title: 'WebhookDelivery' },
);

export const DeliveryList = Type.Object({ items: Type.Array(Delivery) }, closed);

export const DeliveryAttempt = Type.Object(
  {
    id: Uuid,
    deliveryId: Uuid,
    number: Type.Integer({ minimum: 1, description: '1 for the first attempt, then 2, 3, …' }),
    attemptedAt: dateTime('When it was sent'),
    durationMs: Type.Integer({
      minimum: 0,
      description: 'From sending to the answer read, or to the failure',
    }),
    responseCode: nullable(Type.Integer(), { description: 'The HTTP status; null when no answer came' }),
    error: nullable(Type.String(), {
      description:
        'What went wrong, in words that never repeat the URL (the endpoint answered 500, no answer within 10 s, connection refused, TLS failed (…), refused: the host resolves to a loopback address); null when delivered',
    }),
    responseBody: nullable(Type.String(), {
      description:
        'The first KiB of the answer’s body as text, control and reordering characters as U+FFFD; null when none came or it was empty. Reads "[redacted]" without runs:context: a receiver may repeat the run’s data.',
    }),
  },
  { ...closed, title: 'WebhookDeliveryAttempt' },
);

export const AttemptsQuery = Type.Object(pageQuery(), closed);

export const DeliveriesQuery = Type.Object(
  {
    endpointId: Type.Optional(Uuid),
    status: Type.Optional(
      Type.Array(Status, {
        maxItems: DELIVERY_STATUSES.length,
        description: 'Repeatable (status=failed&status=exhausted): deliveries of any of these statuses',
      }),
    ),
    event: Type.Optional(EventType),
    workflowRunId: Type.Optional(Uuid),
    time: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'An ISO 8601 interval <start>/<end> on createdAt, start inclusive, end exclusive; either side open (.. or empty): 2026-11-01T00:00:00Z/2026-11-02T00:00:00Z, 2026-11-01T00:00:00Z/.. Not with from or to.',
      }),
    ),
    ...timeRangeQuery('createdAt'),
    ...pageQuery(),
  },
  closed,
);

export const EventBodySchema = Type.Object(
  {
    id: Uuid,
    type: Type.String(),
    occurredAt: dateTime(),
    tenantId: Uuid,
    resource: Type.Object({ type: Type.String(), id: Type.String() }, closed),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { ...closed, title: 'WebhookEventBody' },
);

export const EventCatalogue = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          type: Type.String(),
          description: Type.String(),
          actions: Type.Array(Type.String(), { description: 'The audit actions that raise it' }),
          resourceType: Type.String(),
          sample: EventBodySchema,
        },
        closed,
      ),
    ),
  },
  closed,
);
