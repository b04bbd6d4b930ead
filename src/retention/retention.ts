// The retention sweep (docs/retention.md): each pass times out the sessions no run waits on any more,
// deletes settled sessions and webhook events older than RETENTION_APP_CALLBACK_DAYS plus seven days, and
// the collection terminal's drop-off events older than RETENTION_SUBMISSION_EVENT_DAYS (at least 90).
// Per tenant, oldest rows first, in batches: each batch is one statement (so its own short transaction)
// that takes its rows with FOR UPDATE SKIP LOCKED, so a row another transaction holds (a webhook settling
// it, the resumer reading it) is left for the next pass instead of waited on. Every cut-off of a pass is
// computed from the one `now` the pass is given (the worker reads it from the database's clock, which also
// wrote the rows' timestamps), so a pass is one consistent cut whatever the workers' clocks say.
// Then the engine's own tables: ended workflows of ended runs older than RETENTION_ENGINE_HOURS, deleted
// through the engine's API (engine-workflows.ts). It stands above the layers whose rows it sweeps (vendor
// sessions, collections, runs) and reads their tables through their front doors; the worker starts it
// (src/cli/start.ts).
import { type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, AnyPgTable } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import { collectionDropOffEvents } from '../collections/index.ts';
import type { Database, Queryable } from '../db/pool.ts';
import { readDatabaseNow } from '../installs/index.ts';
import { countRetentionDeleted } from '../telemetry/index.ts';
import { tenants } from '../tenants/tables.ts';
import { appCallbacks, appWebhookEvents } from '../vendor-sessions/index.ts';
import { type Background, schedulePasses, type Timer } from '../worker/schedule.ts';
import {
  deleteDueWorkflows,
  ENGINE_TARGET,
  type EngineWorkflows,
  launchedEngine,
} from './engine-workflows.ts';
import {
  afterBatch,
  type BatchLimits,
  callbackCutoff,
  DEFAULT_LIMITS,
  engineCutoff,
  firstPassDelayMs,
  intervalMsOf,
  orphanCutoff,
  type RetentionSettings,
  submissionEventCutoff,
} from './retention-rules.ts';

/** One kind of row a pass takes care of, and how one batch of a tenant's rows is taken. */
export interface RetentionTarget {
  /** The name the pass's log line counts it under. */
  name: string;
  /** What a batch does to its rows: counted as deleted per target, or as sessions timed out. */
  effect: 'delete' | 'time_out';
  /** Rows older than this (per the target's rule) are due; null: none ever are (kept forever). */
  cutoff(now: Date, settings: RetentionSettings): Date | null;
  /** Takes up to `size` of the tenant's due rows, oldest first; answers how many it took. */
  batch(db: Queryable, tenantId: string, cutoff: Date, size: number): Promise<number>;
}

const SETTLED = sql`(${sql.join(
  (['completed', 'failed', 'timed_out'] as const).map((status) => sql`${status}`),
  sql`, `,
)})`;

/** Runs one batch statement and answers the rows it touched. */
async function rowsOf(db: Queryable, statement: SQL): Promise<number> {
  return (await db.execute(statement)).rowCount ?? 0;
}

/**
 * Sessions still pending eight days after they started: no run waits on them (the longest wait is seven
 * days). They end timed_out with error `orphaned` — only while still pending, as the UPDATE checks again on
 * the row it locked — and resumed_at is left alone, so the resumer still sees a settled session whose run
 * it has not moved on, and finds no run waiting.
 */
const orphanedSessions: RetentionTarget = {
  name: 'app_callbacks.orphaned',
  effect: 'time_out',
  cutoff: (now) => orphanCutoff(now),
  batch: (db, tenantId, cutoff, size) =>
    rowsOf(
      db,
      sql`update ${appCallbacks}
          set status = 'timed_out', error = 'orphaned', completed_at = now()
          where status = 'pending' and id in (
            select id from ${appCallbacks}
            where tenant_id = ${tenantId} and status = 'pending' and created_at <= ${cutoff}
            order by created_at limit ${size}
            for update skip locked)`,
    ),
};

/**
 * Settled sessions created more than the setting plus seven days ago. One whose run the resumer has not
 * moved on yet (a run, no resumed_at) is left for a later pass: deleting it would leave the run waiting.
 */
const settledSessions: RetentionTarget = {
  name: 'app_callbacks',
  effect: 'delete',
  cutoff: (now, settings) => callbackCutoff(now, settings.appCallbackDays),
  batch: (db, tenantId, cutoff, size) =>
    rowsOf(
      db,
      sql`delete from ${appCallbacks} where id in (
            select id from ${appCallbacks}
            where tenant_id = ${tenantId} and status in ${SETTLED} and created_at < ${cutoff}
              and (resumed_at is not null or workflow_run_id is null)
            order by created_at limit ${size}
            for update skip locked)`,
    ),
};

/**
 * A batch that deletes up to `size` of the tenant's rows of `table` whose `at` is before the cut-off,
 * oldest first (rows with nothing else to check before they go).
 */
function deleteOlderThan(table: AnyPgTable & { id: AnyPgColumn; tenantId: AnyPgColumn }, at: AnyPgColumn) {
  return (db: Queryable, tenantId: string, cutoff: Date, size: number) =>
    rowsOf(
      db,
      sql`delete from ${table} where id in (
            select id from ${table}
            where tenant_id = ${tenantId} and ${at} < ${cutoff}
            order by ${at} limit ${size}
            for update skip locked)`,
    );
}

/** Webhook events received more than the same setting plus seven days ago (by their own receipt). */
const webhookEvents: RetentionTarget = {
  name: 'app_webhook_events',
  effect: 'delete',
  cutoff: (now, settings) => callbackCutoff(now, settings.appCallbackDays),
  batch: deleteOlderThan(appWebhookEvents, appWebhookEvents.receivedAt),
};

/** Drop-off events reported more than RETENTION_SUBMISSION_EVENT_DAYS ago (never fewer than 90 days). */
const dropOffEvents: RetentionTarget = {
  name: 'collection_drop_off_events',
  effect: 'delete',
  cutoff: (now, settings) => submissionEventCutoff(now, settings.submissionEventDays),
  batch: deleteOlderThan(collectionDropOffEvents, collectionDropOffEvents.reportedAt),
};

/** What a pass sweeps, in order: orphans are timed out before settled sessions are deleted. */
export const RETENTION_TARGETS: readonly RetentionTarget[] = [
  orphanedSessions,
  settledSessions,
  webhookEvents,
  dropOffEvents,
];

/** A target of one tenant (null: the engine's workflows, which are no tenant's): what the log line names for a capped or failed pair. */
export interface Pair {
  tenantId: string | null;
  target: string;
}

/** What one pass did: the log line's fields (and, later, the retention.deleted metric's counts). */
export interface PassResult {
  tenants: number;
  /** Rows deleted per target (those whose effect is delete), zero included. */
  deleted: Record<string, number>;
  timedOut: number;
  /** Pairs whose batches ran out with rows still due: the next pass goes on. */
  capped: Pair[];
  /** Pairs whose batch failed: logged, the pass went on with the next. */
  failed: Pair[];
}

export interface PassOptions {
  database: Database;
  logger: Logger;
  settings: RetentionSettings;
  /** The pass's clock: every cut-off is computed from it. */
  now: Date;
  limits?: BatchLimits;
  targets?: readonly RetentionTarget[];
  /**
   * The engine's workflows, swept after the tenants' rows: its API and RETENTION_ENGINE_HOURS (0 keeps
   * them forever). Absent: the engine's tables are left alone (a pass with no engine in its process).
   */
  engine?: { workflows: EngineWorkflows; hours: number };
}

/**
 * One tenant's target, batch after batch until none is due, the batch comes back short, or the pass has
 * spent its batches here. Answers the rows taken and whether it was capped.
 */
export async function drainPair(
  batch: (size: number) => Promise<number>,
  limits: BatchLimits,
): Promise<{ rows: number; capped: boolean }> {
  let rows = 0;
  for (let done = 1; ; done++) {
    const taken = await batch(limits.batchSize);
    rows += taken;
    const verdict = afterBatch(taken, done, limits);
    if (verdict !== 'more') return { rows, capped: verdict === 'capped' };
  }
}

/** One pass over every tenant, oldest tenant id first; logs one line with what it did. */
export async function sweepRetention(options: PassOptions): Promise<PassResult> {
  const { database, logger, settings, now } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const targets = options.targets ?? RETENTION_TARGETS;
  const result: PassResult = { tenants: 0, deleted: {}, timedOut: 0, capped: [], failed: [] };
  for (const target of targets) if (target.effect === 'delete') result.deleted[target.name] = 0;
  const cutoffs = targets.map((target) => ({ target, cutoff: target.cutoff(now, settings) }));
  const started = Date.now();
  for (const tenantId of await tenantIds(database.db)) {
    result.tenants += 1;
    for (const { target, cutoff } of cutoffs) {
      if (cutoff === null) continue;
      try {
        const { rows, capped } = await drainPair(
          (size) => target.batch(database.db, tenantId, cutoff, size),
          limits,
        );
        if (target.effect === 'delete')
          result.deleted[target.name] = (result.deleted[target.name] ?? 0) + rows;
        else result.timedOut += rows;
        if (capped) result.capped.push({ tenantId, target: target.name });
      } catch (error) {
        // Rows a failed batch had taken stay (its statement rolled back); the next pass tries again.
        result.failed.push({ tenantId, target: target.name });
        logger.warn({ err: error, tenantId, target: target.name }, 'a retention batch failed');
      }
    }
  }
  if (options.engine) await sweepEngine(database, options.engine, now, limits, result, logger);
  countRetentionDeleted(Object.values(result.deleted).reduce((sum, rows) => sum + rows, 0));
  logger.info({ retention: { ...result, durationMs: Date.now() - started } }, 'retention pass');
  return result;
}

/** The engine's workflows due for deletion, batch after batch, as a pair of no tenant. */
async function sweepEngine(
  database: Database,
  engine: NonNullable<PassOptions['engine']>,
  now: Date,
  limits: BatchLimits,
  result: PassResult,
  logger: Logger,
): Promise<void> {
  const cutoff = engineCutoff(now, engine.hours);
  if (cutoff === null) return;
  result.deleted[ENGINE_TARGET] = 0;
  try {
    const { rows, capped } = await drainPair(
      (size) => deleteDueWorkflows(database.db, engine.workflows, cutoff, size),
      limits,
    );
    result.deleted[ENGINE_TARGET] = rows;
    if (capped) result.capped.push({ tenantId: null, target: ENGINE_TARGET });
  } catch (error) {
    result.failed.push({ tenantId: null, target: ENGINE_TARGET });
    logger.warn({ err: error, target: ENGINE_TARGET }, 'a retention batch failed');
  }
}

async function tenantIds(db: Queryable): Promise<string[]> {
  const rows = await db.select({ id: tenants.id }).from(tenants).orderBy(tenants.id);
  return rows.map((row) => row.id);
}

export interface RetentionSweepOptions {
  database: Database;
  logger: Logger;
  settings: RetentionSettings & { intervalMinutes: number; engineHours: number };
  /** The engine whose workflows are swept; default the worker's launched DBOS; null: none swept. */
  engine?: EngineWorkflows | null;
  /** The pass's now; default the database's clock (the one that stamped the rows). */
  clock?: () => Promise<Date>;
  timer?: Timer;
  /** For the first pass's delay; default Math.random. */
  random?: () => number;
  limits?: BatchLimits;
}

/** The worker's sweep: a first pass within five minutes of the start, then every interval. */
export function startRetentionSweep(options: RetentionSweepOptions): Background {
  const { database, logger, settings } = options;
  const clock = options.clock ?? (() => readDatabaseNow(database.db));
  const workflows = options.engine === undefined ? launchedEngine : options.engine;
  const engine = workflows ? { workflows, hours: settings.engineHours } : null;
  return schedulePasses({
    firstDelayMs: firstPassDelayMs((options.random ?? Math.random)()),
    intervalMs: intervalMsOf(settings.intervalMinutes),
    pass: async () =>
      sweepRetention({
        database,
        logger,
        settings,
        now: await clock(),
        ...(options.limits ? { limits: options.limits } : {}),
        ...(engine ? { engine } : {}),
      }),
    onError: (error) => logger.error({ err: error }, 'the retention pass failed'),
    ...(options.timer ? { timer: options.timer } : {}),
  });
}
