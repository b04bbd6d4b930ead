// The retention sweep on real PostgreSQL (src/retention/retention.ts, docs/retention.md), every pass on an
// injected clock: rows just inside and just outside each cut-off, 0 keeping data forever, sessions pending
// 8 days timed out `orphaned`, a row another transaction holds skipped rather than waited on, the batch cap
// (2 rows a batch and 3 batches here; the defaults are asserted in retention-rules.test.ts), tenants swept
// apart, the pass's one log line, a failing pair logged while the pass goes on, and a deleted session gone
// from GET /app-callbacks.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type PassResult,
  RETENTION_TARGETS,
  type RetentionTarget,
  startRetentionSweep,
  sweepRetention,
} from '../../src/retention/retention.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { appCallbacks, appWebhookEvents } from '../../src/vendor-sessions/tables.ts';
import type { Timer } from '../../src/worker/schedule.ts';
import { ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertEvent, insertSession } from '../vendor-sessions/rows.ts';

const NOW = new Date('2030-06-30T12:00:00.000Z');
const DAY = 86_400_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const SETTINGS = { appCallbackDays: 90, submissionEventDays: 90 };

let platform: TestPlatform;
let alpha: string;
let beta: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  alpha = await platform.tenantId('alpha');
  beta = await platform.tenantId('beta');
}, 120_000);
afterAll(async () => platform?.close());
beforeEach(async () => {
  await platform.database.db.delete(appCallbacks);
  await platform.database.db.delete(appWebhookEvents);
});

const db = () => platform.database.db;

/** A logger whose lines the test reads. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

const pass = (options: Partial<Parameters<typeof sweepRetention>[0]> = {}) =>
  sweepRetention({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    settings: SETTINGS,
    now: NOW,
    ...options,
  });

const tenantCount = async () => (await db().select({ id: tenants.id }).from(tenants)).length;
const sessionIds = async () =>
  (await db().select({ id: appCallbacks.id }).from(appCallbacks)).map((r) => r.id).sort();
const eventIds = async () =>
  (await db().select({ id: appWebhookEvents.id }).from(appWebhookEvents)).map((r) => r.id).sort();
const sessionOf = async (id: string) =>
  (await db().select().from(appCallbacks).where(eq(appCallbacks.id, id)))[0];

describe('sweepRetention', () => {
  it('deletes settled sessions and events older than the setting plus 7 days; one exactly that old stays', async () => {
    const cut = 97 * DAY;
    const kept = [
      await insertSession(db(), { tenantId: alpha, status: 'completed', createdAt: ago(cut) }),
      await insertSession(db(), { tenantId: alpha, status: 'failed', createdAt: ago(cut - 1) }),
      await insertSession(db(), { tenantId: beta, status: 'timed_out', createdAt: ago(DAY) }),
    ];
    for (const status of ['completed', 'failed', 'timed_out'] as const) {
      await insertSession(db(), { tenantId: alpha, status, createdAt: ago(cut + 1) });
      await insertSession(db(), { tenantId: beta, status, createdAt: ago(cut + 40 * DAY) });
    }
    const keptEvents = [
      await insertEvent(db(), { tenantId: alpha, receivedAt: ago(cut) }),
      await insertEvent(db(), { tenantId: beta, receivedAt: ago(DAY) }),
    ];
    await insertEvent(db(), { tenantId: alpha, receivedAt: ago(cut + 1) });
    await insertEvent(db(), { tenantId: beta, receivedAt: ago(cut + 1) });

    const result = await pass();
    expect(await sessionIds()).toEqual(kept.map((s) => s.id).sort());
    expect(await eventIds()).toEqual(keptEvents.map((e) => e.id).sort());
    expect(result).toEqual<PassResult>({
      tenants: await tenantCount(),
      deleted: { app_callbacks: 6, app_webhook_events: 2, collection_drop_off_events: 0 },
      timedOut: 0,
      capped: [],
      failed: [],
    });
  });

  it('keeps them forever when the setting is 0, and still times out orphans', async () => {
    const old = await insertSession(db(), {
      tenantId: alpha,
      status: 'completed',
      createdAt: ago(3650 * DAY),
    });
    const event = await insertEvent(db(), { tenantId: alpha, receivedAt: ago(3650 * DAY) });
    const orphan = await insertSession(db(), { tenantId: alpha, createdAt: ago(3650 * DAY) });
    const result = await pass({ settings: { appCallbackDays: 0, submissionEventDays: 0 } });
    expect(await sessionIds()).toEqual([old.id, orphan.id].sort());
    expect(await eventIds()).toEqual([event.id]);
    expect((await sessionOf(orphan.id))?.status).toBe('timed_out');
    expect(result).toMatchObject({ deleted: { app_callbacks: 0, app_webhook_events: 0 }, timedOut: 1 });
  });

  it('times out sessions still pending 8 days after they started (orphaned), only while pending', async () => {
    const orphan = await insertSession(db(), { tenantId: alpha, createdAt: ago(8 * DAY) });
    const young = await insertSession(db(), { tenantId: alpha, createdAt: ago(8 * DAY - 1) });
    const waited = await insertSession(db(), {
      tenantId: beta,
      createdAt: ago(9 * DAY),
      workflowRunId: randomUUID(),
      stepId: 'verify',
    });
    const settled = await insertSession(db(), {
      tenantId: alpha,
      status: 'failed',
      error: 'run_cancelled',
      createdAt: ago(9 * DAY),
    });

    const result = await pass();
    expect(result.timedOut).toBe(2);
    for (const id of [orphan.id, waited.id]) {
      const row = await sessionOf(id);
      expect(row).toMatchObject({ status: 'timed_out', error: 'orphaned', resumedAt: null });
      expect(row?.completedAt).toBeInstanceOf(Date);
    }
    expect(await sessionOf(young.id)).toMatchObject({ status: 'pending', error: null, completedAt: null });
    expect(await sessionOf(settled.id)).toMatchObject({ status: 'failed', error: 'run_cancelled' });
  });

  it('leaves a settled session whose run the resumer has not moved on, until it has', async () => {
    // Setting 1: a session timed out at 8 days is also past the 8-day deletion cut-off in the same pass.
    const settings = { appCallbackDays: 1, submissionEventDays: 90 };
    const waited = await insertSession(db(), {
      tenantId: alpha,
      createdAt: ago(8 * DAY + 1),
      workflowRunId: randomUUID(),
      stepId: 'verify',
    });
    await insertSession(db(), { tenantId: alpha, createdAt: ago(8 * DAY + 1) });
    expect(await pass({ settings })).toMatchObject({ timedOut: 2, deleted: { app_callbacks: 1 } });
    expect(await sessionIds()).toEqual([waited.id]);

    await db().update(appCallbacks).set({ resumedAt: NOW }).where(eq(appCallbacks.id, waited.id));
    expect(await pass({ settings })).toMatchObject({ timedOut: 0, deleted: { app_callbacks: 1 } });
    expect(await sessionIds()).toEqual([]);
  });

  it('skips a row another transaction holds instead of waiting on it, and takes it next pass', async () => {
    const held = await insertSession(db(), {
      tenantId: alpha,
      status: 'completed',
      createdAt: ago(200 * DAY),
    });
    await insertSession(db(), { tenantId: alpha, status: 'completed', createdAt: ago(199 * DAY) });
    const heldOrphan = await insertSession(db(), { tenantId: alpha, createdAt: ago(10 * DAY) });
    const heldEvent = await insertEvent(db(), { tenantId: alpha, receivedAt: ago(200 * DAY) });

    const first = await db().transaction(async (tx) => {
      await tx.execute(
        sql`select id from ${appCallbacks} where id in (${held.id}, ${heldOrphan.id}) for update`,
      );
      await tx.execute(sql`select id from ${appWebhookEvents} where id = ${heldEvent.id} for update`);
      // The pass runs on other connections while this transaction still holds the rows.
      return pass();
    });
    expect(first).toMatchObject({ deleted: { app_callbacks: 1, app_webhook_events: 0 }, timedOut: 0 });
    expect(await sessionIds()).toEqual([held.id, heldOrphan.id].sort());
    expect(await sessionOf(heldOrphan.id)).toMatchObject({ status: 'pending' });

    const second = await pass();
    expect(second).toMatchObject({ deleted: { app_callbacks: 1, app_webhook_events: 1 }, timedOut: 1 });
    expect(await sessionIds()).toEqual([heldOrphan.id]);
  });

  it('takes the oldest rows first and moves on after the last batch of a pair (capped), tenant by tenant', async () => {
    const limits = { batchSize: 2, maxBatches: 3 };
    const alphas = [];
    for (let i = 0; i < 7; i++) {
      alphas.push(
        await insertSession(db(), { tenantId: alpha, status: 'completed', createdAt: ago((200 - i) * DAY) }),
      );
    }
    for (let i = 0; i < 3; i++) {
      await insertSession(db(), { tenantId: beta, status: 'completed', createdAt: ago((200 - i) * DAY) });
    }
    for (let i = 0; i < 6; i++) await insertEvent(db(), { tenantId: beta, receivedAt: ago(300 * DAY) });

    const { logger, lines } = capture();
    const result = await pass({ limits, logger });
    // alpha: 3 full batches of 2, one left (its newest); beta: all 3 sessions, and its 6 events in 3
    // full batches, capped although none is left (a full last batch cannot tell).
    expect(await sessionIds()).toEqual([alphas[6]?.id]);
    expect(result).toEqual<PassResult>({
      tenants: await tenantCount(),
      deleted: { app_callbacks: 9, app_webhook_events: 6, collection_drop_off_events: 0 },
      timedOut: 0,
      capped: [
        { tenantId: alpha, target: 'app_callbacks' },
        { tenantId: beta, target: 'app_webhook_events' },
      ].sort((a, b) => a.tenantId.localeCompare(b.tenantId)),
      failed: [],
    });
    const passLines = lines.filter((line) => line.msg === 'retention pass');
    expect(passLines).toHaveLength(1);
    expect(passLines[0]?.retention).toMatchObject({
      tenants: result.tenants,
      deleted: { app_callbacks: 9, app_webhook_events: 6 },
      timedOut: 0,
      capped: result.capped,
      failed: [],
      durationMs: expect.any(Number),
    });

    expect(await pass({ limits })).toMatchObject({
      deleted: { app_callbacks: 1, app_webhook_events: 0 },
      capped: [],
    });
    expect(await sessionIds()).toEqual([]);
  });

  it('logs a failing pair and goes on with the next, naming no applicant data', async () => {
    const broken: RetentionTarget = {
      name: 'broken',
      effect: 'delete',
      cutoff: (now) => now,
      batch: async () => {
        throw new Error('relation "drop_off_events" does not exist');
      },
    };
    await insertSession(db(), {
      tenantId: alpha,
      status: 'completed',
      output: { name: 'Ada Lovelace' },
      externalId: 'applicant-ext-42',
      createdAt: ago(100 * DAY),
    });
    const { logger, lines } = capture();
    const result = await pass({ logger, targets: [broken, ...RETENTION_TARGETS] });
    expect(result.deleted).toEqual({
      broken: 0,
      app_callbacks: 1,
      app_webhook_events: 0,
      collection_drop_off_events: 0,
    });
    const everyTenant = (await db().select({ id: tenants.id }).from(tenants).orderBy(tenants.id)).map(
      (t) => t.id,
    );
    expect(result.failed).toEqual(everyTenant.map((tenantId) => ({ tenantId, target: 'broken' })));
    const warned = lines.filter((line) => line.msg === 'a retention batch failed');
    expect(warned).toHaveLength(everyTenant.length);
    expect(warned[0]).toMatchObject({
      target: 'broken',
      err: { message: expect.stringContaining('drop_off') },
    });
    const text = JSON.stringify(lines);
    for (const data of ['Ada', 'applicant-ext-42']) expect(text).not.toContain(data);
  });

  it('deletes a session that GET /app-callbacks then no longer lists', async () => {
    const session = await insertSession(db(), {
      tenantId: alpha,
      status: 'completed',
      createdAt: ago(98 * DAY),
    });
    const token = await platform.token({ tenant: 'alpha' });
    const before = await ok<{ items: { id: string }[] }>(await platform.fetch('/app-callbacks', { token }));
    expect(before.items.map((s) => s.id)).toEqual([session.id]);
    await pass();
    expect(await ok(await platform.fetch('/app-callbacks', { token }))).toEqual({
      items: [],
      total: 0,
      totalIsEstimate: false,
    });
  });
});

describe('startRetentionSweep', () => {
  it('runs its first pass after the random delay on the injected clock, then every interval', async () => {
    const pending: { callback: () => void; ms: number }[] = [];
    // Resolves when the schedule sets its second timer: the first pass has ended.
    let rescheduled: () => void = () => {};
    const passEnded = new Promise<void>((resolve) => {
      rescheduled = resolve;
    });
    const timer: Timer = {
      setTimeout: (callback, ms) => {
        pending.push({ callback, ms });
        if (pending.length === 1 && ms !== 30_000) rescheduled();
        return pending.length;
      },
      clearTimeout: () => {},
    };
    await insertSession(db(), { tenantId: beta, status: 'completed', createdAt: ago(98 * DAY) });
    const kept = await insertSession(db(), { tenantId: beta, status: 'completed', createdAt: ago(96 * DAY) });
    const { logger, lines } = capture();
    const sweep = startRetentionSweep({
      database: platform.database,
      logger,
      settings: { ...SETTINGS, intervalMinutes: 15, engineHours: 168 },
      // No engine in this process: its tables are swept in engine-retention.test.ts.
      engine: null,
      clock: async () => NOW,
      timer,
      random: () => 0,
    });
    expect(pending.map((p) => p.ms)).toEqual([30_000]);
    pending.shift()?.callback();
    await passEnded;
    expect(pending.map((p) => p.ms)).toEqual([900_000]);
    // The cut-offs came from the injected clock (NOW), not the machine's.
    expect(await sessionIds()).toEqual([kept.id]);
    expect(lines.filter((line) => line.msg === 'retention pass')).toHaveLength(1);
    await sweep.stop();
  });
});
