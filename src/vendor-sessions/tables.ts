// Vendor sessions (docs/callbacks.md): an asynchronous action's pending work, completed by the vendor's
// webhook, and the webhook events received for them. A run's call_app step opens a session in the
// transaction that records its pending invocation; a webhook settles it, first completion wins. Sessions
// and events outlive their install, so install_id is not a foreign key; retention deletes them.
import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';

export type CallbackStatus = 'pending' | 'completed' | 'failed' | 'timed_out';

export const appCallbacks = pgTable(
  'app_callbacks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id').notNull(),
    installName: text('install_name').notNull(),
    /** The version whose module handles its webhook (the one that started it, whatever upgrades since). */
    versionId: uuid('version_id').notNull(),
    action: text('action').notNull(),
    externalId: text('external_id').notNull(),
    workflowRunId: uuid('workflow_run_id'),
    stepId: text('step_id'),
    status: text('status').$type<CallbackStatus>().notNull().default('pending'),
    output: jsonb('output'),
    error: text('error'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    completedAt: timestamptz('completed_at'),
    /** When the run stops waiting: the action's callbackTimeoutSeconds, or the shorter wait asked for. */
    waitUntil: timestamptz('wait_until'),
    /**
     * When the run's continuation took the settled session (or found no run waiting): null while a
     * settled session still has a run to move on (the resumer looks for these).
     */
    resumedAt: timestamptz('resumed_at'),
  },
  (t) => [
    unique('app_callbacks_install_external_id').on(t.installId, t.externalId),
    index('app_callbacks_install_status_idx').on(t.installId, t.status),
    index('app_callbacks_tenant_created_idx').on(t.tenantId, t.createdAt),
    // One session per run step: a step's attempt repeated after a crash finds its own session.
    uniqueIndex('app_callbacks_run_step_idx')
      .on(t.workflowRunId, t.stepId)
      .where(sql`${t.workflowRunId} is not null`),
    // The resumer's two questions: waits that are over, and settled sessions whose run has not moved on.
    index('app_callbacks_wait_until_idx')
      .on(t.waitUntil)
      .where(sql`${t.status} = 'pending'`),
    // The retention sweep's orphans: a tenant's sessions still pending, oldest first, without reading
    // through the settled ones a long retention keeps.
    index('app_callbacks_tenant_pending_idx')
      .on(t.tenantId, t.createdAt)
      .where(sql`${t.status} = 'pending'`),
    index('app_callbacks_unresumed_idx')
      .on(t.id)
      .where(sql`${t.status} <> 'pending' and ${t.resumedAt} is null and ${t.workflowRunId} is not null`),
  ],
);

/** What a received event did: recorded on a pending session, settled it, or arrived after it settled. */
export type WebhookEventOutcome = 'accepted' | 'completed' | 'failed' | 'stale';

/** Each event id an install received (received once per install), never its payload. */
export const appWebhookEvents = pgTable(
  'app_webhook_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id').notNull(),
    callbackId: uuid('callback_id').notNull(),
    eventId: text('event_id').notNull(),
    /** The status the event reported (completed, failed, pending). */
    status: text('status').$type<'completed' | 'failed' | 'pending'>().notNull(),
    outcome: text('outcome').$type<WebhookEventOutcome>().notNull(),
    receivedAt: timestamptz('received_at').notNull().defaultNow(),
  },
  (t) => [
    unique('app_webhook_events_install_event_id').on(t.installId, t.eventId),
    index('app_webhook_events_tenant_received_idx').on(t.tenantId, t.receivedAt),
    index('app_webhook_events_callback_idx').on(t.callbackId),
  ],
);
