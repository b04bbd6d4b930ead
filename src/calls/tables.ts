// Quotas and metering of app calls (docs/limits-and-metering.md).
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';
// Past the installs' front door: installs reaches this file (through metering.ts), so its index.ts would
// close a circle.
import type { BudgetMetric, BudgetPeriod } from '../installs/tables.ts';

const counter = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);

/**
 * What an install's calls used, per UTC day and action: calls, runner-reported HTTP requests and spend
 * in micros of the currency charged (one row per currency, '' when none). Not tied to the install's row:
 * metering outlives its install. Webhooks and hand-offs are counted apart and never limited.
 */
export const appMetering = pgTable(
  'app_metering',
  {
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id').notNull(),
    /** The install's name and app when last metered, for reports after a rename or removal. */
    installName: text('install_name').notNull(),
    appName: text('app_name').notNull(),
    action: text('action').notNull(),
    /** The UTC day, as YYYY-MM-DD. */
    day: text('day').notNull(),
    currency: text('currency').notNull().default(''),
    calls: counter('calls'),
    httpRequests: counter('http_requests'),
    spendMicros: counter('spend_micros'),
    webhooks: counter('webhooks'),
    handoffs: counter('handoffs'),
  },
  (t) => [
    primaryKey({ name: 'app_metering_pk', columns: [t.installId, t.day, t.action, t.currency] }),
    index('app_metering_tenant_day_idx').on(t.tenantId, t.day),
  ],
);

/** The operator's quotas of a tenant (calls or http_requests per UTC day or month, over all installs). */
export const appTenantQuotas = pgTable(
  'app_tenant_quotas',
  {
    tenantId: uuid('tenant_id').notNull(),
    metric: text('metric').$type<Exclude<BudgetMetric, 'spend'>>().notNull(),
    period: text('period').$type<BudgetPeriod>().notNull(),
    max: bigint('max', { mode: 'number' }).notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'app_tenant_quotas_pk', columns: [t.tenantId, t.metric, t.period] })],
);

/**
 * The first refusal of each limit and period (app.quota.exceeded is appended once per limit and
 * period): limit_key names scope, install (for install budgets), metric and period.
 */
export const appQuotaRefusals = pgTable(
  'app_quota_refusals',
  {
    tenantId: uuid('tenant_id').notNull(),
    limitKey: text('limit_key').notNull(),
    periodStart: timestamptz('period_start').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'app_quota_refusals_pk', columns: [t.tenantId, t.limitKey, t.periodStart] })],
);

export type InvocationStatus = 'success' | 'pending' | 'error' | 'timeout';

/**
 * One attempt that reached an install (its invocation record): from a workflow step, an app rule or a
 * fallback. Outlives its install (install_id is no foreign key); keeps the install's name at the time.
 * Input, output and error text are as the runner returned them (redacted), never secrets or cached values.
 */
export const appInvocations = pgTable(
  'app_invocations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    installId: uuid('install_id').notNull(),
    installName: text('install_name').notNull(),
    /** The name the call used when it was another (a kept alias); null when it was installName. */
    calledAs: text('called_as'),
    versionId: uuid('version_id').notNull(),
    appName: text('app_name').notNull(),
    version: text('version').notNull(),
    action: text('action').notNull(),
    workflowRunId: uuid('workflow_run_id'),
    stepId: text('step_id'),
    /** The rule set and rule of an app rule's call. */
    ruleSetKey: text('rule_set_key'),
    ruleKey: text('rule_key'),
    subjectId: text('subject_id'),
    idempotencyKey: text('idempotency_key'),
    attempt: integer('attempt').notNull(),
    input: jsonb('input'),
    output: jsonb('output'),
    status: text('status').$type<InvocationStatus>().notNull(),
    /** { code, message, reason?, retryable? } of a failed attempt. */
    error: jsonb('error').$type<Record<string, unknown>>(),
    durationMs: integer('duration_ms').notNull(),
    usage: jsonb('usage').$type<Record<string, unknown>>().notNull(),
    /** A fallback's attempt: the install it stood in for, and the name the call gave it. */
    fallbackOf: jsonb('fallback_of').$type<{ installId: string; name: string }>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    // The listing's order, and GET /apps/health's window read from the index alone (install, status and
    // duration ride along: PostgreSQL's INCLUDE, which drizzle cannot declare, as trailing key columns).
    index('app_invocations_tenant_created_idx').on(
      t.tenantId,
      t.createdAt,
      t.installId,
      t.status,
      t.durationMs,
    ),
    index('app_invocations_tenant_name_created_idx').on(t.tenantId, t.installName, t.createdAt),
    // GET /app-invocations?install= finds calls made through an alias too: few calls, a small index.
    index('app_invocations_tenant_called_as_created_idx')
      .on(t.tenantId, t.calledAs, t.createdAt)
      .where(sql`${t.calledAs} is not null`),
    index('app_invocations_install_created_idx').on(t.installId, t.createdAt),
    index('app_invocations_run_idx').on(t.workflowRunId),
  ],
);
