// A run waiting on a vendor session (docs/runs.md "Waiting on a vendor session"). The run's workflow does not stay in
// memory for the wait: the step's pending answer opens the session, moves the run to waiting_callback and
// writes <outputKey>ExternalId in the transaction of its invocation record, and the workflow ends. When
// the session settles (webhook, timeout, forced removal, orphaning), a continuation workflow takes it
// here, in one transaction, and runs the rest of the steps. A cancelled run takes no continuation.
import { and, eq, sql } from 'drizzle-orm';
import type { AttemptOptions } from '../calls/index.ts';
import type { Database, Queryable } from '../db/pool.ts';
import {
  lockSettledSession,
  markResumed,
  openStepSession,
  type SessionStepEnd,
  stepEndOf,
} from '../vendor-sessions/index.ts';
import type { CallAppStep } from './model.ts';
import { type LoadedRun, loadRunIn } from './run-store.ts';
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

/**
 * The continuation `workflowId` takes the settled session's run (one transaction, the session's row
 * locked): the run moves from waiting_callback to running under this workflow. Taken again by the same
 * workflow (its DBOS step run again after a crash) it answers the same. Null: nothing to continue (the
 * run was cancelled or ended, or the session is not its step's).
 */
export async function takeSettledSession(
  database: Database,
  runId: string,
  sessionId: string,
  workflowId: string,
): Promise<TakenRun | null> {
  return database.db.transaction(async (tx) => {
    const session = await lockSettledSession(tx, runId, sessionId);
    if (!session) return null;
    const run = await loadRunIn(tx, runId);
    const index = run?.steps.findIndex((s) => s.id === session.stepId) ?? -1;
    const step = run?.steps[index];
    const ours = run?.status === 'running' && run.workflowId === workflowId;
    if (!run || step?.type !== 'call_app' || (run.status !== 'waiting_callback' && !ours)) {
      await markResumed(tx, sessionId);
      return null;
    }
    // A cancel committing meanwhile wins: the run is not moved, nothing continues.
    const moved = ours || (await moveOn(tx, runId, workflowId));
    await markResumed(tx, sessionId);
    if (!moved) return null;
    return { run: { ...run, status: 'running', workflowId }, index, step, end: stepEndOf(session) };
  });
}

async function moveOn(db: Queryable, runId: string, workflowId: string): Promise<boolean> {
  const moved = await db
    .update(workflowRuns)
    .set({ status: 'running', workflowId, updatedAt: new Date() })
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.status, 'waiting_callback')))
    .returning({ id: workflowRuns.id });
  return moved.length > 0;
}
