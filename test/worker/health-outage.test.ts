// GET /healthz while the worker's database goes away and comes back: the worker's connection to
// PostgreSQL runs through a TCP relay this test holds (a network fault, not a stand-in for the
// database). While the relay refuses and drops connections the report is 503 with the database
// unreachable and every queue still running; once it relays again, 200. DBOS is a process-wide
// singleton: this file launches it once (vitest gives each file its own process). While the database is
// away, the queue gate backs off its polls (src/worker/queue-wake-rule.ts).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { createTestDatabase } from '../support/database.ts';
import { type DatabaseRelay, startDatabaseRelay } from '../support/database-relay.ts';

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
let relay: DatabaseRelay;
let worker: RunningWorker;

beforeAll(async () => {
  const direct = new URL(await createTestDatabase());
  relay = await startDatabaseRelay(direct);
  const relayed = new URL(direct);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  const logger = createLogger({
    service: 'apps-platform-worker-test',
    level: 'fatal',
    env: 'test',
    destination: quiet,
  });
  worker = await startWorker({
    databaseUrl: relayed.toString(),
    logger,
    healthPort: 0,
    healthHost: '127.0.0.1',
  });
}, 60_000);

afterAll(async () => {
  relay?.restore();
  await worker?.close();
  await relay?.close();
});

const healthz = async () => {
  const response = await fetch(`${worker.healthUrl}/healthz`);
  return { status: response.status, body: await response.json() };
};

it('answers 503 with the database unreachable while it is away, and 200 once it is back', async () => {
  expect(await healthz()).toEqual({
    status: 200,
    body: {
      status: 'ok',
      workers: [
        { taskQueue: 'platform', state: 'running' },
        { taskQueue: 'apps', state: 'running' },
      ],
      temporal: { engine: 'dbos', database: 'connected' },
    },
  });
  relay.cut();
  expect(await healthz()).toEqual({
    status: 503,
    body: {
      status: 'unavailable',
      workers: [
        { taskQueue: 'platform', state: 'running' },
        { taskQueue: 'apps', state: 'running' },
      ],
      temporal: { engine: 'dbos', database: 'unreachable' },
    },
  });
  relay.restore();
  await expect.poll(async () => (await healthz()).status, { timeout: 30_000, interval: 100 }).toBe(200);
}, 90_000);

it('asks a database that is away less and less often: most ticks of its queues are skipped', async () => {
  const wake = worker.queueWake;
  if (!wake) throw new Error('the worker runs without its queue gate');
  relay.cut();
  const before = wake.stats();
  // Without the gate's retry wait every tick would poll (the listener is gone with the database) and
  // none would be skipped: the poll below would time out.
  await expect
    .poll(() => wake.stats().skipped - before.skipped, { timeout: 30_000, interval: 50 })
    .toBeGreaterThanOrEqual(200);
  const during = wake.stats();
  // Per queue: failed polls 40, 80, 160, 320 … ms apart, up to the safety interval (2 s); a tick is 20 ms.
  expect(during.polls - before.polls).toBeLessThan((during.skipped - before.skipped) / 4);
  relay.restore();
  await expect.poll(async () => (await healthz()).status, { timeout: 30_000, interval: 100 }).toBe(200);
}, 90_000);
