// The rows of a run as its DBOS workflow moves them (docs/runs.md "Runs", "What is checkpointed, and what
// is not"). Every write is idempotent, since none has a checkpoint of its own and a recovered workflow
// runs them again: each moves a row only from the states it may leave, so a repeated write changes
// nothing, and a cancelled run is never moved again. The run's end is audited in the statement that ends
// it, so an end is audited exactly once.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Actor, AuditEntry } from '../audit/trail.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Tx } from '../db/pool.ts';
import { executeNamed } from '../db/prepared.ts';
import { recordRunDuration } from '../telemetry/index.ts';
import type { RunError, RunStatus, StepStatus, WorkflowBody, WorkflowStep } from './model.ts';
import { workflowRunSteps, workflowRuns } from './tables.ts';

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

const open = (runId: string, stepId: string, from: StepStatus[]) =>
  and(
    eq(workflowRunSteps.runId, runId),
    eq(workflowRunSteps.stepId, stepId),
    inArray(workflowRunSteps.status, from),
  );

/** What a run's raw row reads as (openRun's statement). */
interface OpenedRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  workflow_key: string;
  version: number;
  subject_id: string;
  status: string;
  context: Record<string, unknown>;
  workflow_id: string | null;
  body: WorkflowBody;
  first_started_at: string | Date | null;
}

const epochMs = (value: string | Date | null | undefined): number | null =>
  value === null || value === undefined ? null : new Date(value).getTime();

/**
 * The run as its workflow opens it, its first step started (pending → running) when the run is running:
 * one statement, no checkpoint. Idempotent: opened again (a recovered workflow), it starts nothing and
 * answers the start time written the first time, which the step's deadline counts from.
 */
export async function openRun(
  database: Database,
  runId: string,
  now: Date,
  appsOn: boolean,
): Promise<{ run: LoadedRun; firstStartedAt: number | null } | null> {
  const { rows } = await executeNamed<OpenedRow>(
    database,
    'open_run',
    sql`
    with started as (
      update workflow_run_steps as s
      set status = 'running', started_at = ${now.toISOString()}::timestamptz, ${firstAttempt(appsOn)}
      from workflow_runs as r
      where s.run_id = ${runId} and s.position = 0 and s.status = 'pending'
        and r.id = s.run_id and r.status = 'running'
      returning s.started_at
    )
    select r.id, r.tenant_id, r.workflow_key, r.version, r.subject_id, r.status, r.context, r.workflow_id,
      v.body, coalesce((select started_at from started), f.started_at) as first_started_at
    from workflow_runs as r
    join definition_versions as v on v.id = r.definition_version_id
    left join workflow_run_steps as f on f.run_id = r.id and f.position = 0
    where r.id = ${runId}`,
  );
  const row = rows[0];
  if (!row) return null;
  const run: LoadedRun = {
    id: row.id,
    tenantId: row.tenant_id,
    workflowKey: row.workflow_key,
    version: Number(row.version),
    subjectId: row.subject_id,
    status: row.status,
    context: row.context,
    steps: row.body.steps,
    workflowId: row.workflow_id,
  };
  return { run, firstStartedAt: epochMs(row.first_started_at) };
}

/** An attempt of a call_app step begins: the step shows how many attempts it has made. */
export async function countAttempt(database: Database, runId: string, stepId: string, attempt: number) {
  await database.db
    .update(workflowRunSteps)
    .set({ attempts: attempt })
    .where(open(runId, stepId, ['pending', 'running']));
}

/** The step after the one completing, started with it; the step's start time is what a call_app deadline counts from. */
export interface NextStep {
  stepId: string;
  startedAt: Date;
  /** Apps are on: a call_app step's first attempt is counted with its start (it always makes one). */
  appsOn: boolean;
}

/**
 * A started call_app step shows its first attempt at once when apps are on: the attempt always follows
 * (call-app-step.ts counts the later ones), so the count costs no statement of its own.
 */
const firstAttempt = (appsOn: boolean) =>
  sql`attempts = case when s.type = 'call_app' and ${appsOn}::boolean then greatest(s.attempts, 1) else s.attempts end`;

/** A decide step's outcome, audited as decision.emitted with the step's completion. */
export interface Decision {
  outcome: string;
  riskScore: number | null;
}

/**
 * The step completed, the run's context now holds its output (a decide step's decision audited once, as
 * decision.emitted), and the next step started, in one transaction. Answers whether this moved the step,
 * the context the run goes on with, and the next step's start time, null when there is no next step or
 * the run is no longer running (cancelled meanwhile: the workflow stops). Done again (a recovered
 * workflow), it moves nothing and answers what the first time wrote: the stored context (a decision
 * taken again from a context holding later steps' outputs may differ; the stored one is the run's) and
 * the first start time.
 */
export async function completeStep(
  database: Database,
  run: RunNames,
  stepId: string,
  context: Record<string, unknown>,
  next: NextStep | null,
  decision?: Decision,
): Promise<{ moved: boolean; context: Record<string, unknown>; nextStartedAt: number | null }> {
  return database.db.transaction(async (tx) => {
    const moved = await tx
      .update(workflowRunSteps)
      .set({ status: 'completed', completedAt: new Date() })
      .where(open(run.id, stepId, ['pending', 'running']))
      .returning({ stepId: workflowRunSteps.stepId });
    let goesOnWith = context;
    if (moved.length > 0) {
      await tx
        .update(workflowRuns)
        .set({ context, updatedAt: new Date() })
        .where(and(eq(workflowRuns.id, run.id), eq(workflowRuns.status, 'running')));
      if (decision) await auditDecision(tx, run, stepId, decision);
    } else {
      const [stored] = await tx
        .select({ context: workflowRuns.context })
        .from(workflowRuns)
        .where(eq(workflowRuns.id, run.id));
      goesOnWith = stored?.context ?? context;
    }
    const nextStartedAt = next ? await startNext(tx, run.id, next) : null;
    return { moved: moved.length > 0, context: goesOnWith, nextStartedAt };
  });
}

/** The next step started when its run is running; its start time, or null when the run is not running. */
async function startNext(tx: Tx, runId: string, next: NextStep): Promise<number | null> {
  const { rows } = await tx.execute<{ started_at: string | Date | null }>(sql`
    with started as (
      update workflow_run_steps as s
      set status = 'running', started_at = ${next.startedAt.toISOString()}::timestamptz, ${firstAttempt(next.appsOn)}
      from workflow_runs as r
      where s.run_id = ${runId} and s.step_id = ${next.stepId} and s.status = 'pending'
        and r.id = s.run_id and r.status = 'running'
      returning s.started_at
    )
    select coalesce((select started_at from started), s.started_at) as started_at
    from workflow_run_steps as s
    join workflow_runs as r on r.id = s.run_id and r.status = 'running'
    where s.run_id = ${runId} and s.step_id = ${next.stepId}`);
  return epochMs(rows[0]?.started_at);
}

/**
 * The run ends: completed (its last step's completion and context with it), or failed at a step with its
 * error; the pending steps skipped; audited once, never after a cancel. One statement: its parts commit
 * together, and done again (a recovered workflow) it moves nothing.
 */
export async function endRun(
  database: Database,
  run: LoadedRun,
  end:
    | { status: 'completed'; last?: { stepId: string; context: Record<string, unknown> } }
    | { status: 'failed'; stepId: string; error: RunError },
): Promise<void> {
  const now = sql`${new Date().toISOString()}::timestamptz`;
  const failed = end.status === 'failed' ? { stepId: end.stepId, error: end.error } : null;
  const step = failed ?? (end.status === 'completed' ? (end.last ?? null) : null);
  const context = end.status === 'completed' && end.last ? JSON.stringify(end.last.context) : null;
  const errorJson = failed ? JSON.stringify(failed.error) : null;
  const audit = auditEntryOfEnd(run, failed);
  const { rows } = await executeNamed<{ created_at: string | Date }>(
    database,
    'end_run',
    sql`
    with step_end as (
      update workflow_run_steps
      set status = ${failed ? 'failed' : 'completed'}, error = ${errorJson}::jsonb, completed_at = ${now}
      where run_id = ${run.id} and step_id = ${step?.stepId ?? null} and status in ('pending', 'running')
    ), ended as (
      update workflow_runs
      set status = ${end.status}, error = ${errorJson}::jsonb, context = coalesce(${context}::jsonb, context),
        updated_at = ${now}, completed_at = ${now}
      where id = ${run.id} and status = 'running'
      returning created_at
    ), skipped as (
      update workflow_run_steps set status = 'skipped'
      where run_id = ${run.id} and status = 'pending' and step_id is distinct from ${step?.stepId ?? null}
        and exists (select from ended)
    ), audited as (
      insert into audit_events
        (tenant_id, action, actor_type, actor_id, actor_name, resource_type, resource_id, data)
      select ${audit.tenantId}::uuid, ${audit.action}, ${audit.actor.type}, ${audit.actor.id}, ${audit.actor.name},
        ${audit.resource.type}, ${audit.resource.id}, ${JSON.stringify(audit.data)}::jsonb
      from ended
    )
    select created_at from ended`,
  );
  const createdAt = epochMs(rows[0]?.created_at);
  if (createdAt !== null) recordRunDuration(Date.now() - createdAt);
}

type RunNames = Pick<LoadedRun, 'id' | 'tenantId' | 'workflowKey' | 'version' | 'subjectId'>;

/** The run's end in the audit trail: workflow.run.completed, or workflow.run.failed with its step and error. */
const auditEntryOfEnd = (
  run: RunNames,
  failed: { stepId: string | null; error: RunError } | null,
): AuditEntry & { data: Record<string, unknown> } => ({
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
    await recordAudit(tx, auditEntryOfEnd(ended, { stepId: failedStep?.stepId ?? null, error }));
    return ended.createdAt;
  });
  if (startedAt) recordRunDuration(Date.now() - startedAt.getTime());
  return startedAt !== null;
}

/** decision.emitted: the decision's id is `<run id>:<decide step id>`. */
const auditDecision = (tx: Tx, run: RunNames, stepId: string, decision: Decision) =>
  recordAudit(tx, {
    tenantId: run.tenantId,
    action: 'decision.emitted',
    actor: RUNS_ACTOR,
    resource: { type: 'decision', id: `${run.id}:${stepId}` },
    data: { ...decision, source: stepId, workflowRunId: run.id, subjectId: run.subjectId },
  });

export const stepsOfRun = (database: Database, runId: string) =>
  database.db
    .select()
    .from(workflowRunSteps)
    .where(eq(workflowRunSteps.runId, runId))
    .orderBy(asc(workflowRunSteps.position));
