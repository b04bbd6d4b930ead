// The sender's outcome writes (src/outbound-webhooks/sending/outcome-store.ts recordAttempts) on real PostgreSQL:
// a batch mixing every outcome leaves each delivery and endpoint as writing them one by one would, each
// result recorded as one attempt numbered after the delivery's others (two senders' results for one
// delivery both kept, in turn; none for a delivery gone meanwhile), and two
// senders writing batches for the same endpoints at once (each worker has one) never deadlock — a
// deadlock would lose a batch, and its deliveries would be sent again once their leases ran out.
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { failingEndpoints } from '../../src/attention/attention.ts';
import { notifications } from '../../src/notifications/tables.ts';
import { type AttemptResult, recordAttempts } from '../../src/outbound-webhooks/sending/outcome-store.ts';
import { webhookDeliveries, webhookDeliveryAttempts } from '../../src/outbound-webhooks/tables.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addEndpoint, endpointRow, runCompleted } from './rows.ts';

let platform: TestPlatform;
let alpha: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await platform.tenantId('alpha');
}, 120_000);
afterAll(async () => platform?.close());

const lease = () => new Date(Date.now() + 60_000);

/** A claimed delivery of a new run's end to the endpoint, `attempts` tried already. */
async function claimedDelivery(endpointId: string, attempts = 0) {
  const { auditId } = await runCompleted(platform.database, alpha);
  const [row] = await platform.database.db
    .insert(webhookDeliveries)
    .values({
      tenantId: alpha,
      endpointId,
      eventId: randomUUID(),
      auditEventId: auditId,
      eventType: 'run.completed',
      occurredAt: new Date(),
      status: attempts === 0 ? 'pending' : 'failed',
      attempts,
      nextAttemptAt: lease(),
    })
    .returning();
  if (!row) throw new Error('no delivery');
  return row;
}

const result = (
  delivery: { id: string; endpointId: string; attempts: number },
  at: Date,
  answer: Partial<AttemptResult> = {},
): AttemptResult => ({
  deliveryId: delivery.id,
  endpointId: delivery.endpointId,
  tenantId: alpha,
  eventType: 'run.completed',
  attemptsBefore: delivery.attempts,
  at,
  delivered: true,
  responseCode: 204,
  latencyMs: 12,
  error: null,
  responseBody: null,
  ...answer,
});

const failedAnswer = { delivered: false, responseCode: 500, error: 'the endpoint answered 500' };
const row = async (id: string) =>
  (await platform.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0];

it('writes a batch of every outcome as one by one: delivered, a step along the ladder, exhausted and told once', async () => {
  const good = await addEndpoint(platform.database, alpha, 'https://example.com/good', ['run.completed']);
  const bad = await addEndpoint(platform.database, alpha, 'https://example.com/bad', ['run.completed']);
  const delivered = await claimedDelivery(good.id);
  const failing = await claimedDelivery(good.id, 1);
  const exhausted = [await claimedDelivery(bad.id, 4), await claimedDelivery(bad.id, 4)];
  const at = new Date(Date.now() - 1000);
  const later = new Date(at.getTime() + 500);
  await recordAttempts(platform.database, [
    result(delivered, at),
    result(failing, at, failedAnswer),
    result(exhausted[0] as typeof delivered, at, {
      ...failedAnswer,
      responseCode: null,
      error: 'connection refused',
    }),
    result(exhausted[1] as typeof delivered, later, failedAnswer),
  ]);

  expect(await row(delivered.id)).toMatchObject({
    status: 'delivered',
    attempts: 1,
    lastAttemptAt: at,
    deliveredAt: at,
    responseCode: 204,
    latencyMs: 12,
    error: null,
    nextAttemptAt: delivered.nextAttemptAt,
  });
  expect(await row(failing.id)).toMatchObject({
    status: 'failed',
    attempts: 2,
    responseCode: 500,
    error: 'the endpoint answered 500',
    deliveredAt: null,
    nextAttemptAt: new Date(at.getTime() + 5 * 60_000),
  });
  expect(await row(exhausted[0]?.id as string)).toMatchObject({
    status: 'exhausted',
    attempts: 5,
    responseCode: null,
    error: 'connection refused',
    nextAttemptAt: exhausted[0]?.nextAttemptAt,
  });
  expect(await endpointRow(platform.database, good.id)).toMatchObject({
    lastDeliveryAt: at,
    failingSince: null,
  });
  // Failing from the batch's last exhaustion.
  expect((await endpointRow(platform.database, bad.id))?.failingSince).toEqual(later);
  const told = async () =>
    platform.database.db.select().from(notifications).where(eq(notifications.resourceId, bad.id));
  expect(await told()).toHaveLength(1);

  // A delivered one clears failing; the last delivery time never goes back.
  const recovered = await claimedDelivery(bad.id);
  const before = await claimedDelivery(good.id);
  await recordAttempts(platform.database, [
    result(recovered, later),
    result(before, new Date(at.getTime() - 60_000)),
  ]);
  expect(await endpointRow(platform.database, bad.id)).toMatchObject({
    lastDeliveryAt: later,
    failingSince: null,
  });
  expect((await endpointRow(platform.database, good.id))?.lastDeliveryAt).toEqual(at);
  expect(await told()).toHaveLength(1);
});

const attemptsOf = (deliveryId: string) =>
  platform.database.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.deliveryId, deliveryId))
    .orderBy(webhookDeliveryAttempts.number);

it('records each result as an attempt, numbered after the delivery’s, however the results come', async () => {
  const endpoint = await addEndpoint(platform.database, alpha, 'https://example.com/n', ['run.completed']);
  const at = new Date(Date.now() - 1000);
  const later = new Date(at.getTime() + 250);
  const delivery = await claimedDelivery(endpoint.id);
  await recordAttempts(platform.database, [
    result(delivery, at, { ...failedAnswer, latencyMs: 31, responseBody: 'try later' }),
  ]);
  expect(await attemptsOf(delivery.id)).toEqual([
    {
      id: expect.any(String),
      tenantId: alpha,
      deliveryId: delivery.id,
      number: 1,
      attemptedAt: at,
      durationMs: 31,
      responseCode: 500,
      error: 'the endpoint answered 500',
      responseBody: 'try later',
    },
  ]);
  // Sent twice at once (a retry while it was in flight): both senders' results are kept, in turn.
  const again = { ...delivery, attempts: 1 };
  await Promise.all([
    recordAttempts(platform.database, [result(again, later, failedAnswer)]),
    recordAttempts(platform.database, [result(again, later)]),
  ]);
  expect((await attemptsOf(delivery.id)).map((a) => a.number)).toEqual([1, 2, 3]);
  // Two results of one delivery in one batch: two attempts, in the batch's order.
  const twice = await claimedDelivery(endpoint.id);
  await recordAttempts(platform.database, [
    result(twice, at, failedAnswer),
    result({ ...twice, attempts: 1 }, later),
  ]);
  expect((await attemptsOf(twice.id)).map((a) => [a.number, a.responseCode])).toEqual([
    [1, 500],
    [2, 204],
  ]);
  expect(await row(twice.id)).toMatchObject({ status: 'delivered', attempts: 2 });
  // A delivery gone meanwhile (its endpoint deleted): no attempt, and the rest of the batch written.
  const gone = await claimedDelivery(endpoint.id);
  const kept = await claimedDelivery(endpoint.id);
  await platform.database.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, gone.id));
  await recordAttempts(platform.database, [result(gone, at), result(kept, at)]);
  expect(await attemptsOf(gone.id)).toHaveLength(0);
  expect(await attemptsOf(kept.id)).toHaveLength(1);
});

it('restarts Home’s day on a later exhaustion while still failing, telling no one again', async () => {
  const DAY = 86_400_000;
  const endpoint = await addEndpoint(
    platform.database,
    alpha,
    'https://example.com/down',
    ['run.completed'],
    {
      failingSince: new Date(Date.now() - 2 * DAY),
    },
  );
  const listed = async (now: Date) =>
    (await failingEndpoints(platform.database.db, alpha, now)).map((entry) => entry.resource.id);
  expect(await listed(new Date())).not.toContain(endpoint.id);

  const at = new Date();
  await recordAttempts(platform.database, [result(await claimedDelivery(endpoint.id, 4), at, failedAnswer)]);
  expect((await endpointRow(platform.database, endpoint.id))?.failingSince).toEqual(at);
  expect(await listed(new Date(at.getTime() + DAY - 1))).toContain(endpoint.id);
  expect(await listed(new Date(at.getTime() + DAY + 1))).not.toContain(endpoint.id);
  // Told when it turned failing two days ago: not again.
  const told = await platform.database.db
    .select()
    .from(notifications)
    .where(eq(notifications.resourceId, endpoint.id));
  expect(told).toHaveLength(0);

  // An exhaustion written late (an older attempt's) never moves the day back.
  await recordAttempts(platform.database, [
    result(await claimedDelivery(endpoint.id, 4), new Date(at.getTime() - 60_000), failedAnswer),
  ]);
  expect((await endpointRow(platform.database, endpoint.id))?.failingSince).toEqual(at);
});

it('writes two senders’ batches for the same endpoints at once without a deadlock', async () => {
  const endpoints = [];
  for (let i = 0; i < 8; i++)
    endpoints.push(
      await addEndpoint(platform.database, alpha, `https://example.com/${i}`, ['run.completed']),
    );
  for (let round = 0; round < 5; round++) {
    // Each sender's batch names the endpoints in the other's reverse order.
    const batches: AttemptResult[][] = [[], []];
    for (const [i, batch] of batches.entries()) {
      const order = i === 0 ? endpoints : [...endpoints].reverse();
      for (let k = 0; k < 4; k++)
        for (const endpoint of order) batch.push(result(await claimedDelivery(endpoint.id), new Date()));
    }
    await Promise.all(batches.map((batch) => recordAttempts(platform.database, batch)));
    const ids = batches.flat().map((r) => r.deliveryId);
    const delivered = await platform.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(sql`${inArray(webhookDeliveries.id, ids)} and ${webhookDeliveries.status} = 'delivered'`);
    expect(delivered[0]?.n).toBe(ids.length);
  }
});
