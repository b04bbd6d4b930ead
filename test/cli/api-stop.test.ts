// Stopping the api waits for the requests in flight, not for the client's keep-alive connection: a
// response sent while the api stops says `connection: close` and ends its connection, so the stop ends
// with it (it used to idle on for keepAliveTimeout, 72 s, while Ctrl-C waited). The request is held in
// flight for real: it waits on a table lock the test holds, seen in pg_stat_activity.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { portOpen } from '../support/processes.ts';

let platform: TestPlatform;
let locker: pg.Client;
beforeAll(async () => {
  platform = await startTestPlatform();
  locker = new pg.Client(platform.config.databaseUrl as string);
  await locker.connect();
});
afterAll(async () => {
  await locker?.end();
});

/** Resolves once a backend of the platform's database waits for a lock (the held request's query). */
async function requestWaitsOnLock(): Promise<void> {
  for (;;) {
    const { rows } = await locker.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    if (rows[0].waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function untilClosed(port: number): Promise<void> {
  while (await portOpen(port)) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('ends a keep-alive connection with the response it was waiting for, and the stop with it', async () => {
  const token = await platform.token();
  const { port } = new URL(platform.url);
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE');

  const socket = net.connect(Number(port), '127.0.0.1');
  let answer = '';
  let headersRead: () => void = () => {};
  const headers = new Promise<void>((resolve) => {
    headersRead = resolve;
  });
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk;
    if (answer.includes('\r\n\r\n')) headersRead();
  });
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // HTTP/1.1: keep-alive unless either side says otherwise.
  socket.write(`GET /tenants/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  await requestWaitsOnLock();

  const stopped = platform.close();
  // The listener is closed once the stop has begun: the response comes after that.
  await untilClosed(Number(port));
  await locker.query('COMMIT');

  await headers;
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
  await socketClosed;
  await stopped;
});
