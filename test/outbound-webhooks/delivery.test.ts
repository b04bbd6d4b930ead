// The worker side of outbound webhooks on real PostgreSQL and real HTTP (docs/outbound-webhooks.md):
// audit rows become deliveries for the subscribed, enabled endpoints that existed when the event
// happened, after the ten-second hold; each arrives signed as the spec says and verifies with a receiver
// written from the spec's words; the body's id is one per event; a failing endpoint walks the whole
// ladder on an injected clock and ends exhausted, failing and notified; redirects are not followed.
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../src/notifications/tables.ts';
import { startOutboundWebhooks } from '../../src/outbound-webhooks/background.ts';
import { fanoutPass } from '../../src/outbound-webhooks/fan-out/fan-out-store.ts';
import { DeliveryPoster } from '../../src/outbound-webhooks/sending/post.ts';
import { RETRY_DELAYS_MS } from '../../src/outbound-webhooks/sending/retry-rules.ts';
import { type DeliverySender, startDeliverySender } from '../../src/outbound-webhooks/sending/sender.ts';
import { webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/tables.ts';
import { until } from '../runs/worker-process.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type Receiver, startReceiver, verifySignature } from './receiver.ts';
import { addEndpoint, deliveriesOf, endpointRow, KEY, runCompleted } from './rows.ts';

let platform: TestPlatform;
let alpha: string;
let beta: string;
const open: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await platform.tenantId('alpha');
  beta = await platform.tenantId('beta');
}, 120_000);
afterEach(async () => {
  for (const part of open.splice(0).reverse()) await part.close();
  await platform.database.db.delete(webhookEndpoints);
});
afterAll(async () => platform?.close());

/** A clock the test moves; starts at the real time so the database's timestamps and it agree. */
function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    move: (ms: number) => {
      offset += ms;
    },
  };
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  open.push(r);
  return r;
}

function sender(clock: () => Date, allowPrivateNetworks = true): DeliverySender {
  const poster = new DeliveryPoster({ allowPrivateNetworks, now: () => clock().getTime() });
  const s = startDeliverySender({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    poster,
    key: KEY,
    clock,
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

/** Passes of the trail reader at `now` until it has read at least `rows` rows. */
async function readTrail(now: () => Date, rows = 1) {
  let read = 0;
  await until('the trail reader reading the rows', async () => {
    const pass = await fanoutPass(platform.database, { now });
    if (pass.ran) read += pass.rows;
    return read >= rows ? read : null;
  });
}

const afterHold = () => new Date(Date.now() + 11_000);

describe('from the trail to a verified delivery', () => {
  it('delivers one event to each subscribed endpoint of its tenant, signed, with one id for all', async () => {
    const first = await receiver();
    const second = await receiver();
    const other = await receiver();
    const a = await addEndpoint(platform.database, alpha, first.url, ['run.completed', 'run.failed']);
    const b = await addEndpoint(platform.database, alpha, second.url, ['run.completed']);
    await addEndpoint(platform.database, alpha, other.url, ['run.failed']);
    await addEndpoint(platform.database, alpha, other.url, ['run.completed'], { enabled: false });
    await addEndpoint(platform.database, beta, other.url, ['run.completed']);
    const { runId } = await runCompleted(platform.database, alpha);

    // Younger than the hold: left for a later pass.
    const early = await fanoutPass(platform.database);
    expect(early.ran && early.deliveries).toBe(0);
    await readTrail(afterHold);
    sender(() => new Date());
    await until('both deliveries', async () =>
      first.received.length && second.received.length ? true : null,
    );

    for (const [got, endpoint] of [
      [first.received[0], a],
      [second.received[0], b],
    ] as const) {
      if (!got) throw new Error('nothing received');
      expect(
        verifySignature(got.headers['x-service-signature'] as string, got.body, endpoint.secret, Date.now()),
      ).toBe(true);
      expect(
        verifySignature(
          got.headers['x-service-signature'] as string,
          got.body,
          a.secret === endpoint.secret ? b.secret : a.secret,
          Date.now(),
        ),
      ).toBe(false);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toBe('Service-Webhooks/1');
      expect(got.headers['x-service-event']).toBe('run.completed');
      expect(got.headers.traceparent).toBeUndefined();
      expect(got.headers.baggage).toBeUndefined();
      expect(
        Object.keys(got.headers)
          .filter((h) => h.startsWith('x-'))
          .sort(),
      ).toEqual(['x-service-delivery', 'x-service-event', 'x-service-signature']);
      expect(JSON.parse(got.body)).toEqual({
        id: expect.any(String),
        type: 'run.completed',
        occurredAt: expect.stringMatching(/Z$/),
        tenantId: alpha,
        resource: { type: 'workflow_run', id: runId },
        data: { workflowRunId: runId, workflow: 'onboarding', version: 1, subjectId: 'subject-1' },
      });
    }
    expect(JSON.parse(first.received[0]?.body ?? '{}').id).toBe(
      JSON.parse(second.received[0]?.body ?? '{}').id,
    );
    const [rowA] = await deliveriesOf(platform.database, a.id);
    expect(first.received[0]?.headers['x-service-delivery']).toBe(rowA?.id);
    await until('the outcome written', async () =>
      (await deliveriesOf(platform.database, a.id))[0]?.status === 'delivered' ? true : null,
    );
    const [written] = await deliveriesOf(platform.database, a.id);
    expect(written).toMatchObject({
      status: 'delivered',
      attempts: 1,
      responseCode: 204,
      workflowRunId: runId,
      error: null,
    });
    expect((await endpointRow(platform.database, a.id))?.lastDeliveryAt).toBeInstanceOf(Date);
    // Not subscribed, disabled, another tenant's: nothing.
    expect(other.received).toHaveLength(0);
  });

  it('gives an endpoint only the events that happened after its creation', async () => {
    const r = await receiver();
    await runCompleted(platform.database, alpha);
    const late = await addEndpoint(platform.database, alpha, r.url, ['run.completed']);
    await runCompleted(platform.database, alpha);
    await readTrail(afterHold, 2);
    expect(await deliveriesOf(platform.database, late.id)).toHaveLength(1);
  });
});

describe('the retry ladder', () => {
  it('retries a failing endpoint 1 min, 5 min, 30 min and 2 h later, then exhausts it and tells admins once', async () => {
    const r = await receiver();
    r.answer.status = 500;
    const endpoint = await addEndpoint(platform.database, alpha, r.url, ['run.completed']);
    await runCompleted(platform.database, alpha);
    await readTrail(afterHold);
    const clock = movableClock();
    const s = sender(clock.now);
    const row = async () => (await deliveriesOf(platform.database, endpoint.id))[0];

    for (let attempt = 1; attempt <= 5; attempt++) {
      await until(`attempt ${attempt} written`, async () =>
        (await row())?.attempts === attempt ? true : null,
      );
      const written = await row();
      expect(r.received).toHaveLength(attempt);
      expect(written?.responseCode).toBe(500);
      expect(written?.error).toBe('the endpoint answered 500');
      if (attempt < 5) {
        expect(written?.status).toBe('failed');
        const delay = RETRY_DELAYS_MS[attempt - 1] as number;
        expect((written?.nextAttemptAt.getTime() ?? 0) - (written?.lastAttemptAt?.getTime() ?? 0)).toBe(
          delay,
        );
        // Due then (not a moment before: claim.test.ts drives the claim step with the clock).
        clock.move(delay);
        s.wake();
      } else {
        expect(written?.status).toBe('exhausted');
      }
    }
    // Every attempt carries the same delivery id and the same body.
    expect(new Set(r.received.map((got) => got.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(r.received.map((got) => got.body)).size).toBe(1);
    expect((await endpointRow(platform.database, endpoint.id))?.failingSince).toBeInstanceOf(Date);
    const told = await platform.database.db
      .select()
      .from(notifications)
      .where(
        sql`${notifications.kind} = 'webhook_endpoint_failing' and ${notifications.resourceId} = ${endpoint.id}`,
      );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ tenantId: alpha, audiencePermission: 'webhooks:write' });

    // Made due again and answered: delivered, and the endpoint no longer failing.
    r.answer.status = 200;
    await platform.database.db
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: clock.now() })
      .where(sql`${webhookDeliveries.endpointId} = ${endpoint.id}`);
    s.wake();
    await until('delivered', async () => ((await row())?.status === 'delivered' ? true : null));
    expect((await endpointRow(platform.database, endpoint.id))?.failingSince).toBeNull();
  });

  it('never follows a redirect: the redirected-to address receives nothing', async () => {
    const target = await receiver();
    const r = await receiver();
    r.answer.status = 302;
    r.answer.location = target.url;
    const endpoint = await addEndpoint(platform.database, alpha, r.url, ['run.completed']);
    await runCompleted(platform.database, alpha);
    await readTrail(afterHold);
    sender(() => new Date());
    await until('the attempt written', async () =>
      (await deliveriesOf(platform.database, endpoint.id))[0]?.attempts === 1 ? true : null,
    );
    const [written] = await deliveriesOf(platform.database, endpoint.id);
    expect(written).toMatchObject({
      status: 'failed',
      responseCode: 302,
      error: 'redirect 302 not followed',
    });
    expect(target.received).toHaveLength(0);
  });
});

describe('without SECRET_STORE_KEY', () => {
  it('reads the trail, so no event is lost, and sends nothing: deliveries wait', async () => {
    const r = await receiver();
    const endpoint = await addEndpoint(platform.database, alpha, r.url, ['run.completed']);
    await runCompleted(platform.database, alpha);
    const worker = startOutboundWebhooks({
      database: platform.database,
      logger: pino({ level: 'silent' }),
      secretStoreKey: null,
      allowPrivateNetworks: true,
      fanoutIntervalMs: 20,
      fanout: { holdMs: 0 },
    });
    open.push({ close: () => worker.stop() });
    expect(worker.sender).toBeNull();
    await until('the delivery queued', async () =>
      (await deliveriesOf(platform.database, endpoint.id)).length === 1 ? true : null,
    );
    await worker.stop();
    const [waiting] = await deliveriesOf(platform.database, endpoint.id);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 0 });
    expect(r.received).toHaveLength(0);
    // A worker with the key sends it.
    sender(() => new Date());
    await until('delivered once a worker has the key', async () => (r.received.length === 1 ? true : null));
  });
});
