// Vendor sessions' rows (docs/callbacks.md "Sessions"): opened by a run's call_app step in the
// transaction that records its pending invocation, settled once (first completion wins at the database),
// timed out when the run's wait is over, and handed back to the run by its continuation (resumedAt).
// Every move is a conditional UPDATE from the states it may leave, so two workers, two deliveries or a
// repeated DBOS step move a session once.
import { and, asc, count, eq, inArray, isNotNull, isNull, lte, min, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { SessionRecords } from '../installs/index.ts';
import { recordCallbackWait } from '../telemetry/index.ts';
import { appCallbacks, type CallbackStatus } from './tables.ts';

export type SessionRow = typeof appCallbacks.$inferSelect;

/** A session's error when the platform, not the vendor, ended it (docs/callbacks.md "Sessions"). */
export const SESSION_ENDS = {
  runCancelled: 'run_cancelled',
  installRemoved: 'install_removed',
  orphaned: 'orphaned',
} as const;

export interface SessionStart {
  tenantId: string;
  installId: string;
  installName: string;
  versionId: string;
  action: string;
  externalId: string;
  workflowRunId: string;
  stepId: string;
  /** How long the run waits: the action's callbackTimeoutSeconds, or the shorter wait the answer asked. */
  waitSeconds: number;
}

export type SessionOpening =
  /** Opened now, or found opened by an earlier try of the same run step (a DBOS step run again). */
  | { kind: 'opened'; session: SessionRow }
  /** Another session of the install holds the external id: the step fails with validation_error. */
  | { kind: 'taken' };

/** Opens the run step's session (in the caller's transaction); idempotent per run step. */
export async function openSession(db: Queryable, start: SessionStart): Promise<SessionOpening> {
  const [opened] = await db
    .insert(appCallbacks)
    .values({
      tenantId: start.tenantId,
      installId: start.installId,
      installName: start.installName,
      versionId: start.versionId,
      action: start.action,
      externalId: start.externalId,
      workflowRunId: start.workflowRunId,
      stepId: start.stepId,
      waitUntil: sql`now() + make_interval(secs => ${start.waitSeconds})`,
    })
    .onConflictDoNothing()
    .returning();
  if (opened) return { kind: 'opened', session: opened };
  // Locked: the run's continuation may be taking it (it locks the row too), and this try must not put
  // the run back to waiting once the continuation has moved it on.
  const [own] = await db
    .select()
    .from(appCallbacks)
    .where(and(eq(appCallbacks.workflowRunId, start.workflowRunId), eq(appCallbacks.stepId, start.stepId)))
    .for('update');
  return own ? { kind: 'opened', session: own } : { kind: 'taken' };
}

export interface SessionEnd {
  status: Exclude<CallbackStatus, 'pending'>;
  /** A completed session's output (the step's output); storable JSON (invocations.ts storable). */
  output?: unknown;
  error?: string | null;
}

/**
 * Settles a pending session: the first completion wins (a conditional UPDATE; a concurrent one waits on
 * the row's lock, then finds it settled). Answers the settled row, or null when it was not pending.
 */
export async function settleSession(
  db: Queryable,
  sessionId: string,
  end: SessionEnd,
): Promise<SessionRow | null> {
  const [row] = await db
    .update(appCallbacks)
    .set({
      status: end.status,
      output: end.output === undefined ? null : end.output,
      error: end.error ?? null,
      completedAt: sql`now()`,
    })
    .where(and(eq(appCallbacks.id, sessionId), eq(appCallbacks.status, 'pending')))
    .returning();
  return row ?? null;
}

/** A settled session whose run may wait on it: the run's continuation takes it (resumer). */
export interface SettledSession {
  id: string;
  workflowRunId: string;
}

/**
 * Times out sessions whose run's wait is over (at most `limit`, skipping rows another worker holds):
 * timed_out, no error. Answers those a run waited on.
 */
export async function timeOutDueSessions(db: Queryable, limit: number): Promise<SettledSession[]> {
  const due = db
    .select({ id: appCallbacks.id })
    .from(appCallbacks)
    .where(and(eq(appCallbacks.status, 'pending'), lte(appCallbacks.waitUntil, sql`now()`)))
    .orderBy(appCallbacks.waitUntil)
    .limit(limit)
    .for('update', { skipLocked: true });
  const rows = await db
    .update(appCallbacks)
    .set({ status: 'timed_out', completedAt: sql`now()` })
    .where(and(inArray(appCallbacks.id, due), eq(appCallbacks.status, 'pending')))
    .returning({
      id: appCallbacks.id,
      workflowRunId: appCallbacks.workflowRunId,
      waitedMs: sql<number>`(extract(epoch from now() - ${appCallbacks.createdAt}) * 1000)::float8`,
    });
  for (const row of rows) recordCallbackWait(row.waitedMs);
  return rows.flatMap((r) =>
    r.workflowRunId === null ? [] : [{ id: r.id, workflowRunId: r.workflowRunId }],
  );
}

/** The session's run has moved on (or waits no more): the resumer leaves it. */
export async function markResumed(db: Queryable, sessionId: string): Promise<void> {
  await db
    .update(appCallbacks)
    .set({ resumedAt: sql`now()` })
    .where(and(eq(appCallbacks.id, sessionId), isNull(appCallbacks.resumedAt)));
}

/** The run was cancelled: its pending session fails with run_cancelled (nothing to resume). */
export async function failRunSessions(db: Queryable, workflowRunId: string): Promise<void> {
  await db
    .update(appCallbacks)
    .set({
      status: 'failed',
      error: SESSION_ENDS.runCancelled,
      completedAt: sql`now()`,
      resumedAt: sql`now()`,
    })
    .where(and(eq(appCallbacks.workflowRunId, workflowRunId), eq(appCallbacks.status, 'pending')));
}

/** Pending sessions of the install that a run waits on (install_in_use's details.pendingCallbacks). */
export async function pendingCallbacksOf(db: Queryable, installId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(appCallbacks)
    .where(
      and(
        eq(appCallbacks.installId, installId),
        eq(appCallbacks.status, 'pending'),
        isNotNull(appCallbacks.workflowRunId),
      ),
    );
  return row?.n ?? 0;
}

/** The most runs install_in_use names (details.runs), as a rename's refusal names at most. */
export const MAX_WAITING_RUNS_NAMED = 100;

/**
 * The runs waiting on the install's pending sessions (install_in_use's details.runs), the longest
 * waiting first, at most MAX_WAITING_RUNS_NAMED: what a person must settle or force before removing it.
 */
export async function runsWaitingOn(db: Queryable, installId: string): Promise<{ id: string }[]> {
  const rows = await db
    .select({ id: appCallbacks.workflowRunId, since: min(appCallbacks.createdAt) })
    .from(appCallbacks)
    .where(
      and(
        eq(appCallbacks.installId, installId),
        eq(appCallbacks.status, 'pending'),
        isNotNull(appCallbacks.workflowRunId),
      ),
    )
    .groupBy(appCallbacks.workflowRunId)
    .orderBy(asc(min(appCallbacks.createdAt)), asc(appCallbacks.workflowRunId))
    .limit(MAX_WAITING_RUNS_NAMED);
  return rows.map((row) => ({ id: row.id as string }));
}

/**
 * DELETE with force=true: the install's pending sessions fail with install_removed; the resumer then
 * moves their runs on at once (they fail with it). Answers how many were failed.
 */
export async function failPendingCallbacks(db: Queryable, installId: string): Promise<number> {
  const failed = await db
    .update(appCallbacks)
    .set({ status: 'failed', error: SESSION_ENDS.installRemoved, completedAt: sql`now()` })
    .where(and(eq(appCallbacks.installId, installId), eq(appCallbacks.status, 'pending')))
    .returning({ id: appCallbacks.id });
  return failed.length;
}

/** An install's sessions as its removal reads and fails them: the installs' port, wired in by the api. */
export const installSessionRecords: SessionRecords = {
  pendingOf: pendingCallbacksOf,
  runsWaitingOn,
  failPending: failPendingCallbacks,
};
