// What a worker runs beside its queues for runs: the sweep of stranded runs and the resumer of waiting
// ones (docs/runs.md "How a run ends", "Waiting on a vendor session"). Started once the engine is up, stopped before it.
import type { Logger } from 'pino';
import type { Database } from '../db/pool.ts';
import { startResumer } from '../vendor-sessions/index.ts';
import { failOpenRun } from './run-store.ts';
import { startRunSweep } from './sweep.ts';
import { startContinuation } from './workflows.ts';

export interface RunsBackgroundOptions {
  /** The resumer's interval (one second by default; tests shorten it). */
  resumeIntervalMs?: number;
}

export function runsBackground(database: Database, logger: Logger, options: RunsBackgroundOptions = {}) {
  const sweep = startRunSweep({ database, logger });
  const resumer = startResumer({
    database,
    logger,
    resume: startContinuation,
    failRun: (runId, error) => failOpenRun(database, runId, error),
    ...(options.resumeIntervalMs ? { intervalMs: options.resumeIntervalMs } : {}),
  });
  return {
    async stop() {
      await Promise.all([sweep.stop(), resumer.stop()]);
    },
  };
}
