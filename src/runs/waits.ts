// A run waiting on a vendor session (docs/runs.md "Waiting on a vendor session"). The run's workflow does not stay in
// memory for the wait: the step's pending answer opens the session, moves the run to waiting_callback and
// writes <outputKey>ExternalId in the transaction of its invocation record, and the workflow ends. When
// the session settles (webhook, timeout, forced removal, orphaning), a continuation workflow takes it
// here, in one statement, and runs the rest of the steps. A cancelled run takes no continuation.
import { and, eq, sql } from 'drizzle-orm';
import type { AttemptOptions } from '../calls/index.ts';
import type { Database } from '../db/pool.ts';
import { executeNamed } from '../db/prepared.ts';
import {
  openStepSession,
  type SessionStepEnd,
  stepEndOf,
  type TakenSessionRow,
  takenSession,
  takenSessionOf,
} from '../vendor-sessions/index.ts';
import type { CallAppStep, WorkflowBody } from './model.ts';
import type { LoadedRun } from './run-store.ts';
import { workflowRuns } from './tables.ts';

/** The key of the run context the session's external id is written under. */
export const externalIdKey = (outputKey: string) => `${outputKey}ExternalId`;

/**
 * The step's hook for its pending answer (calls/attempt.ts openSession): opens the run step's session
 * (vendor-sessions/step-sessions.ts openStepSession), the run waits and its context names the external
 * id. A try after a crash finds its own session and moves the run only while no continuation has taken it.
 */
export function sessionOpener(
  run: Pick<LoadedRun, 'id'>,
  step: Pick<CallAppStep, 'id' | 'outputKey'>,
): NonNullable<AttemptOptions['openSession']> {
  return async (tx, pending) => {
    const opened = await openStepSession(tx, pending, { runId: run.id, stepId: step.id });
    if ('error' in opened) return opened;
    const { session } = opened;
    if (session.resumedAt === null) {
      const externalId = { [externalIdKey(step.outputKey)]: session.externalId };
      await tx
        .update(workflowRuns)
        .set({
          status: 'waiting_callback',
          context: sql`${workflowRuns.context} || ${JSON.stringify(externalId)}::jsonb`,
          updatedAt: new Date(),
        })
        .where(and(eq(workflowRuns.id, run.id), eq(workflowRuns.status, 'running')));
    }
    return { sessionId: session.id };
  };
}

/** The run a continuation takes over, the waiting step's place in it, and how that step ends. */
export interface TakenRun {
  run: LoadedRun;
  index: number;
  step: CallAppStep;
  end: SessionStepEnd;
}

/** What the take's statement reads: the session, and the run with its definition's steps as they stood. */
interface TakeRow extends TakenSessionRow, Record<string, unknown> {
  run_id: string | null;
  tenant_id: string;
  workflow_key: string;
  version: number;
  subject_id: string;
  run_status: string;
  context: Record<string, unknown>;
  workflow_id: string | null;
  body: WorkflowBody;
  moved: boolean;
}

/**
 * The continuation `workflowId` takes the settled session's run, in one statement (no checkpoint of its
 * own, like the run's row writes: run-store.ts): the session's row locked and marked resumed, and the run
 * moved from waiting_callback to running under this workflow — only while the session's step is the one
 * it waits at (still running), so a continuation run again after a crash never moves a run that went on
 * to wait at a later step's session. Taken again by the same workflow it answers the run as it stands
 * now, which its idempotent writes then leave as they are. Null: nothing to continue (the session is still
 * pending or not the run's, the run was cancelled or ended, or another continuation moves it).
 */
export async function takeSettledSession(
  database: Database,
  runId: string,
  sessionId: string,
  workflowId: string,
): Promise<TakenRun | null> {
  const { rows } = await executeNamed<TakeRow>(
    database,
    'take_settled_session',
    sql`
    with ${takenSession(runId, sessionId)}, moved as (
      update workflow_runs as r set status = 'running', workflow_id = ${workflowId}, updated_at = now()
      from taken_session as s
      where r.id = ${runId} and r.status = 'waiting_callback' and exists (
        select from workflow_run_steps as t
        where t.run_id = r.id and t.step_id = s.step_id and t.status = 'running' and t.type = 'call_app')
      returning r.id
    )
    select s.*, r.id as run_id, r.tenant_id, r.workflow_key, r.version, r.subject_id, r.status as run_status,
      r.context, r.workflow_id, v.body, exists (select from moved) as moved
    from taken_session as s
    left join workflow_runs as r on r.id = ${runId}
    left join definition_versions as v on v.id = r.definition_version_id`,
  );
  const row = rows[0];
  if (!row?.run_id) return null;
  const steps = row.body.steps;
  const index = steps.findIndex((s) => s.id === row.step_id);
  const step = steps[index];
  const ours = row.run_status === 'running' && row.workflow_id === workflowId;
  if (step?.type !== 'call_app' || !(row.moved || ours)) return null;
  const run: LoadedRun = {
    id: row.run_id,
    tenantId: row.tenant_id,
    workflowKey: row.workflow_key,
    version: Number(row.version),
    subjectId: row.subject_id,
    status: 'running',
    context: row.context,
    steps,
    workflowId,
  };
  return { run, index, step, end: stepEndOf(takenSessionOf(row)) };
}
