// Worker health on WORKER_HEALTH_PORT: { status, workers: [{ taskQueue, state }], temporal }.
// `temporal` keeps its published field name; here it reports the durable engine (DBOS) and its database.
import type { TaskQueue } from './engine.ts';

export type QueueState = 'starting' | 'running' | 'failed' | 'stopped';

export interface WorkerHealth {
  status: 'ok' | 'unavailable';
  workers: { taskQueue: TaskQueue; state: QueueState }[];
  temporal: { engine: 'dbos'; database: 'connected' | 'unreachable' };
}

/** Healthy when every queue runs and the engine's database answers. Pure. */
export function summarizeHealth(
  states: ReadonlyMap<TaskQueue, QueueState>,
  databaseConnected: boolean,
): WorkerHealth {
  const workers = [...states].map(([taskQueue, state]) => ({ taskQueue, state }));
  const ok = databaseConnected && workers.length > 0 && workers.every((w) => w.state === 'running');
  return {
    status: ok ? 'ok' : 'unavailable',
    workers,
    temporal: { engine: 'dbos', database: databaseConnected ? 'connected' : 'unreachable' },
  };
}
