// DBOS Transact on the platform's own PostgreSQL (schema `dbos`), one queue per task queue name.
// DBOS is a process-wide singleton: workflows register before launch, and one launch serves every queue.
import os from 'node:os';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import type { Logger } from 'pino';
import { preparingPool } from '../db/preparing-pool.ts';
import { withoutQueryParameters } from '../error-text.ts';
import { errorForLog } from '../logging.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { ensureEnqueueTrigger } from './queue-listener.ts';
import { installQueueWake, type QueueWake } from './queue-wake.ts';

/** Task queues the worker serves: `apps` runs app calls apart, so slow vendors never hold up the rest. */
export const TASK_QUEUES = ['platform', 'apps'] as const;
export type TaskQueue = (typeof TASK_QUEUES)[number];

export const ENGINE_SCHEMA = 'dbos';
/** DBOS statuses after which a workflow never moves its run again (the runs' sweep, the sessions' resumer). */
export const ENDED_WORKFLOW = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);
const IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

/** The self-check: a workflow with one durable step, proving a queue is dispatched and steps checkpoint. */
async function selfCheckStep(queue: string): Promise<string> {
  return `${queue}:ok`;
}
async function selfCheckWorkflow(queue: string): Promise<string> {
  return DBOS.runStep(() => selfCheckStep(queue), { name: 'self-check-step' });
}
let selfCheck: ((queue: string) => Promise<string>) | null = null;
/** The self-check workflow's name: once ended, nothing reads it (the retention sweep deletes it). */
export const SELF_CHECK_WORKFLOW = 'platform.selfCheck';

export interface EngineOptions {
  databaseUrl: string;
  logger: Logger;
  /** Distinguishes workers for recovery; defaults to one per host and process. */
  executorId?: string;
  /** A tenant's app calls at once on the apps queue (APP_RUNNER_TENANT_CONCURRENCY; default 4). */
  appsPerTenant?: number;
  /** The engine's workflow and step spans, through the process's tracer provider (telemetry on). */
  tracing?: boolean;
  /**
   * WORKER_QUEUE_SAFETY_POLL_MS: a queue is polled on an enqueue notice, and at least this often
   * (docs/runs.md); 0 leaves DBOS polling every 20 ms.
   */
  queueSafetyPollMs?: number;
}

export const DEFAULT_QUEUE_SAFETY_POLL_MS = 2_000;
let queueWake: (QueueWake & { listen(url: string): void }) | null = null;
let pool: pg.Pool | null = null;

/**
 * The engine's connections, `max` of them (DBOS sizes its polling by it): DBOS's statements sent as named
 * prepared statements (db/preparing-pool.ts), its idle transactions bounded by the URL
 * (withIdleTransactionTimeout), a connection waited for as long as DBOS's own pool waits
 * (connectTimeoutMs). Its owner ends it.
 */
export const enginePool = (databaseUrl: string, max: number): pg.Pool =>
  preparingPool({
    connectionString: withIdleTransactionTimeout(databaseUrl),
    max,
    connectionTimeoutMillis: connectTimeoutMs(databaseUrl),
    application_name: 'apps-platform-engine',
  });

/** As DBOS's own pool waits for a connection: the URL's `connect_timeout` (seconds), else 10 s. */
export function connectTimeoutMs(databaseUrl: string): number {
  const seconds = Number.parseInt(new URL(databaseUrl).searchParams.get('connect_timeout') ?? '', 10);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 10_000;
}

export async function launchEngine(options: EngineOptions): Promise<void> {
  const log = options.logger.child({ component: 'dbos' });
  pool = enginePool(options.databaseUrl, 24);
  DBOS.setConfig({
    name: 'apps-platform',
    systemDatabaseUrl: withIdleTransactionTimeout(options.databaseUrl),
    systemDatabasePool: pool,
    systemDatabaseSchemaName: ENGINE_SCHEMA,
    applicationVersion: PLATFORM_VERSION,
    executorID: options.executorId ?? defaultExecutorId(),
    tracingEnabled: options.tracing ?? false,
    logger: {
      // The engine's start-up chatter is debug detail for the platform.
      info: (entry) => log.debug({ entry: engineEntry(entry) }, 'dbos'),
      debug: (entry) => log.debug({ entry: engineEntry(entry) }, 'dbos'),
      warn: (entry) => log.warn({ entry: engineEntry(entry) }, 'dbos'),
      // DBOS passes an error's message, and the error itself beside it (its `stack` there quotes the
      // whole cause, row data included): the error is what is written, by the err serializer.
      error: (entry, metadata) =>
        log.error({ err: metadata?.error instanceof Error ? metadata.error : entry }, 'dbos'),
    },
  });
  selfCheck ??= DBOS.registerWorkflow(selfCheckWorkflow, { name: SELF_CHECK_WORKFLOW });
  const safetyMs = options.queueSafetyPollMs ?? DEFAULT_QUEUE_SAFETY_POLL_MS;
  // Gated from the first tick: until the listener holds, every tick still polls (queue-wake.ts).
  queueWake = safetyMs > 0 ? installQueueWake({ safetyMs, logger: log }) : null;
  await DBOS.launch().catch(async (error: unknown) => {
    // The pool is ours (systemDatabasePool): a launch that failed leaves it open.
    await pool?.end().catch(() => {});
    pool = null;
    throw error;
  });
  const settings = queueSettings(options.appsPerTenant ?? DEFAULT_APPS_PER_TENANT);
  for (const queue of TASK_QUEUES) await DBOS.registerQueue(queue, settings[queue]);
  if (queueWake) {
    await ensureEnqueueTrigger(options.databaseUrl, ENGINE_SCHEMA);
    queueWake.listen(options.databaseUrl);
  }
}

/** The queue gate of the launched engine (null when WORKER_QUEUE_SAFETY_POLL_MS is 0). */
export const engineQueueWake = (): QueueWake | null => queueWake;

const DEFAULT_APPS_PER_TENANT = 4;
/** The apps queue is partitioned by tenant: every enqueue on it names one (the self-check its own). */
const SELF_CHECK_PARTITION = 'self-check';

/**
 * What DBOS logs, without a failed step's data: its lines quote errors and their stacks (a step retried,
 * a workflow failed), and a query error's message holds the query's parameters — the run's context, the
 * vendor's output (logging.ts).
 */
function engineEntry(entry: unknown): unknown {
  if (typeof entry === 'string') return withoutQueryParameters(entry);
  return entry instanceof Error ? errorForLog(entry) : entry;
}

/**
 * `platform` holds runs, which mostly wait on their app calls: many at once per process. `apps` bounds
 * app calls apart: 8 per process (the runner's own APP_RUNNER_CONCURRENCY is 8) and `appsPerTenant` of
 * one tenant across every worker (APP_RUNNER_TENANT_CONCURRENCY: the runner's bound, so a burst of one
 * tenant waits in the queue instead of being refused busy). DBOS polls a queue every 1000 ms by default:
 * a step on a queue would wait up to a second to start, so both tick every 20 ms, a tick reaching the
 * database only on an enqueue notice or when work may be startable (queue-wake.ts, docs/runs.md).
 */
type QueueSettings = NonNullable<Parameters<typeof DBOS.registerQueue>[1]>;
const queueSettings = (appsPerTenant: number): Record<TaskQueue, QueueSettings> => ({
  platform: { workerConcurrency: 64, minPollingIntervalMs: 20 },
  apps: { workerConcurrency: 8, partitionConcurrency: appsPerTenant, minPollingIntervalMs: 20 },
});

/**
 * A stable executor id: DBOS recovers, on launch, the workflows its executor id left unfinished. The
 * default `local` would let two processes recover the same run; a random one would orphan runs after a
 * restart. The platform passes WORKER_EXECUTOR_ID (config.ts); a caller giving none gets the host's name.
 */
const defaultExecutorId = () => `${os.hostname()}-worker`;

/**
 * DBOS bounds idle transactions of its pool at 60 s. Left to itself it queues a `SET` on every new
 * connection, ahead of the query that asked for the connection, which pg reports as a deprecated
 * concurrent `client.query()`. Given in the URL, the server applies the same bound as the connection
 * starts, and DBOS sends nothing.
 */
export function withIdleTransactionTimeout(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get('options');
  if (options?.includes('idle_in_transaction_session_timeout')) return databaseUrl;
  const bound = `-c idle_in_transaction_session_timeout=${IDLE_TRANSACTION_TIMEOUT_MS}`;
  url.searchParams.set('options', options ? `${options} ${bound}` : bound);
  return url.toString();
}

/** Runs the self-check through a queue and waits for its result. */
/** How often a start's self-check asks whether its workflow ended. */
const SELF_CHECK_POLL_MS = 50;

export async function runSelfCheck(queue: TaskQueue, timeoutMs: number): Promise<boolean> {
  if (!selfCheck) throw new Error('engine not launched');
  const handle = await DBOS.startWorkflow(selfCheck, {
    queueName: queue,
    timeoutMS: timeoutMs,
    ...(queue === 'apps' ? { enqueueOptions: { queuePartitionKey: SELF_CHECK_PARTITION } } : {}),
  })(queue);
  // Polled every 50 ms, not at DBOS's default second: the check ends within milliseconds, and every start
  // of a worker (each `platform start`, each test's stack) otherwise waited up to a second per check.
  return (await handle.getResult({ pollingIntervalMs: SELF_CHECK_POLL_MS })) === `${queue}:ok`;
}

export async function shutdownEngine(): Promise<void> {
  await DBOS.shutdown();
  await queueWake?.stop();
  queueWake = null;
  // The pool is ours, not DBOS's (systemDatabasePool): DBOS leaves it open.
  await pool?.end();
  pool = null;
}
