// Deliveries through the real api, over rows written as the worker writes them: the listing (newest
// first, every filter, paging, another tenant's never shown), the manual retry (due now, attempts kept,
// 409 for a delivered one, audited) and a run's deliveries (404 for a run the tenant does not have).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/outbound-webhooks/index.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import {
  auditOf,
  type DeliveryAnswer,
  insertDelivery,
  insertRun,
  startWebhooksPlatform,
  webhooksCalls,
} from './support.ts';

let platform: TestPlatform;
let api: ReturnType<typeof webhooksCalls>;
beforeAll(async () => {
  platform = await startWebhooksPlatform();
  api = webhooksCalls(platform);
}, 120_000);
afterAll(async () => platform?.close());

interface Listing {
  items: DeliveryAnswer[];
  total: number;
  totalIsEstimate: boolean;
}

const at = (minute: number) => new Date(Date.parse('2030-04-01T10:00:00Z') + minute * 60_000);
const endpoint = async (token: string) =>
  (await api.create(token, { url: 'https://hooks.example.com/in', events: ['run.completed'] })).id;

describe('GET /webhook-deliveries', () => {
  it('lists the tenant’s deliveries newest first with every field, filtered and paged', async () => {
    const token = await api.token('listing');
    const tenantId = await platform.tenantId('listing');
    const [first, second] = [await endpoint(token), await endpoint(token)] as [string, string];
    const runId = await insertRun(platform.database.db, tenantId);
    const db = platform.database.db;
    const rows = [
      await insertDelivery(db, { tenantId, endpointId: first, createdAt: at(0), status: 'pending' }),
      await insertDelivery(db, {
        tenantId,
        endpointId: first,
        createdAt: at(1),
        status: 'delivered',
        attempts: 1,
        lastAttemptAt: at(1),
        deliveredAt: at(1),
        responseCode: 200,
        latencyMs: 38,
        eventType: 'decision.created',
        workflowRunId: runId,
      }),
      await insertDelivery(db, {
        tenantId,
        endpointId: second,
        createdAt: at(2),
        status: 'failed',
        attempts: 2,
        nextAttemptAt: at(7),
        lastAttemptAt: at(2),
        responseCode: 503,
        latencyMs: 120,
        error: 'the endpoint answered 503',
        workflowRunId: runId,
      }),
      await insertDelivery(db, {
        tenantId,
        endpointId: second,
        createdAt: at(3),
        status: 'exhausted',
        attempts: 5,
        lastAttemptAt: at(3),
        error: 'no answer within 10 s',
      }),
    ];
    // Another tenant's delivery is never listed.
    const otherToken = await api.token('listing-other');
    await insertDelivery(db, {
      tenantId: await platform.tenantId('listing-other'),
      endpointId: await endpoint(otherToken),
      createdAt: at(2),
    });

    const all = await ok<Listing>(await api.call('/webhook-deliveries', token));
    expect(all.total).toBe(4);
    expect(all.totalIsEstimate).toBe(false);
    expect(all.items.map((d) => d.id)).toEqual(rows.map((r) => r.id).reverse());
    const [exhausted, failed, delivered, pending] = all.items as [
      DeliveryAnswer,
      DeliveryAnswer,
      DeliveryAnswer,
      DeliveryAnswer,
    ];
    expect(failed).toEqual({
      id: rows[2]?.id,
      endpointId: second,
      eventId: rows[2]?.eventId,
      event: 'run.completed',
      workflowRunId: runId,
      status: 'failed',
      attempts: 2,
      nextAttemptAt: at(7).toISOString(),
      lastAttemptAt: at(2).toISOString(),
      responseCode: 503,
      latencyMs: 120,
      error: 'the endpoint answered 503',
      deliveredAt: null,
      createdAt: at(2).toISOString(),
      occurredAt: rows[2]?.occurredAt.toISOString(),
    });
    expect(delivered).toMatchObject({
      status: 'delivered',
      nextAttemptAt: null,
      deliveredAt: at(1).toISOString(),
    });
    expect(exhausted).toMatchObject({ status: 'exhausted', nextAttemptAt: null, attempts: 5 });
    expect(pending).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: expect.any(String) });

    const ids = async (query: string) =>
      (await ok<Listing>(await api.call(`/webhook-deliveries?${query}`, token))).items.map((d) => d.id);
    expect(await ids(`endpointId=${first}`)).toEqual([rows[1]?.id, rows[0]?.id]);
    expect(await ids('status=failed&status=exhausted')).toEqual([rows[3]?.id, rows[2]?.id]);
    expect(await ids('status=pending')).toEqual([rows[0]?.id]);
    expect(await ids('event=decision.created')).toEqual([rows[1]?.id]);
    expect(await ids(`workflowRunId=${runId}`)).toEqual([rows[2]?.id, rows[1]?.id]);
    expect(await ids(`from=${at(1).toISOString()}&to=${at(3).toISOString()}`)).toEqual([
      rows[2]?.id,
      rows[1]?.id,
    ]);
    // The spec's spelling: an interval, either side open.
    expect(await ids(`time=${at(1).toISOString()}/${at(3).toISOString()}`)).toEqual([
      rows[2]?.id,
      rows[1]?.id,
    ]);
    expect(await ids(`time=../${at(2).toISOString()}`)).toEqual([rows[1]?.id, rows[0]?.id]);
    expect(await ids(`time=${at(2).toISOString()}/..`)).toEqual([rows[3]?.id, rows[2]?.id]);
    expect(await ids(`endpointId=${second}&status=failed`)).toEqual([rows[2]?.id]);
    const page = await ok<Listing>(await api.call('/webhook-deliveries?limit=2&offset=1', token));
    expect(page.items.map((d) => d.id)).toEqual([rows[2]?.id, rows[1]?.id]);
    expect(page.total).toBe(4);
  });

  it.each([
    ['status=bogus', 'query.status.0'],
    ['event=run.started', 'query.event'],
    ['endpointId=nope', 'query.endpointId'],
    ['from=2030-04-02T00:00:00Z&to=2030-04-01T00:00:00Z', 'query.to'],
    ['time=2030-04-01T00:00:00Z', 'query.time'],
    ['time=2030-04-02T00:00:00Z/2030-04-01T00:00:00Z', 'query.time'],
    ['time=2030-04-01T00:00:00Z/..&from=2030-04-01T00:00:00Z', 'query.time'],
    ['limit=0', 'query.limit'],
    ['page=2', 'query.page'],
  ])('refuses %s at its parameter', async (query, path) => {
    const error = await expectError(
      await api.call(`/webhook-deliveries?${query}`, await api.token('listing')),
      400,
      'validation_error',
    );
    expect((error.details?.issues as { path: string }[]).map((issue) => issue.path)).toContain(path);
  });
});

describe('POST /webhook-deliveries/:id/retry', () => {
  it('makes an exhausted delivery due now as failed, attempts kept, and audits it', async () => {
    const token = await api.token('retry');
    const tenantId = await platform.tenantId('retry');
    const row = await insertDelivery(platform.database.db, {
      tenantId,
      endpointId: await endpoint(token),
      status: 'exhausted',
      attempts: 5,
      nextAttemptAt: at(0),
      error: 'connection refused',
    });
    const before = Date.now();
    const retried = await ok<DeliveryAnswer>(
      await api.call(`/webhook-deliveries/${row.id}/retry`, token, 'POST'),
    );
    expect(retried).toMatchObject({ id: row.id, status: 'failed', attempts: 5, error: 'connection refused' });
    expect(Date.parse(retried.nextAttemptAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(retried.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now() + 1000);
    const [audit] = await auditOf(platform.database.db, tenantId, 'webhook_delivery.retried');
    expect(audit).toMatchObject({
      resourceType: 'webhook_delivery',
      resourceId: row.id,
      data: {
        endpointId: row.endpointId,
        eventId: row.eventId,
        event: 'run.completed',
        previousStatus: 'exhausted',
        attempts: 5,
      },
    });
  });

  it('makes a failed or pending delivery due now, keeping its status', async () => {
    const token = await api.token('retry');
    const tenantId = await platform.tenantId('retry');
    const endpointId = await endpoint(token);
    for (const status of ['failed', 'pending']) {
      const row = await insertDelivery(platform.database.db, {
        tenantId,
        endpointId,
        status,
        attempts: status === 'failed' ? 2 : 0,
        nextAttemptAt: new Date(Date.now() + 3600_000),
      });
      const retried = await ok<DeliveryAnswer>(
        await api.call(`/webhook-deliveries/${row.id}/retry`, token, 'POST'),
      );
      expect(retried.status).toBe(status);
      expect(Date.parse(retried.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it('refuses a delivered one with 409 conflict, and another tenant’s or an unknown one with 404', async () => {
    const token = await api.token('retry');
    const tenantId = await platform.tenantId('retry');
    const delivered = await insertDelivery(platform.database.db, {
      tenantId,
      endpointId: await endpoint(token),
      status: 'delivered',
      attempts: 1,
      deliveredAt: new Date(),
    });
    await expectError(
      await api.call(`/webhook-deliveries/${delivered.id}/retry`, token, 'POST'),
      409,
      'conflict',
    );
    const [unchanged] = await platform.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivered.id));
    expect(unchanged?.nextAttemptAt).toEqual(delivered.nextAttemptAt);

    const stranger = await api.token('retry-stranger');
    const exhausted = await insertDelivery(platform.database.db, {
      tenantId,
      endpointId: delivered.endpointId,
      status: 'exhausted',
      attempts: 5,
    });
    await expectError(
      await api.call(`/webhook-deliveries/${exhausted.id}/retry`, stranger, 'POST'),
      404,
      'not_found',
    );
    await expectError(
      await api.call(`/webhook-deliveries/${randomUUID()}/retry`, token, 'POST'),
      404,
      'not_found',
    );
    const [still] = await platform.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, exhausted.id));
    expect(still?.status).toBe('exhausted');
  });
});

describe('GET /workflow-runs/:id/related', () => {
  it('answers the run’s deliveries newest first; another tenant’s run or an unknown one is 404', async () => {
    const token = await api.token('related');
    const tenantId = await platform.tenantId('related');
    const db = platform.database.db;
    const endpointId = await endpoint(token);
    const runId = await insertRun(db, tenantId);
    const quietRun = await insertRun(db, tenantId);
    const older = await insertDelivery(db, { tenantId, endpointId, workflowRunId: runId, createdAt: at(0) });
    const newer = await insertDelivery(db, {
      tenantId,
      endpointId,
      workflowRunId: runId,
      createdAt: at(1),
      eventType: 'decision.created',
    });
    await insertDelivery(db, { tenantId, endpointId, workflowRunId: null, createdAt: at(2) });

    const related = await ok<{ items: DeliveryAnswer[] }>(
      await api.call(`/workflow-runs/${runId}/related`, token),
    );
    expect(related.items.map((d) => d.id)).toEqual([newer.id, older.id]);
    expect(related.items[0]).toMatchObject({ event: 'decision.created', workflowRunId: runId });
    expect(await ok(await api.call(`/workflow-runs/${quietRun}/related`, token))).toEqual({ items: [] });

    const theirRun = await insertRun(db, await platform.tenantId('related-other'));
    await expectError(await api.call(`/workflow-runs/${theirRun}/related`, token), 404, 'not_found');
    await expectError(await api.call(`/workflow-runs/${randomUUID()}/related`, token), 404, 'not_found');
  });
});
