// A slow endpoint slows only itself (docs/outbound-webhooks.md "Fair sending"), on real PostgreSQL, the real
// sender and poster and real HTTP: one tenant's endpoints that take a request and never answer (their
// timeout set to ten minutes, so they stay in flight for the whole test) hold only their tenant's and their
// endpoint's share of the sender's window and of the connections, while a delivery of another tenant, or
// of another endpoint, due after all of theirs, is delivered. No timing: what is asserted is the state
// (delivered here, every hanging send still in flight there, claimed no more than the share).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DeliveryPoster } from '../../src/outbound-webhooks/sending/post.ts';
import { startDeliverySender } from '../../src/outbound-webhooks/sending/sender.ts';
import { webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/tables.ts';
import { until } from '../runs/worker-process.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type HangingReceiver, startHangingReceiver } from './receiver.ts';
import { addEndpoint, KEY, runCompleted } from './rows.ts';

let platform: TestPlatform;
let alpha: string;
let beta: string;
const receivers: HangingReceiver[] = [];
const senders: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await platform.tenantId('alpha');
  beta = await platform.tenantId('beta');
}, 120_000);
afterEach(async () => {
  // The hanging connections first: their sends then end (reset), and the senders can stop.
  for (const r of receivers.splice(0)) await r.close();
  for (const s of senders.splice(0)) await s.close();
  await platform.database.db.delete(webhookEndpoints);
});
afterAll(async () => platform?.close());

const LIMITS = { window: 64, perTenant: 16, perEndpoint: 8 };
const TEN_MINUTES = 600_000;

async function hangingReceiver() {
  const r = await startHangingReceiver();
  receivers.push(r);
  return r;
}

function sender() {
  const poster = new DeliveryPoster({ allowPrivateNetworks: true, timeoutMs: TEN_MINUTES });
  const s = startDeliverySender({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    poster,
    key: KEY,
    limits: LIMITS,
    idleMs: 20,
  });
  senders.push({
    close: async () => {
      await s.stop();
      await poster.close();
    },
  });
  return s;
}

/** `count` deliveries of new run ends to each endpoint, due `ago` ms ago, a millisecond apart. */
async function queue(tenantId: string, endpointIds: string[], count: number, ago: number) {
  const due = Date.now() - ago;
  for (let k = 0; k < count; k++) {
    const { auditId } = await runCompleted(platform.database, tenantId);
    await platform.database.db.insert(webhookDeliveries).values(
      endpointIds.map((endpointId) => ({
        tenantId,
        endpointId,
        eventId: randomUUID(),
        auditEventId: auditId,
        eventType: 'run.completed',
        occurredAt: new Date(),
        nextAttemptAt: new Date(due + k),
      })),
    );
  }
}

const rowsOf = (endpointId: string) =>
  platform.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

/** The endpoints' deliveries a sender holds (leased: due again only once the lease runs out). */
async function held(endpointIds: string[]) {
  const leased = Date.now() + 30_000;
  let n = 0;
  for (const id of endpointIds)
    n += (await rowsOf(id)).filter((r) => r.nextAttemptAt.getTime() > leased).length;
  return n;
}

const delivered = (endpointId: string) => async () =>
  (await rowsOf(endpointId))[0]?.status === 'delivered' ? true : null;

it('sends another tenant’s delivery while one tenant’s 16 endpoints hang, on the same origin', async () => {
  const receiver = await hangingReceiver();
  const hanging: string[] = [];
  for (let i = 0; i < 16; i++)
    hanging.push(
      (await addEndpoint(platform.database, alpha, `${receiver.url}/hang/${i}`, ['run.completed'])).id,
    );
  // 128 deliveries of the hanging tenant, more than the whole window.
  await queue(alpha, hanging, 8, 60_000);
  const s = sender();
  await until('the hanging tenant’s share of sends hanging', async () =>
    receiver.hung === LIMITS.perTenant ? true : null,
  );
  // Only now is the other tenant's delivery due, on the same host as the hanging ones.
  const well = await addEndpoint(platform.database, beta, `${receiver.url}/ok`, ['run.completed']);
  await queue(beta, [well.id], 1, 0);
  s.wake();
  await until('the other tenant’s delivery delivered', delivered(well.id), 25_000);
  // Every hanging send is still in flight (no outcome written), and the tenant holds its share, no more.
  for (const id of hanging) expect((await rowsOf(id)).every((r) => r.attempts === 0)).toBe(true);
  expect(await held(hanging)).toBe(LIMITS.perTenant);
  expect(receiver.hung).toBe(LIMITS.perTenant);
  expect(receiver.answered).toBe(1);
}, 60_000);

it('sends to a tenant’s other endpoint while one of its endpoints hangs', async () => {
  const receiver = await hangingReceiver();
  const hanging = await addEndpoint(platform.database, alpha, `${receiver.url}/hang/0`, ['run.completed']);
  // More than the whole window.
  await queue(alpha, [hanging.id], LIMITS.window + 6, 60_000);
  const s = sender();
  await until('the hanging endpoint’s share of sends hanging', async () =>
    receiver.hung === LIMITS.perEndpoint ? true : null,
  );
  const well = await addEndpoint(platform.database, alpha, `${receiver.url}/ok`, ['run.completed']);
  await queue(alpha, [well.id], 1, 0);
  s.wake();
  await until('the other endpoint’s delivery delivered', delivered(well.id), 25_000);
  expect((await rowsOf(hanging.id)).every((r) => r.attempts === 0)).toBe(true);
  expect(await held([hanging.id])).toBe(LIMITS.perEndpoint);
  expect(receiver.hung).toBe(LIMITS.perEndpoint);
}, 60_000);
