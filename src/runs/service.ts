// Runs as the api sees them (docs/runs.md "Runs"): started from a workflow's current published version,
// read, listed and cancelled; another tenant's run is unknown (404). The steps execute in the worker
// (workflows.ts); the api only writes the run's first rows and enqueues its DBOS workflow.

import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Database, Db, Tx } from '../db/pool.ts';
import { bound, placeholders, preparedOn } from '../db/prepared.ts';
import { ApiError } from '../http/errors.ts';
import { countCapped, type Page } from '../http/paging.ts';
import { type TimeBounds, withinBounds } from '../http/time-bounds.ts';
import { currentTraceParent, recordRunDuration, traceUrlOf } from '../telemetry/index.ts';
import { failRunSessions } from '../vendor-sessions/index.ts';
import type { RunsEngine } from './engine-client.ts';
import { IDEMPOTENCY_WINDOW_HOURS, requestDigest, type StartRequest } from './idempotency.ts';
import type { RunError, RunStatus, WorkflowBody } from './model.ts';
import { type DefinitionVersionRow, requirePublished } from './published.ts';
import { stepsOfRun } from './run-store.ts';
import { runKeyLapsed, workflowRunKeys, workflowRunSteps, workflowRuns } from './tables.ts';

export interface RunContext {
  database: Database;
  engine: RunsEngine;
  tenantId: string;
  /** Who starts or cancels: the principal's subject. */
  actorId: string;
  /** Holds runs:context: sees the run's context. */
  seesContext: boolean;
  /** TRACE_URL_TEMPLATE when the principal holds ops:read (a run then shows its trace's link), else null. */
  traceUrlTemplate?: string | null;
}

type RunRow = typeof workflowRuns.$inferSelect;

const unknownRun = (id: string) => new ApiError('not_found', `no workflow run ${id}`);

const summaryOf = (row: RunRow) => ({
  id: row.id,
  workflow: row.workflowKey,
  version: row.version,
  subjectId: row.subjectId,
  status: row.status,
  error: row.error ?? null,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
  updatedAt: row.updatedAt.toISOString(),
  completedAt: row.completedAt?.toISOString() ?? null,
});

/** A start answered by the run an earlier start with the same Idempotency-Key started. */
export interface StartedRun {
  run: Awaited<ReturnType<typeof getRun>>;
  /** True when the key's earlier start made the run (the answer is 200, not 201). */
  replayed: boolean;
}

/** Thrown inside the start's transaction when the key is already taken: rolls back the run written. */
class KeyTaken extends Error {}

const idempotencyConflict = (key: string) =>
  new ApiError(
    'idempotency_conflict',
    `Idempotency-Key ${key} started a run with another request within the last ${IDEMPOTENCY_WINDOW_HOURS} hours: send a new key for a new request`,
  );

/**
 * POST /workflow-runs: a new run, or — with an Idempotency-Key a start of the last 24 hours used for the
 * same request — the run that start made (another request under that key: 409 idempotency_conflict).
 */
export async function startRun(
  ctx: RunContext,
  body: StartRequest,
  idempotencyKey?: string,
): Promise<StartedRun> {
  const version = await requirePublished(ctx.database.db, ctx.tenantId, 'workflow', body.workflow);
  if (idempotencyKey === undefined)
    return { run: await startVersion(ctx, version, body, null), replayed: false };
  const key = { key: idempotencyKey, digest: requestDigest(body) };
  // Twice at most: a key taken by a start that lapsed between our claim and our read is claimed again.
  for (let tries = 0; ; tries++) {
    try {
      return { run: await startVersion(ctx, version, body, key), replayed: false };
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
    }
    const [held] = await ctx.database.db
      .select()
      .from(workflowRunKeys)
      .where(and(eq(workflowRunKeys.tenantId, ctx.tenantId), eq(workflowRunKeys.key, key.key)));
    if (held && held.requestDigest !== key.digest) throw idempotencyConflict(key.key);
    if (held) return { run: await getRun(ctx, held.runId), replayed: true };
    if (tries > 0) throw new Error('the Idempotency-Key could be neither claimed nor read');
  }
}

/**
 * Claims the key for the run being written (in its transaction): a concurrent start with the key waits
 * on the primary key until this one commits, then finds it taken. A key older than the window is taken
 * over. False: the key is held.
 */
async function claimKey(tx: Tx, tenantId: string, key: { key: string; digest: string }, runId: string) {
  const claimed = await tx
    .insert(workflowRunKeys)
    .values({ tenantId, key: key.key, requestDigest: key.digest, runId })
    .onConflictDoUpdate({
      target: [workflowRunKeys.tenantId, workflowRunKeys.key],
      set: { requestDigest: key.digest, runId, createdAt: sql`now()` },
      setWhere: runKeyLapsed,
    })
    .returning({ runId: workflowRunKeys.runId });
  return claimed.length > 0;
}

/** Writes the run of a published version and enqueues its workflow; the answer is the rows as written. */
async function startVersion(
  ctx: RunContext,
  version: DefinitionVersionRow,
  body: StartRequest,
  key: { key: string; digest: string } | null,
) {
  const db = ctx.database.db;
  const steps = (version.body as WorkflowBody).steps;
  // The worker's spans of the run join the request's trace (the engine does not carry it): the request's
  // span, read here, outside the transaction's own.
  const traceParent = currentTraceParent();
  // The answer is the rows as written (running, steps pending): read again, they would cost two more
  // queries a run and show whatever the worker did meanwhile.
  const runValues: RunValues = {
    id: randomUUID(),
    tenantId: ctx.tenantId,
    definitionId: version.definitionId,
    definitionVersionId: version.id,
    workflowKey: body.workflow,
    version: version.version,
    subjectId: body.subjectId,
    context: body.context ?? {},
    createdBy: ctx.actorId,
    traceParent,
  };
  const stepValues = steps.map((s, position) => ({
    runId: runValues.id,
    stepId: s.id,
    position,
    type: s.type,
  }));
  const run = key
    ? await insertRunClaimingKey(ctx, runValues, stepValues, key)
    : await insertRun(db, runValues, stepValues);
  const stepRows = stepValues.map((step) => ({
    ...step,
    status: 'pending' as const,
    attempts: 0,
    error: null,
    startedAt: null,
    completedAt: null,
  }));
  try {
    await ctx.engine.start(run.id, { traceParent, tenantId: ctx.tenantId, key: body.workflow });
  } catch (error) {
    const failure: RunError = { code: 'internal', message: 'the run could not be started' };
    await db.transaction(async (tx) => {
      await tx
        .update(workflowRuns)
        .set({ status: 'failed', error: failure, completedAt: new Date(), updatedAt: new Date() })
        .where(eq(workflowRuns.id, run.id));
      // A retry under the same key starts the run afresh rather than answering this failure.
      if (key) {
        await tx
          .delete(workflowRunKeys)
          .where(and(eq(workflowRunKeys.tenantId, ctx.tenantId), eq(workflowRunKeys.key, key.key)));
      }
    });
    throw error;
  }
  return viewOf(ctx, run, stepRows);
}

/** The columns a start writes; the others keep their defaults (running, now). */
const RUN_COLUMNS = {
  id: true,
  tenantId: true,
  definitionId: true,
  definitionVersionId: true,
  workflowKey: true,
  version: true,
  subjectId: true,
  context: true,
  createdBy: true,
  traceParent: true,
} as const;
type RunValues = Pick<typeof workflowRuns.$inferInsert & { id: string }, keyof typeof RUN_COLUMNS>;
type StepValues = typeof workflowRunSteps.$inferInsert;

/** The run and its steps in one statement (the steps' insert a CTE of the run's), prepared once per pool. */
async function insertRun(db: Db, run: RunValues, steps: StepValues[]): Promise<RunRow> {
  const stepRows = steps.map((step) => ({ step_id: step.stepId, position: step.position, type: step.type }));
  const [row] = await runWithSteps(db).execute({
    ...bound('run', run, workflowRuns),
    steps: JSON.stringify(stepRows),
  });
  if (!row) throw new Error('run insert returned no row');
  return row;
}

// The steps go as one JSON parameter, so one statement serves a definition of any number of steps.
const runWithSteps = preparedOn((db) => {
  const steps = db.$with('steps', {}).as(sql`
    insert into workflow_run_steps (run_id, step_id, position, type)
    select ${sql.placeholder('run.id')}::uuid, s.step_id, s.position, s.type
    from jsonb_to_recordset(${sql.placeholder('steps')}::jsonb) as s(step_id text, position int, type text)`);
  return db
    .with(steps)
    .insert(workflowRuns)
    .values(placeholders('run', RUN_COLUMNS))
    .returning()
    .prepare('insert_run');
});

/** The run and its steps, and the Idempotency-Key claimed for it, in one transaction (KeyTaken: held). */
function insertRunClaimingKey(
  ctx: RunContext,
  run: RunValues,
  steps: StepValues[],
  key: { key: string; digest: string },
): Promise<RunRow> {
  return ctx.database.db.transaction(async (tx) => {
    // The same statement as a start without a key (a transaction gets it built for itself: prepared.ts).
    const row = await insertRun(tx, run, steps);
    if (!(await claimKey(tx, ctx.tenantId, key, row.id))) throw new KeyTaken();
    return row;
  });
}

export async function getRun(ctx: RunContext, id: string) {
  const [row] = await ctx.database.db
    .select()
    .from(workflowRuns)
    .where(and(eq(workflowRuns.id, id), eq(workflowRuns.tenantId, ctx.tenantId)));
  if (!row) throw unknownRun(id);
  return viewOf(ctx, row, await stepsOfRun(ctx.database, id));
}

function viewOf(ctx: RunContext, row: RunRow, steps: (typeof workflowRunSteps.$inferSelect)[]) {
  const traceUrl = traceUrlOf(ctx.traceUrlTemplate ?? null, row.traceParent);
  return {
    ...summaryOf(row),
    context: ctx.seesContext ? row.context : ('[redacted]' as const),
    steps: steps.map((s) => ({
      id: s.stepId,
      type: s.type,
      status: s.status,
      attempts: s.attempts,
      error: s.error ?? null,
      startedAt: s.startedAt?.toISOString() ?? null,
      completedAt: s.completedAt?.toISOString() ?? null,
    })),
    ...(traceUrl ? { traceUrl } : {}),
  };
}

/** GET /workflow-runs' filters: each one given narrows the list; from and to bound createdAt. */
export interface RunQuery extends TimeBounds {
  status?: RunStatus;
  workflow?: string;
  subjectId?: string;
  limit: number;
  offset: number;
}

export async function listRuns(
  ctx: RunContext,
  query: RunQuery,
): Promise<Page<ReturnType<typeof summaryOf>>> {
  const conditions: SQL[] = [eq(workflowRuns.tenantId, ctx.tenantId)];
  if (query.status) conditions.push(eq(workflowRuns.status, query.status));
  if (query.workflow) conditions.push(eq(workflowRuns.workflowKey, query.workflow));
  if (query.subjectId) conditions.push(eq(workflowRuns.subjectId, query.subjectId));
  conditions.push(...withinBounds(workflowRuns.createdAt, query));
  const where = and(...conditions);
  const db = ctx.database.db;
  const rows = await db
    .select()
    .from(workflowRuns)
    .where(where)
    .orderBy(desc(workflowRuns.createdAt), desc(workflowRuns.id))
    .limit(query.limit)
    .offset(query.offset);
  return { items: rows.map(summaryOf), ...(await countCapped(db, workflowRuns, where)) };
}

/** Cancels a running run: its open steps become cancelled, its workflow and children are cancelled. */
export async function cancelRun(ctx: RunContext, id: string) {
  const db = ctx.database.db;
  const cancelled = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(workflowRuns)
      .where(and(eq(workflowRuns.id, id), eq(workflowRuns.tenantId, ctx.tenantId)))
      .for('update');
    if (!row) throw unknownRun(id);
    if (row.status !== 'running' && row.status !== 'waiting_callback') {
      throw new ApiError('conflict', `the run is ${row.status}; only a running run can be cancelled`, {
        status: row.status,
      });
    }
    const now = new Date();
    await tx
      .update(workflowRuns)
      .set({
        status: 'cancelled',
        error: { code: 'run_cancelled', message: `cancelled by ${ctx.actorId}` },
        updatedAt: now,
        completedAt: now,
      })
      .where(eq(workflowRuns.id, id));
    await tx
      .update(workflowRunSteps)
      .set({ status: 'cancelled', completedAt: now })
      .where(and(eq(workflowRunSteps.runId, id), inArray(workflowRunSteps.status, ['pending', 'running'])));
    // A vendor session the run waits on fails with run_cancelled; no continuation follows.
    await failRunSessions(tx, id);
    return row;
  });
  recordRunDuration(Date.now() - cancelled.createdAt.getTime());
  await ctx.engine.cancel(cancelled.id);
  return getRun(ctx, id);
}
