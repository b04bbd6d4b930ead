// Vendor sessions: an asynchronous action's pending work, completed by the
// vendor's webhook. The calls and callbacks issues write and complete them; installs read them now
// (DELETE answers install_in_use while runs wait on an install's sessions). Sessions outlive their
// install, so install_id is not a foreign key.
import { index, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';

export type CallbackStatus = 'pending' | 'completed' | 'failed' | 'timed_out';

export const appCallbacks = pgTable(
  'app_callbacks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id').notNull(),
    installName: text('install_name').notNull(),
    /** The version whose module handles its webhook. */
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
  },
  (t) => [
    unique('app_callbacks_install_external_id').on(t.installId, t.externalId),
    index('app_callbacks_install_status_idx').on(t.installId, t.status),
    index('app_callbacks_tenant_created_idx').on(t.tenantId, t.createdAt),
  ],
);
