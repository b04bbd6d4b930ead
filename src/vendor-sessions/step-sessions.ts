// A run step's vendor session, the session's side of a run's wait (docs/runs.md "Waiting on a vendor
// session"): opened for the step's pending answer, taken once settled, and the end it gives its step.
// The run's side (moving the run to waiting_callback and back) is runs/waits.ts: it writes the run's row,
// which sits above vendor sessions, in the same transaction as these.
import { and, eq } from 'drizzle-orm';
import type { AttemptError, PendingStart } from '../calls/index.ts';
import type { Queryable } from '../db/pool.ts';
import type { AnyCode } from '../http/error-codes.ts';
import { openSession, SESSION_ENDS, type SessionRow } from './session-store.ts';
import { appCallbacks } from './tables.ts';

/** An error a session gives its step: the API's error code and message, with details. */
export interface StepError {
  code: AnyCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The run step a session is opened for. */
export interface WaitingStep {
  runId: string;
  stepId: string;
}

/**
 * Opens the step's session for its pending answer. An external id another session of the install holds
 * is the step's validation_error; a try after a crash finds the step's own session.
 */
export async function openStepSession(
  tx: Queryable,
  pending: PendingStart,
  step: WaitingStep,
): Promise<{ session: SessionRow } | { error: AttemptError }> {
  const opening = await openSession(tx, {
    tenantId: pending.install.tenantId,
    installId: pending.install.id,
    installName: pending.install.name,
    versionId: pending.version.id,
    action: pending.action,
    externalId: pending.externalId,
    workflowRunId: step.runId,
    stepId: step.stepId,
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
  return { session: opening.session };
}

/** The run's settled session, its row locked for the transaction; null: none, or still pending. */
export async function lockSettledSession(
  tx: Queryable,
  runId: string,
  sessionId: string,
): Promise<SessionRow | null> {
  const [session] = await tx
    .select()
    .from(appCallbacks)
    .where(and(eq(appCallbacks.id, sessionId), eq(appCallbacks.workflowRunId, runId)))
    .for('update');
  return !session || session.status === 'pending' ? null : session;
}

/** What a settled session ends its step with. */
export type SessionStepEnd =
  | { status: 'completed'; output: unknown }
  | { status: 'failed'; error: StepError };

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

const failed = (code: AnyCode, message: string, details: Record<string, unknown>): SessionStepEnd => ({
  status: 'failed',
  error: { code, message, details },
});
