// Definitions (workflows, rule sets) with their versions, and workflow runs with their steps
// (docs/runs.md). Runs outlive nothing but their tenant; a definition's versions are never deleted.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';
import { IDEMPOTENCY_WINDOW_HOURS } from './idempotency.ts';
import type {
  DefinitionBody,
  DefinitionKind,
  DefinitionStatus,
  RunError,
  RunStatus,
  StepStatus,
} from './model.ts';

export const definitions = pgTable(
  'definitions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    kind: text('kind').$type<DefinitionKind>().notNull(),
    /** Unique per tenant and kind; rule sets are addressed by it (/rule-sets/:key/evaluate). */
    key: text('key').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
  },
  (t) => [unique('definitions_tenant_kind_key').on(t.tenantId, t.kind, t.key)],
);

export const definitionVersions = pgTable(
  'definition_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    definitionId: uuid('definition_id')
      .notNull()
      .references(() => definitions.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id').notNull(),
    /** 1, 2, 3… per definition. */
    version: integer('version').notNull(),
    /** draft until published; a published version never changes again. */
    status: text('status').$type<DefinitionStatus>().notNull().default('draft'),
    body: jsonb('body').$type<DefinitionBody>().notNull(),
    /**
     * Every install name the body calls (steps, app rules, fallbacks), lower case: who calls a name
     * (usage, rename, alias removal, DELETE) is one indexed array overlap.
     */
    installNames: text('install_names').array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    publishedAt: timestamptz('published_at'),
    publishedBy: text('published_by'),
  },
  (t) => [
    unique('definition_versions_definition_version').on(t.definitionId, t.version),
    index('definition_versions_install_names_idx').using('gin', t.installNames),
    index('definition_versions_tenant_status_idx').on(t.tenantId, t.status),
  ],
);

export const workflowRuns = pgTable(
  'workflow_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    definitionId: uuid('definition_id').notNull(),
    definitionVersionId: uuid('definition_version_id').notNull(),
    workflowKey: text('workflow_key').notNull(),
    version: integer('version').notNull(),
    subjectId: text('subject_id').notNull(),
    status: text('status').$type<RunStatus>().notNull().default('running'),
    context: jsonb('context').$type<Record<string, unknown>>().notNull(),
    error: jsonb('error').$type<RunError>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    completedAt: timestamptz('completed_at'),
    /**
     * The DBOS workflow that moves the run now: null for the run's own (its id is the run's); after a
     * vendor session settles, the continuation's (`<runId>:<sessionId>`, docs/runs.md "Waiting on a vendor session").
     */
    workflowId: text('workflow_id'),
    /**
     * The W3C traceparent of the request that started the run: the worker's spans of the run join that
     * trace, and `ops:read` holders get its link (docs/telemetry.md "Traces"). Null with telemetry off.
     */
    traceParent: text('trace_parent'),
  },
  (t) => [
    index('workflow_runs_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('workflow_runs_tenant_status_idx').on(t.tenantId, t.status),
    // The sweep's pages of running runs (sweep.ts): small, since runs end; waiting runs are not in it.
    index('workflow_runs_running_idx')
      .on(t.id)
      .where(sql`${t.status} = 'running'`),
  ],
);

export const workflowRunSteps = pgTable(
  'workflow_run_steps',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => workflowRuns.id, { onDelete: 'cascade' }),
    /** The step's id in the definition. */
    stepId: text('step_id').notNull(),
    /** Its place in the definition's steps, from 0. */
    position: integer('position').notNull(),
    type: text('type').notNull(),
    status: text('status').$type<StepStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    error: jsonb('error').$type<RunError>(),
    startedAt: timestamptz('started_at'),
    completedAt: timestamptz('completed_at'),
  },
  (t) => [primaryKey({ name: 'workflow_run_steps_pk', columns: [t.runId, t.stepId] })],
);

/**
 * The Idempotency-Key of a run's start (idempotency.ts): per tenant, the digest of the request and the
 * run it started. A key answers that run for 24 hours; an older one is taken over by the next start, or
 * deleted by the run sweep.
 */
export const workflowRunKeys = pgTable(
  'workflow_run_keys',
  {
    tenantId: uuid('tenant_id').notNull(),
    key: text('key').notNull(),
    requestDigest: text('request_digest').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => workflowRuns.id, { onDelete: 'cascade' }),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'workflow_run_keys_pk', columns: [t.tenantId, t.key] }),
    // The sweep deletes keys past their window (sweep.ts forgetLapsedRunKeys).
    index('workflow_run_keys_created_idx').on(t.createdAt),
  ],
);

/** A key past its window: the next start under it takes it over (service.ts), the sweep deletes it. */
export const runKeyLapsed = sql`${workflowRunKeys.createdAt} <= now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`;
