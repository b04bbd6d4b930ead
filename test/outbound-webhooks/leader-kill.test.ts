// kill -9 of the worker reading the trail in the middle of its pass (real `platform start --role worker`
// processes on one database): the pass's deliveries and its cursor's move die together, another worker
// takes the trail over at its next pass, and every event reaches the receiver. The count of duplicates
// the receiver saw is asserted: zero here, since the dead pass had sent nothing (a send cut short after
// the receiver answered is sent again when its lease runs out, docs/outbound-webhooks.md).
// And kill -9 of a worker while its send is in flight: no attempt is recorded for the dead send (it dies
// with the outcome it never wrote), and the send made again once the lease ran out is recorded once.
import type { ChildProcess } from 'node:child_process';
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DeliveryPoster, startDeliverySender } from '../../src/outbound-webhooks/index.ts';
import { webhookDeliveries, webhookDeliveryAttempts } from '../../src/outbound-webhooks/tables.ts';
import { SECRET_KEY_HEX } from '../installs/support.ts';
import { startWorkerProcess, until } from '../runs/worker-process.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { cleanUpProcesses } from '../support/processes.ts';
import { type Receiver, startReceiver, verifySignature } from './receiver.ts';
import { addEndpoint, KEY, runCompleted } from './rows.ts';
import { insertDelivery } from './support.ts';

const EVENTS = 20;
let platform: TestPlatform;
let receiver: Receiver;
beforeAll(async () => {
  platform = await startTestPlatform();
  receiver = await startReceiver();
}, 120_000);
afterEach(cleanUpProcesses);
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

const workerEnv = (name: string) => ({
  DATABASE_URL: platform.config.databaseUrl as string,
  SECRET_STORE_KEY: SECRET_KEY_HEX,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  APP_RUNNER_URL: 'http://127.0.0.1:9',
  APP_RUNNER_TOKEN: 'runner-token-of-the-leader-kill-test',
  APP_CALL_TOKEN_SECRET: 'call-token-secret-of-the-leader-kill-test',
  WORKER_EXECUTOR_ID: name,
});

async function kill(child: ChildProcess): Promise<void> {
  const closed = new Promise((resolve) => child.once('close', resolve));
  process.kill(-(child.pid as number), 'SIGKILL');
  await closed;
}

it('loses no event when the leader dies mid-pass, and another worker takes over', async () => {
  const alpha = await platform.tenantId('alpha');
  const endpoint = await addEndpoint(platform.database, alpha, receiver.url, ['run.completed']);
  for (let i = 0; i < EVENTS; i++) await runCompleted(platform.database, alpha);

  // The test holds the cursor's row: the first worker's pass, having written its deliveries, waits there.
  const held = await platform.database.pool.connect();
  await held.query('begin');
  await held.query('select * from webhook_trail_cursor where id = 1 for update');
  const leader = await startWorkerProcess(workerEnv('leader'));
  const blocked = await until(
    'the leader’s pass blocked mid-way',
    async () => {
      const { rows } = await platform.database.pool.query<{ pid: number }>(
        `select a.pid from pg_stat_activity a where a.wait_event_type = 'Lock' and a.query like '%webhook_trail_cursor%'
        and exists (select 1 from pg_locks l where l.pid = a.pid and l.locktype = 'advisory' and l.granted)`,
      );
      return rows[0]?.pid ?? null;
    },
    90_000,
  );
  const pending = await platform.database.pool.query<{ n: number }>(
    'select count(*)::int as n from webhook_deliveries',
  );
  expect(pending.rows[0]?.n).toBe(0); // its inserts are not committed

  await kill(leader);
  await held.query('rollback');
  held.release();
  // The dead worker's backend ends its transaction without a commit.
  await until(
    'the dead pass rolled back',
    async () => {
      const { rows } = await platform.database.pool.query('select 1 from pg_stat_activity where pid = $1', [
        blocked,
      ]);
      return rows.length === 0 ? true : null;
    },
    30_000,
  );

  await startWorkerProcess(workerEnv('successor'));
  await until(
    'every event delivered',
    async () => (receiver.received.length >= EVENTS ? true : null),
    90_000,
  );
  const ids = receiver.received.map((got) => JSON.parse(got.body).id as string);
  const duplicates = ids.length - new Set(ids).size;
  expect(new Set(ids).size).toBe(EVENTS);
  expect(duplicates).toBe(0);
  for (const got of receiver.received) {
    expect(
      verifySignature(got.headers['x-service-signature'] as string, got.body, endpoint.secret, Date.now()),
    ).toBe(true);
  }
  const { rows } = await platform.database.db.execute<{ status: string; n: number }>(
    sql`select status, count(*)::int as n from webhook_deliveries group by status`,
  );
  await until('the outcomes written', async () => {
    const r = await platform.database.pool.query<{ n: number }>(
      "select count(*)::int as n from webhook_deliveries where status = 'delivered'",
    );
    return r.rows[0]?.n === EVENTS ? true : null;
  });
  expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(EVENTS);
}, 240_000);

it('records one attempt, not two, when a worker dies with its send in flight', async () => {
  const beta = await platform.tenantId('beta');
  const hanging = await startReceiver();
  hanging.answer.hang = true;
  const endpoint = await addEndpoint(platform.database, beta, hanging.url, ['run.completed']);
  const { auditId } = await runCompleted(platform.database, beta);
  // Queued as the trail reader queues it (its own pass finds it there and adds nothing).
  const delivery = await insertDelivery(platform.database.db, {
    tenantId: beta,
    endpointId: endpoint.id,
    auditEventId: auditId,
  });
  const doomed = await startWorkerProcess(workerEnv('doomed'));
  await until('the send in flight', async () => (hanging.received.length === 1 ? true : null), 90_000);
  await kill(doomed);
  const row = async () =>
    (
      await platform.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id))
    )[0];
  const attempts = () =>
    platform.database.db
      .select()
      .from(webhookDeliveryAttempts)
      .where(eq(webhookDeliveryAttempts.deliveryId, delivery.id));
  expect(await row()).toMatchObject({ status: 'pending', attempts: 0 });
  expect(await attempts()).toHaveLength(0);

  // The lease runs out (a minute; written here rather than waited for), and a live sender sends it again.
  await platform.database.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date() })
    .where(eq(webhookDeliveries.id, delivery.id));
  hanging.answer.hang = false;
  const poster = new DeliveryPoster({ allowPrivateNetworks: true });
  const sender = startDeliverySender({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    poster,
    key: KEY,
    idleMs: 20,
  });
  try {
    await until('delivered', async () => ((await row())?.status === 'delivered' ? true : null));
  } finally {
    await sender.stop();
    await poster.close();
    await hanging.close();
  }
  expect(await row()).toMatchObject({ attempts: 1, responseCode: 204 });
  expect((await attempts()).map((a) => [a.number, a.responseCode, a.error])).toEqual([[1, 204, null]]);
  // The receiver saw it twice, with one delivery id: the at-least-once case it deduplicates.
  expect(hanging.received.map((got) => got.headers['x-service-delivery'])).toEqual([
    delivery.id,
    delivery.id,
  ]);
}, 240_000);
