// GET /healthz while the worker's database goes away and comes back: the worker's connection to
// PostgreSQL runs through a TCP relay this test holds (a network fault, not a stand-in for the
// database). While the relay refuses and drops connections the report is 503 with the database
// unreachable and every queue still running; once it relays again, 200. DBOS is a process-wide
// singleton: this file launches it once (vitest gives each file its own process).
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { createTestDatabase } from '../support/database.ts';

/** A relay from a local port to PostgreSQL that can be cut (connections dropped and refused) and restored. */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
let relay: Awaited<ReturnType<typeof startRelay>>;
let worker: RunningWorker;

beforeAll(async () => {
  const direct = new URL(await createTestDatabase());
  relay = await startRelay(direct);
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
