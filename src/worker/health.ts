// Worker health on WORKER_HEALTH_PORT: { status, workers: [{ taskQueue, state }], temporal }.
// `temporal` keeps the spec's field name; here it reports the durable engine (DBOS) and its database.
import pg from 'pg';
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

/** Opens a short connection (not from a pool) so a dead server shows at once. */
export async function databaseAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
