// The rows of a run as its DBOS workflow moves them (docs/runs.md "Runs"). Every write is idempotent, since
// DBOS steps run at least once: each moves a row only from the states it may leave, so a repeated write
// after a crash changes nothing, and a cancelled run is never moved again. The run's end is audited in
// the transaction that ends it, so an end is audited exactly once.
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Actor } from '../audit/trail.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import { recordRunDuration } from '../telemetry/index.ts';
import type { RunError, RunStatus, StepStatus, WorkflowBody, WorkflowStep } from './model.ts';
import { definitionVersions, workflowRunSteps, workflowRuns } from './tables.ts';

/** Who the audit trail names for what a run does on its own. */
export const RUNS_ACTOR: Actor = { type: 'system', id: 'workflow-runs', name: null };

export interface LoadedRun {
  id: string;
  tenantId: string;
  workflowKey: string;
  version: number;
  subjectId: string;
  status: string;
  context: Record<string, unknown>;
  steps: WorkflowStep[];
  /** The workflow moving the run now when not the run's own (a continuation after a wait). */
  workflowId: string | null;
}

export const loadRun = (database: Database, runId: string): Promise<LoadedRun | null> =>
  loadRunIn(database.db, runId);

/** The run with its definition's steps, in the caller's transaction when it has one. */
export async function loadRunIn(db: Queryable, runId: string): Promise<LoadedRun | null> {
  const [row] = await db
    .select({ run: workflowRuns, body: definitionVersions.body })
    .from(workflowRuns)
    .innerJoin(definitionVersions, eq(definitionVersions.id, workflowRuns.definitionVersionId))
    .where(eq(workflowRuns.id, runId));
  if (!row) return null;
  const { run } = row;
  return {
    id: run.id,
    tenantId: run.tenantId,
    workflowKey: run.workflowKey,
    version: run.version,
    subjectId: run.subjectId,
    status: run.status,
    context: run.context,
    steps: (row.body as WorkflowBody).steps,
    workflowId: run.workflowId,
  };
}

const open = (runId: string, stepId: string, from: StepStatus[]) =>
  and(
    eq(workflowRunSteps.runId, runId),
    eq(workflowRunSteps.stepId, stepId),
    inArray(workflowRunSteps.status, from),
  );

export async function startStep(database: Database, runId: string, stepId: string): Promise<void> {
  await database.db
    .update(workflowRunSteps)
    .set({ status: 'running', startedAt: new Date() })
    .where(open(runId, stepId, ['pending']));
}

/** An attempt of a call_app step begins: the step shows how many attempts it has made. */
export async function countAttempt(database: Database, runId: string, stepId: string, attempt: number) {
  await database.db
    .update(workflowRunSteps)
    .set({ attempts: attempt })
    .where(open(runId, stepId, ['pending', 'running']));
}

/** The step completed and the run's context now holds its output. */
export async function completeStep(
  database: Database,
  runId: string,
  stepId: string,
  context: Record<string, unknown>,
): Promise<void> {
  await database.db.transaction(async (tx) => {
    const moved = await tx
      .update(workflowRunSteps)
      .set({ status: 'completed', completedAt: new Date() })
      .where(open(runId, stepId, ['pending', 'running']))
      .returning({ stepId: workflowRunSteps.stepId });
    if (moved.length === 0) return;
    await tx
      .update(workflowRuns)
      .set({ context, updatedAt: new Date() })
      .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.status, 'running')));
  });
}

/** The run ends: completed, or failed at a step with its error; audited once, never after a cancel. */
export async function endRun(
  database: Database,
  run: LoadedRun,
  end:
    | { status: 'completed'; last?: { stepId: string; context: Record<string, unknown> } }
    | { status: 'failed'; stepId: string; error: RunError },
): Promise<void> {
  const startedAt = await database.db.transaction(async (tx) => {
    const now = new Date();
    if (end.status === 'completed' && end.last) {
      await tx
        .update(workflowRunSteps)
        .set({ status: 'completed', completedAt: now })
        .where(open(run.id, end.last.stepId, ['pending', 'running']));
    }
    if (end.status === 'failed') {
      await tx
        .update(workflowRunSteps)
        .set({ status: 'failed', error: end.error, completedAt: now })
        .where(open(run.id, end.stepId, ['pending', 'running']));
    }
    const [ended] = await tx
      .update(workflowRuns)
      .set({
        status: end.status,
        error: end.status === 'failed' ? end.error : null,
        ...(end.status === 'completed' && end.last ? { context: end.last.context } : {}),
        updatedAt: now,
        completedAt: now,
      })
      .where(and(eq(workflowRuns.id, run.id), eq(workflowRuns.status, 'running')))
      .returning({ id: workflowRuns.id, createdAt: workflowRuns.createdAt });
    if (!ended) return null;
    await tx
      .update(workflowRunSteps)
      .set({ status: 'skipped' })
      .where(and(eq(workflowRunSteps.runId, run.id), eq(workflowRunSteps.status, 'pending')));
    await auditEnd(tx, run, end.status === 'failed' ? { stepId: end.stepId, error: end.error } : null);
    return ended.createdAt;
  });
  if (startedAt) recordRunDuration(Date.now() - startedAt.getTime());
}

type RunNames = Pick<LoadedRun, 'id' | 'tenantId' | 'workflowKey' | 'version' | 'subjectId'>;

/** The run's end in the audit trail: workflow.run.completed, or workflow.run.failed with its step and error. */
const auditEnd = (tx: Tx, run: RunNames, failed: { stepId: string | null; error: RunError } | null) =>
  recordAudit(tx, {
    tenantId: run.tenantId,
    action: failed ? 'workflow.run.failed' : 'workflow.run.completed',
    actor: RUNS_ACTOR,
    resource: { type: 'workflow_run', id: run.id },
    data: {
      workflowRunId: run.id,
      workflow: run.workflowKey,
      version: run.version,
      subjectId: run.subjectId,
      ...(failed ?? {}),
    },
  });

/** Statuses of a run whose workflow may still move it (the sweep looks at these too). */
export const OPEN_RUN_STATUSES: RunStatus[] = ['running', 'waiting_callback'];

/**
 * The run ends failed with `error` wherever it stands, when something other than a step's app call
 * stopped it (its workflow failed, or the sweep found it stranded): the step running fails with the
 * error, the pending ones are skipped, audited once. False when the run had already ended.
 */
export async function failOpenRun(database: Database, runId: string, error: RunError): Promise<boolean> {
  const startedAt = await database.db.transaction(async (tx) => {
    const now = new Date();
    const [ended] = await tx
      .update(workflowRuns)
      .set({ status: 'failed', error, updatedAt: now, completedAt: now })
      .where(and(eq(workflowRuns.id, runId), inArray(workflowRuns.status, OPEN_RUN_STATUSES)))
      .returning();
    if (!ended) return null;
    const [failedStep] = await tx
      .update(workflowRunSteps)
      .set({ status: 'failed', error, completedAt: now })
      .where(and(eq(workflowRunSteps.runId, runId), eq(workflowRunSteps.status, 'running')))
      .returning({ stepId: workflowRunSteps.stepId });
    await tx
      .update(workflowRunSteps)
      .set({ status: 'skipped' })
      .where(and(eq(workflowRunSteps.runId, runId), eq(workflowRunSteps.status, 'pending')));
    await auditEnd(tx, ended, { stepId: failedStep?.stepId ?? null, error });
    return ended.createdAt;
  });
  if (startedAt) recordRunDuration(Date.now() - startedAt.getTime());
  return startedAt !== null;
}

/** A decide step's outcome: decision.emitted, written once (with the step's completion). */
export async function emitDecision(
  database: Database,
  run: LoadedRun,
  stepId: string,
  decision: { outcome: string; riskScore: number | null },
  context: Record<string, unknown>,
): Promise<void> {
  await database.db.transaction(async (tx) => {
    const moved = await tx
      .update(workflowRunSteps)
      .set({ status: 'completed', completedAt: new Date() })
      .where(open(run.id, stepId, ['pending', 'running']))
      .returning({ stepId: workflowRunSteps.stepId });
    if (moved.length === 0) return;
    await tx
      .update(workflowRuns)
      .set({ context, updatedAt: new Date() })
      .where(and(eq(workflowRuns.id, run.id), eq(workflowRuns.status, 'running')));
    await recordAudit(tx, {
      tenantId: run.tenantId,
      action: 'decision.emitted',
      actor: RUNS_ACTOR,
      resource: { type: 'decision', id: `${run.id}:${stepId}` },
      data: { ...decision, source: stepId, workflowRunId: run.id, subjectId: run.subjectId },
    });
  });
}

export const stepsOfRun = (database: Database, runId: string) =>
  database.db
    .select()
    .from(workflowRunSteps)
    .where(eq(workflowRunSteps.runId, runId))
    .orderBy(asc(workflowRunSteps.position));
