// The retention sweep's rules (docs/retention.md), pure: which rows a pass may take given the pass's
// clock, how far one table of one tenant is swept in a pass, and when the first pass runs. The sweep
// (retention.ts) applies them to the database; tests read them row by row.

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/**
 * Settled sessions and their webhook events are kept this many days beyond RETENTION_APP_CALLBACK_DAYS:
 * a run page or an install page may still show a session the setting has just let go.
 */
export const GRACE_DAYS = 7;

/**
 * A session still pending this many days after it started has no run waiting on it (the longest wait a
 * run can ask for is seven days): the sweep times it out with error `orphaned`.
 */
export const ORPHAN_AFTER_DAYS = 8;

/**
 * Drop-off events of the collection terminal are kept at least this many days whatever the setting
 * says: the longest funnel window reads that far back.
 */
export const SUBMISSION_EVENT_FLOOR_DAYS = 90;

/** Rows taken by one batch: one short statement, so row locks are held briefly. */
export const BATCH_SIZE = 5_000;

/** Batches of one table for one tenant in one pass (250,000 rows): then the pass moves on. */
export const MAX_BATCHES = 50;

/** The first pass runs within this long of the worker's start. */
export const FIRST_PASS_WITHIN_MS = 5 * 60_000;

/** …but not before this: the worker's own start (recovery of unfinished runs, self-checks) goes first. */
export const FIRST_PASS_AFTER_MS = 30_000;

/** What the settings say, in days; 0 keeps the data forever. */
export interface RetentionSettings {
  appCallbackDays: number;
  submissionEventDays: number;
}

export interface BatchLimits {
  batchSize: number;
  maxBatches: number;
}

export const DEFAULT_LIMITS: BatchLimits = { batchSize: BATCH_SIZE, maxBatches: MAX_BATCHES };

const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

/**
 * Settled sessions created, and webhook events received, before this instant are deleted ("more than
 * the setting plus seven days ago": a row exactly that old stays). null: the setting is 0, kept forever.
 */
export function callbackCutoff(now: Date, appCallbackDays: number): Date | null {
  return appCallbackDays === 0 ? null : daysBefore(now, appCallbackDays + GRACE_DAYS);
}

/** Sessions still pending that started at or before this instant are timed out (whatever the settings). */
export function orphanCutoff(now: Date): Date {
  return daysBefore(now, ORPHAN_AFTER_DAYS);
}

/**
 * Drop-off events reported before this instant are deleted: the setting's days, never fewer than the
 * floor. null: the setting is 0, kept forever.
 */
export function submissionEventCutoff(now: Date, submissionEventDays: number): Date | null {
  if (submissionEventDays === 0) return null;
  return daysBefore(now, Math.max(submissionEventDays, SUBMISSION_EVENT_FLOOR_DAYS));
}

/**
 * The engine's ended workflows that completed before this instant may be deleted (RETENTION_ENGINE_HOURS:
 * "more than the setting ago", so one that ended exactly that long ago stays). null: 0, kept forever.
 */
export function engineCutoff(now: Date, engineHours: number): Date | null {
  return engineHours === 0 ? null : new Date(now.getTime() - engineHours * HOUR_MS);
}

/**
 * After a batch took `rows` rows, the `batchesDone`-th of this table for this tenant: `done` when it
 * found fewer than a full batch (nothing more is due, or the rest is locked by others and waits for the
 * next pass); `capped` when it was full and the pass has spent its batches here (more may be due: the
 * next pass goes on); else `more`.
 */
export type BatchVerdict = 'more' | 'done' | 'capped';

export function afterBatch(rows: number, batchesDone: number, limits: BatchLimits): BatchVerdict {
  if (rows < limits.batchSize) return 'done';
  return batchesDone >= limits.maxBatches ? 'capped' : 'more';
}

/**
 * The wait before the first pass, from a random number in [0, 1): spread over the window, so workers
 * started together (a deploy) do not all sweep at once, and never in the worker's first seconds.
 */
export function firstPassDelayMs(random: number): number {
  const spread = FIRST_PASS_WITHIN_MS - FIRST_PASS_AFTER_MS;
  const clamped = Math.min(Math.max(random, 0), 1);
  return FIRST_PASS_AFTER_MS + Math.min(Math.floor(clamped * spread), spread);
}

/** RETENTION_INTERVAL_MINUTES in milliseconds: the wait between the end of a pass and the next one. */
export const intervalMsOf = (intervalMinutes: number) => intervalMinutes * 60_000;
