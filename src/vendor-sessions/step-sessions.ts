// A run step's vendor session, the session's side of a run's wait (docs/runs.md "Waiting on a vendor
// session"): opened for the step's pending answer, taken once settled, and the end it gives its step.
// The run's side (moving the run to waiting_callback and back) is runs/waits.ts: it writes the run's row,
// which sits above vendor sessions, in the same transaction as these.
import { type SQL, sql } from 'drizzle-orm';
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

/**
 * The session's side of a continuation's take, as common table expressions of the run's one statement
 * (runs/waits.ts takeSettledSession): `taken_session`, the run's settled session (none while pending) with
 * its row locked, and its mark `resumed_at`, set once. The run's side joins `taken_session`.
 */
export function takenSession(runId: string, sessionId: string): SQL {
  const c = appCallbacks;
  return sql`taken_session as (
      select ${c.id} as id, ${c.stepId} as step_id, ${c.status} as status, ${c.output} as output,
        ${c.error} as error, ${c.installName} as install_name, ${c.action} as action
      from ${c}
      where ${c.id} = ${sessionId} and ${c.workflowRunId} = ${runId} and ${c.status} <> 'pending'
      for update
    ), resumed_session as (
      update ${c} set resumed_at = now()
      where ${c.id} = (select id from taken_session) and ${c.resumedAt} is null
    )`;
}

/** A row of `taken_session`, read back as the session a step ends with. */
export interface TakenSessionRow {
  id: string;
  step_id: string;
  status: SessionRow['status'];
  output: unknown;
  error: string | null;
  install_name: string;
  action: string;
}

/** The settled session a take read, as stepEndOf reads it. */
export const takenSessionOf = (row: TakenSessionRow) => ({
  id: row.id,
  stepId: row.step_id,
  status: row.status,
  output: row.output,
  error: row.error,
  installName: row.install_name,
  action: row.action,
});

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
