// A delivery's attempts (docs/outbound-webhooks.md "Attempts") on the real api and the real sender over
// real HTTP: each attempt recorded with its code, duration, error and the answer's first KiB (a 500, then
// a 204 after a retry through the API; a receiver that hangs past the timeout); the listing newest first,
// paged, the answer redacted without runs:context, another tenant's delivery 404, bad input 400; the
// attempts go with their delivery and with its endpoint.
import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DeliveryPoster,
  startDeliverySender,
  webhookDeliveries,
  webhookDeliveryAttempts,
} from '../../src/outbound-webhooks/index.ts';
import { expectError, UUID } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import { until } from '../runs/worker-process.ts';
import type { TestPlatform } from '../support/platform.ts';
import { type Receiver, startReceiver } from './receiver.ts';
import { runCompleted } from './rows.ts';
import {
  type DeliveryAnswer,
  insertDelivery,
  KEY_HEX,
  startWebhooksPlatform,
  webhooksCalls,
} from './support.ts';

interface Attempt {
  id: string;
  deliveryId: string;
  number: number;
  attemptedAt: string;
  durationMs: number;
  responseCode: number | null;
  error: string | null;
  responseBody: string | null;
}
interface Attempts {
  items: Attempt[];
  total: number;
  totalIsEstimate: boolean;
}

let platform: TestPlatform;
let api: ReturnType<typeof webhooksCalls>;
const open: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  platform = await startWebhooksPlatform({ allowPrivateNetworks: true });
  api = webhooksCalls(platform);
}, 120_000);
afterEach(async () => {
  for (const part of open.splice(0).reverse()) await part.close();
});
afterAll(async () => platform?.close());

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  open.push(r);
  return r;
}

/** The worker's sender, in this process, on the real clock. */
function sender(timeoutMs?: number) {
  const poster = new DeliveryPoster({ allowPrivateNetworks: true, ...(timeoutMs ? { timeoutMs } : {}) });
  const s = startDeliverySender({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    poster,
    key: Buffer.from(KEY_HEX, 'hex'),
    idleMs: 20,
  });
  open.push({
    close: async () => {
      await s.stop();
      await poster.close();
    },
  });
  return s;
}

/** A tenant's endpoint (through the api) and one delivery of a run's end to it, due now. */
async function dueDelivery(tenant: string, url: string) {
  const token = await api.token(tenant);
  const tenantId = await platform.tenantId(tenant);
  const endpoint = await api.create(token, { url, events: ['run.completed'] });
  const { auditId } = await runCompleted(platform.database, tenantId);
  const delivery = await insertDelivery(platform.database.db, {
    tenantId,
    endpointId: endpoint.id,
    auditEventId: auditId,
  });
  return { token, tenantId, endpointId: endpoint.id, delivery };
}

const deliveryRow = async (id: string) =>
  (await platform.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0];
const attemptsOf = async (token: string, id: string, query = '') =>
  ok<Attempts>(await api.call(`/webhook-deliveries/${id}/attempts${query}`, token));

describe('the sender records each attempt', () => {
  it('a 500, then a 204 after a retry through the API: two attempts with their codes, durations and answers', async () => {
    const r = await receiver();
    r.answer.status = 500;
    r.answer.body = '{"error":"database down"}\u202e';
    const { token, delivery } = await dueDelivery('attempts', `${r.url}/in`);
    const s = sender();
    await until('the first attempt written', async () =>
      (await deliveryRow(delivery.id))?.attempts === 1 ? true : null,
    );
    const first = await attemptsOf(token, delivery.id);
    const failed = await deliveryRow(delivery.id);
    expect(first).toEqual({
      items: [
        {
          id: expect.stringMatching(UUID),
          deliveryId: delivery.id,
          number: 1,
          attemptedAt: failed?.lastAttemptAt?.toISOString(),
          durationMs: failed?.latencyMs,
          responseCode: 500,
          error: 'the endpoint answered 500',
          // The reordering mark is shown as U+FFFD, never applied.
          responseBody: '{"error":"database down"}\ufffd',
        },
      ],
      total: 1,
      totalIsEstimate: false,
    });
    expect(Number.isInteger(first.items[0]?.durationMs)).toBe(true);

    r.answer.status = 204;
    r.answer.body = undefined;
    await ok<DeliveryAnswer>(await api.call(`/webhook-deliveries/${delivery.id}/retry`, token, 'POST'));
    s.wake();
    await until('delivered', async () =>
      (await deliveryRow(delivery.id))?.status === 'delivered' ? true : null,
    );
    const delivered = await deliveryRow(delivery.id);
    const both = await attemptsOf(token, delivery.id);
    expect(both.total).toBe(2);
    expect(both.items.map((a) => [a.number, a.responseCode, a.error, a.responseBody])).toEqual([
      [2, 204, null, null],
      [1, 500, 'the endpoint answered 500', '{"error":"database down"}\ufffd'],
    ]);
    expect(both.items[0]).toMatchObject({
      attemptedAt: delivered?.lastAttemptAt?.toISOString(),
      durationMs: delivered?.latencyMs,
    });
    expect(r.received).toHaveLength(2);

    // webhooks:read without runs:context: the receiver's answer is not shown (null stays null).
    const reader = await api.token('attempts', ['webhooks:read']);
    expect((await attemptsOf(reader, delivery.id)).items.map((a) => a.responseBody)).toEqual([
      null,
      '[redacted]',
    ]);
  });

  it('a receiver that hangs past the timeout: an attempt with no code and the timeout in words', async () => {
    const r = await receiver();
    r.answer.hang = true;
    const { token, delivery } = await dueDelivery('attempts-hang', `${r.url}/slow`);
    sender(200);
    await until('the attempt written', async () =>
      (await deliveryRow(delivery.id))?.attempts === 1 ? true : null,
    );
    const { items } = await attemptsOf(token, delivery.id);
    expect(items).toEqual([
      expect.objectContaining({
        number: 1,
        responseCode: null,
        error: 'no answer within 0.2 s',
        responseBody: null,
      }),
    ]);
    // It lasted the whole wait (a timer never fires early; the figure is rounded to the millisecond).
    expect(items[0]?.durationMs).toBeGreaterThanOrEqual(199);
    expect(r.received).toHaveLength(1);
  });
});

describe('GET /webhook-deliveries/:id/attempts', () => {
  /** A delivery of the tenant with `n` attempts written as the sender writes them. */
  async function triedDelivery(tenant: string, n: number) {
    const { token, tenantId, endpointId, delivery } = await dueDelivery(
      tenant,
      'https://hooks.example.com/in',
    );
    const start = Date.parse('2030-04-01T10:00:00Z');
    for (let number = 1; number <= n; number++) {
      await platform.database.db.insert(webhookDeliveryAttempts).values({
        tenantId,
        deliveryId: delivery.id,
        number,
        attemptedAt: new Date(start + number * 60_000),
        durationMs: 10 * number,
        responseCode: 503,
        error: 'the endpoint answered 503',
        responseBody: `busy ${number}`,
      });
    }
    return { token, tenantId, endpointId, delivery };
  }

  it('pages them newest first, and never shows another tenant’s', async () => {
    const { token, delivery } = await triedDelivery('attempts-paged', 7);
    const numbers = async (query: string) =>
      (await attemptsOf(token, delivery.id, query)).items.map((a) => a.number);
    expect(await numbers('')).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const page = await attemptsOf(token, delivery.id, '?limit=3&offset=2');
    expect(page.items.map((a) => a.number)).toEqual([5, 4, 3]);
    expect(page).toMatchObject({ total: 7, totalIsEstimate: false });
    expect(page.items[0]).toMatchObject({
      attemptedAt: '2030-04-01T10:05:00.000Z',
      durationMs: 50,
      responseBody: 'busy 5',
    });
    expect(await numbers('?offset=7')).toEqual([]);

    // Another tenant's delivery is not found, as one that does not exist.
    const stranger = await api.token('attempts-stranger');
    await expectError(
      await api.call(`/webhook-deliveries/${delivery.id}/attempts`, stranger),
      404,
      'not_found',
    );
    await expectError(
      await api.call(`/webhook-deliveries/${randomUUID()}/attempts`, token),
      404,
      'not_found',
    );
    // An attempt row naming another tenant is never listed under this one's delivery.
    await platform.database.db.insert(webhookDeliveryAttempts).values({
      tenantId: await platform.tenantId('attempts-stranger'),
      deliveryId: delivery.id,
      number: 8,
      attemptedAt: new Date(),
      durationMs: 1,
    });
    expect(await numbers('?limit=1')).toEqual([7]);
  });

  it.each([
    ['/webhook-deliveries/nope/attempts', 'params.id'],
    ['/webhook-deliveries/ID/attempts?limit=0', 'query.limit'],
    ['/webhook-deliveries/ID/attempts?limit=101', 'query.limit'],
    ['/webhook-deliveries/ID/attempts?offset=-1', 'query.offset'],
    ['/webhook-deliveries/ID/attempts?page=2', 'query.page'],
  ])('refuses %s at %s', async (path, at) => {
    const token = await api.token('attempts-refused');
    const error = await expectError(
      await api.call(path.replace('ID', randomUUID()), token),
      400,
      'validation_error',
    );
    expect((error.details?.issues as { path: string }[]).map((issue) => issue.path)).toContain(at);
  });

  it('goes with its delivery, and with its endpoint’s deletion', async () => {
    const one = await triedDelivery('attempts-gone', 2);
    const two = await triedDelivery('attempts-gone', 3);
    const left = async (ids: string[]) =>
      platform.database.db
        .select({ id: webhookDeliveryAttempts.id })
        .from(webhookDeliveryAttempts)
        .where(inArray(webhookDeliveryAttempts.deliveryId, ids));
    await platform.database.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, one.delivery.id));
    expect(await left([one.delivery.id])).toHaveLength(0);
    expect(await left([two.delivery.id])).toHaveLength(3);
    const removed = await api.call(`/webhook-endpoints/${two.endpointId}`, two.token, 'DELETE');
    expect(removed.status).toBe(204);
    expect(await left([two.delivery.id])).toHaveLength(0);
  });
});
