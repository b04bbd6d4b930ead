// The sender's claim step (src/outbound-webhooks/sending/claim-store.ts claimDue) driven directly on real
// PostgreSQL with the time it is given: a retry is not claimed a moment before it is due, and a disabled
// endpoint's queued deliveries are not claimed at all until it is enabled again. Driving the step itself
// (not a running sender) is what lets "not claimed" be asserted without waiting to see nothing happen.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DEFAULT_SENDER_LIMITS, type InFlight } from '../../src/outbound-webhooks/sending/claim-rules.ts';
import { CLAIM_LEASE_MS, claimDue } from '../../src/outbound-webhooks/sending/claim-store.ts';
import { webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/tables.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addEndpoint, runCompleted } from './rows.ts';

let platform: TestPlatform;
let alpha: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await platform.tenantId('alpha');
}, 120_000);
afterEach(async () => {
  await platform.database.db.delete(webhookEndpoints);
});
afterAll(async () => platform?.close());

const idle: InFlight = { total: 0, byTenant: new Map(), byEndpoint: new Map() };
const claim = (now: Date) => claimDue(platform.database, now, idle, DEFAULT_SENDER_LIMITS);

/** A delivery of a new run's end to the endpoint, due at `dueAt`. */
async function queued(endpointId: string, dueAt: Date, fields: { status?: string; attempts?: number } = {}) {
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
      nextAttemptAt: dueAt,
      ...fields,
    })
    .returning();
  if (!row) throw new Error('no delivery written');
  return row;
}

const nextAttemptOf = async (id: string) =>
  (await platform.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]
    ?.nextAttemptAt;

it('claims a retry only once it is due, not a moment before', async () => {
  const endpoint = await addEndpoint(platform.database, alpha, 'https://example.com/hook', ['run.completed']);
  // A failed delivery's next attempt, five minutes ahead of the real time: the claim's clock alone decides.
  const due = new Date(Date.now() + 5 * 60_000);
  const retry = await queued(endpoint.id, due, { status: 'failed', attempts: 1 });

  for (const early of [5_000, 1]) {
    const { claimed } = await claim(new Date(due.getTime() - early));
    expect(claimed).toEqual([]);
    expect(await nextAttemptOf(retry.id)).toEqual(due);
  }
  const { claimed } = await claim(due);
  expect(claimed.map((c) => c.id)).toEqual([retry.id]);
  expect(await nextAttemptOf(retry.id)).toEqual(new Date(due.getTime() + CLAIM_LEASE_MS));
  // Leased: not claimed again until the lease runs out.
  expect((await claim(new Date(due.getTime() + CLAIM_LEASE_MS - 1))).claimed).toEqual([]);
});

it('claims nothing of a disabled endpoint; its queued deliveries wait until it is enabled', async () => {
  const endpoint = await addEndpoint(platform.database, alpha, 'https://example.com/off', ['run.completed'], {
    enabled: false,
  });
  const now = new Date();
  const waiting = await queued(endpoint.id, new Date(now.getTime() - 60_000));

  expect((await claim(now)).claimed).toEqual([]);
  expect(await nextAttemptOf(waiting.id)).toEqual(waiting.nextAttemptAt);

  await platform.database.db
    .update(webhookEndpoints)
    .set({ enabled: true })
    .where(eq(webhookEndpoints.id, endpoint.id));
  expect((await claim(now)).claimed.map((c) => c.id)).toEqual([waiting.id]);
});
