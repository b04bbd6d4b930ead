// A run waiting on a vendor session (docs/runs.md "Waiting on a vendor session"). The run's workflow does not stay in
// memory for the wait: the step's pending answer opens the session, moves the run to waiting_callback and
// writes <outputKey>ExternalId in the transaction of its invocation record, and the workflow ends. When
// the session settles (webhook, timeout, forced removal, orphaning), a continuation workflow takes it
// here, in one transaction, and runs the rest of the steps. A cancelled run takes no continuation.
import { and, eq, sql } from 'drizzle-orm';
import type { AttemptOptions } from '../calls/attempt.ts';
import type { Database, Queryable } from '../db/pool.ts';
import {
  appCallbacks,
  markResumed,
  openSession,
  SESSION_ENDS,
  type SessionRow,
} from '../vendor-sessions/index.ts';
import type { CallAppStep, RunError } from './model.ts';
import { type LoadedRun, loadRunIn } from './run-store.ts';
import { workflowRuns } from './tables.ts';

/** The key of the run context the session's external id is written under. */
export const externalIdKey = (outputKey: string) => `${outputKey}ExternalId`;

/**
 * The step's hook for its pending answer (calls/attempt.ts openSession): opens the run step's session,
 * the run waits and its context names the external id. An external id another session of the install
 * holds fails the step at once with validation_error. A try after a crash finds its own session and
 * moves the run only while no continuation has taken it.
 */
export function sessionOpener(
  run: Pick<LoadedRun, 'id'>,
  step: Pick<CallAppStep, 'id' | 'outputKey'>,
): NonNullable<AttemptOptions['openSession']> {
  return async (tx, pending) => {
    const opening = await openSession(tx, {
      tenantId: pending.install.tenantId,
      installId: pending.install.id,
      installName: pending.install.name,
      versionId: pending.version.id,
      action: pending.action,
      externalId: pending.externalId,
      workflowRunId: run.id,
      stepId: step.id,
      waitSeconds: pending.callbackTimeoutSeconds,
    });
    if (opening.kind === 'taken') {
      return {
        error: {
          code: 'validation_error',
          reason: 'external_id',
          message: `another session of install ${pending.install.name} holds the external id action ${pending.action} answered`,
        },
      };
    }
    const { session } = opening;
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

/** What a settled session ends its step with. */
export type SessionStepEnd = { status: 'completed'; output: unknown } | { status: 'failed'; error: RunError };

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
    const [session] = await tx
      .select()
      .from(appCallbacks)
      .where(and(eq(appCallbacks.id, sessionId), eq(appCallbacks.workflowRunId, runId)))
      .for('update');
    if (!session || session.status === 'pending') return null;
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

/** A settled session's end of its step: the vendor's reply never reaches the run's error. */
export function stepEndOf(
  session: Pick<SessionRow, 'id' | 'status' | 'output' | 'error' | 'installName' | 'action'>,
): SessionStepEnd {
  const names = `install ${session.installName} action ${session.action}`;
  const details = { install: session.installName, action: session.action, callbackId: session.id };
  if (session.status === 'completed') return { status: 'completed', output: session.output };
  if (session.status === 'timed_out') {
    return session.error === SESSION_ENDS.orphaned
      ? failed('orphaned', `${names}: the session was still pending eight days after it started`, details)
      : failed('CallbackTimeout', `${names}: no webhook settled the session within the run’s wait`, details);
  }
  if (session.error === SESSION_ENDS.installRemoved) {
    return failed('install_removed', `${names}: the install was removed while the run waited`, details);
  }
  return failed('AppCallbackFailed', `${names}: the vendor reported the session failed`, details);
}

const failed = (
  code: RunError['code'],
  message: string,
  details: Record<string, unknown>,
): SessionStepEnd => ({
  status: 'failed',
  error: { code, message, details },
});
