// The worker role: launches the durable engine, proves each task queue with a self-check, and
// serves /healthz when WORKER_HEALTH_PORT is set. Later issues register their workflows here.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { databaseAnswers } from '../db/probe.ts';
import {
  engineQueueWake,
  launchEngine,
  runSelfCheck,
  shutdownEngine,
  TASK_QUEUES,
  type TaskQueue,
} from './engine.ts';
import { type QueueState, summarizeHealth, type WorkerHealth } from './health.ts';
import type { QueueWake } from './queue-wake.ts';

export { ENGINE_SCHEMA, TASK_QUEUES } from './engine.ts';

export interface WorkerOptions {
  databaseUrl: string;
  logger: Logger;
  healthPort: number | null;
  healthHost?: string;
  /**
   * Registers the workflows this worker runs (the runs layer's), before the engine launches: the worker
   * knows no layer above it. Absent: no workflow runs (its queues still serve).
   */
  registerWorkflows?: () => void;
  /**
   * Starts what the worker runs beside its queues once the engine is up (the runs layer's sweep); stopped
   * before the engine.
   */
  startBackground?: () => { stop(): Promise<void> };
  executorId?: string;
  /** A tenant's app calls at once on the apps queue (APP_RUNNER_TENANT_CONCURRENCY). */
  appsPerTenant?: number;
  /** The engine's workflow and step spans, through the process's tracer provider (telemetry on). */
  tracing?: boolean;
  /** WORKER_QUEUE_SAFETY_POLL_MS (docs/runs.md, "Queue dispatch"); 0 leaves DBOS polling every 20 ms. */
  queueSafetyPollMs?: number;
}

export interface RunningWorker {
  health(): Promise<WorkerHealth>;
  /** The queue gate: how many ticks polled; closing its listener (tests). Null when off. */
  queueWake: QueueWake | null;
  healthUrl: string | null;
  close(): Promise<void>;
}

const SELF_CHECK_TIMEOUT_MS = 30_000;

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const states = new Map<TaskQueue, QueueState>(TASK_QUEUES.map((q) => [q, 'starting']));
  options.registerWorkflows?.();
  await launchEngine({
    databaseUrl: options.databaseUrl,
    logger: options.logger,
    ...(options.executorId ? { executorId: options.executorId } : {}),
    ...(options.appsPerTenant ? { appsPerTenant: options.appsPerTenant } : {}),
    tracing: options.tracing ?? false,
    ...(options.queueSafetyPollMs !== undefined ? { queueSafetyPollMs: options.queueSafetyPollMs } : {}),
  });
  await Promise.all(
    TASK_QUEUES.map(async (queue) => {
      try {
        states.set(queue, (await runSelfCheck(queue, SELF_CHECK_TIMEOUT_MS)) ? 'running' : 'failed');
      } catch (error) {
        options.logger.error({ err: error, taskQueue: queue }, 'worker self-check failed');
        states.set(queue, 'failed');
      }
    }),
  );
  options.logger.info({ workers: Object.fromEntries(states) }, 'worker started');
  const background = options.startBackground?.() ?? null;

  const health = async () => summarizeHealth(states, await databaseAnswers(options.databaseUrl));
  let server: FastifyInstance | null = null;
  let healthUrl: string | null = null;
  if (options.healthPort !== null) {
    const app = Fastify({ logger: false });
    server = app;
    app.get('/healthz', async (_request, reply) => {
      const report = await health();
      return reply
        .status(report.status === 'ok' ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(report);
    });
    healthUrl = await app.listen({ host: options.healthHost ?? '0.0.0.0', port: options.healthPort });
  }

  return {
    health,
    queueWake: engineQueueWake(),
    healthUrl,
    close: async () => {
      for (const queue of TASK_QUEUES) states.set(queue, 'stopped');
      await background?.stop();
      await server?.close();
      await shutdownEngine();
    },
  };
}
