import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { bytea, timestamptz, xid8 } from '../db/columns.ts';

/**
 * A tenant's outbound webhook endpoint (docs/outbound-webhooks.md). The signing secret is sealed with
 * SECRET_STORE_KEY bound to tenant and endpoint; after a rotation the previous one signs too until
 * previous_secret_until. failing_since: set when a delivery is exhausted, cleared by the next delivered one.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    events: text('events').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    secretSealed: bytea('secret_sealed').notNull(),
    previousSecretSealed: bytea('previous_secret_sealed'),
    previousSecretUntil: timestamptz('previous_secret_until'),
    failingSince: timestamptz('failing_since'),
    lastDeliveryAt: timestamptz('last_delivery_at'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_tenant_idx').on(t.tenantId, t.createdAt)],
);

/**
 * One event for one endpoint. event_id is the event's id, the same for every endpoint it reaches; the
 * body is built from the audit row at each attempt (the same bytes every time). status: pending (never
 * tried), delivered, failed (tried, retried at next_attempt_at), exhausted (five failures). A sender
 * claims a due row by moving next_attempt_at past its attempt (a lease): a sender that dies leaves the
 * row due again a minute later.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    auditEventId: bigint('audit_event_id', { mode: 'number' }).notNull(),
    eventType: text('event_type').notNull(),
    occurredAt: timestamptz('occurred_at').notNull(),
    workflowRunId: text('workflow_run_id'),
    status: text('status').notNull().default('pending'),
    attempts: smallint('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    lastAttemptAt: timestamptz('last_attempt_at'),
    responseCode: integer('response_code'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_idx').on(t.endpointId, t.auditEventId),
    // The claim reads each endpoint's due deliveries, oldest due first (sending/claim-store.ts).
    index('webhook_deliveries_endpoint_due_idx')
      .on(t.endpointId, t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'failed')`),
    index('webhook_deliveries_tenant_idx').on(t.tenantId, t.createdAt),
    index('webhook_deliveries_run_idx')
      .on(t.tenantId, t.workflowRunId)
      .where(sql`${t.workflowRunId} is not null`),
  ],
);

/**
 * One attempt of a delivery: when it was sent, how long it took, what came back (docs/outbound-webhooks.md
 * "Attempts"). Written by the sender in the transaction that writes the attempt's outcome on the delivery,
 * so an attempt is recorded exactly when the delivery counts it. number: 1, 2, … in the order written.
 * response_body: the first KiB of the receiver's answer, made storable and safe to show. Goes with its
 * delivery (the foreign key cascades; the index leads with delivery_id so the cascade finds its rows).
 */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    number: smallint('number').notNull(),
    attemptedAt: timestamptz('attempted_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseCode: integer('response_code'),
    error: text('error'),
    responseBody: text('response_body'),
  },
  (t) => [uniqueIndex('webhook_delivery_attempts_delivery_number_idx').on(t.deliveryId, t.number)],
);

/**
 * How far the trail has been turned into deliveries: every audit row of a transaction below xact_id
 * has been read. One row (id 1).
 */
export const webhookTrailCursor = pgTable('webhook_trail_cursor', {
  id: smallint('id').primaryKey(),
  xactId: xid8('xact_id').notNull(),
  passedAt: timestamptz('passed_at').notNull().defaultNow(),
});
