// POST /webhook-endpoints/:id/test on a development stack (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) with an
// http receiver on 127.0.0.1: the signed ping arrives with the documented headers and body and verifies
// with the secret answered at creation; a PUT keeps that secret, a rotation adds the new one; a disabled
// endpoint is pinged too; what the receiver answers comes back; no delivery row is written.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookDeliveryAttempts } from '../../src/outbound-webhooks/index.ts';
import { UUID } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import { type Receiver, startReceiver, v1Count, verifySignature } from './receiver.ts';
import { auditOf, startWebhooksPlatform, webhooksCalls } from './support.ts';

let platform: TestPlatform;
let api: ReturnType<typeof webhooksCalls>;
let receiver: Receiver;
beforeAll(async () => {
  platform = await startWebhooksPlatform({ allowPrivateNetworks: true });
  api = webhooksCalls(platform);
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

interface TestAnswer {
  delivered: boolean;
  responseCode: number | null;
  latencyMs: number;
  error?: string;
}

const ping = async (token: string, id: string) =>
  ok<TestAnswer>(await api.call(`/webhook-endpoints/${id}/test`, token, 'POST'));

/** Pings and answers the request the receiver got for it. */
async function pinged(token: string, id: string) {
  const before = receiver.received.length;
  const answer = await ping(token, id);
  expect(receiver.received).toHaveLength(before + 1);
  return { answer, request: receiver.received[before] as (typeof receiver.received)[number] };
}

describe('the test ping', () => {
  it('arrives signed, with the documented headers and body, and is no delivery', async () => {
    const token = await api.token('ping');
    const tenantId = await platform.tenantId('ping');
    receiver.answer.status = 204;
    const created = await api.create(token, {
      url: `${receiver.url}/hook?source=platform`,
      events: ['run.completed'],
    });
    const { answer, request } = await pinged(token, created.id);
    expect(answer).toEqual({ delivered: true, responseCode: 204, latencyMs: expect.any(Number) });

    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook?source=platform');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Service-Webhooks/1');
    expect(request.headers['x-service-event']).toBe('ping');
    expect(request.headers['x-service-delivery']).toMatch(UUID);
    expect(request.headers).not.toHaveProperty('traceparent');
    expect(request.headers).not.toHaveProperty('baggage');
    const body = JSON.parse(request.body);
    expect(body).toEqual({
      id: expect.stringMatching(UUID),
      type: 'ping',
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      tenantId,
      resource: { type: 'webhook_endpoint', id: created.id },
      data: {},
    });
    expect(Object.keys(body)).toEqual(['id', 'type', 'occurredAt', 'tenantId', 'resource', 'data']);

    const signature = String(request.headers['x-service-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(signature, request.body, created.secret)).toBe(true);
    expect(verifySignature(signature, request.body, 'whsec_another')).toBe(false);
    expect(verifySignature(signature, `${request.body} `, created.secret)).toBe(false);
    expect(verifySignature(signature, request.body, created.secret, Date.now() + 301_000)).toBe(false);

    const [deliveries] = await platform.database.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.tenantId, tenantId));
    expect(deliveries?.n).toBe(0);
    const [attempts] = await platform.database.db
      .select({ n: count() })
      .from(webhookDeliveryAttempts)
      .where(eq(webhookDeliveryAttempts.tenantId, tenantId));
    expect(attempts?.n).toBe(0);
    const [audit] = await auditOf(platform.database.db, tenantId, 'webhook_endpoint.tested');
    expect(audit?.data).toEqual({
      url: `${receiver.url}/…`,
      enabled: true,
      delivered: true,
      responseCode: 204,
      latencyMs: answer.latencyMs,
    });
    expect(JSON.stringify(audit)).not.toContain('source=platform');
    expect(JSON.stringify(platform.logs)).not.toContain(created.secret);
  });

  it('carries a fresh event id and delivery id each time', async () => {
    const token = await api.token('ping');
    const created = await api.create(token, { url: `${receiver.url}/again`, events: ['run.failed'] });
    const first = await pinged(token, created.id);
    const second = await pinged(token, created.id);
    expect(first.request.headers['x-service-delivery']).not.toBe(
      second.request.headers['x-service-delivery'],
    );
    expect(JSON.parse(first.request.body).id).not.toBe(JSON.parse(second.request.body).id);
  });

  it('is signed with the same secret after a PUT, and with both after a rotation', async () => {
    const token = await api.token('ping');
    const created = await api.create(token, { url: `${receiver.url}/a`, events: ['run.completed'] });
    await ok(
      await api.call(`/webhook-endpoints/${created.id}`, token, 'PUT', {
        url: `${receiver.url}/b`,
        events: ['run.failed'],
        description: 'moved',
      }),
    );
    const afterPut = await pinged(token, created.id);
    expect(afterPut.request.url).toBe('/b');
    const putSignature = String(afterPut.request.headers['x-service-signature']);
    expect(v1Count(putSignature)).toBe(1);
    expect(verifySignature(putSignature, afterPut.request.body, created.secret)).toBe(true);

    const rotated = await ok<{ secret: string }>(
      await api.call(`/webhook-endpoints/${created.id}/rotate-secret`, token, 'POST'),
    );
    const afterRotation = await pinged(token, created.id);
    const both = String(afterRotation.request.headers['x-service-signature']);
    expect(v1Count(both)).toBe(2);
    expect(verifySignature(both, afterRotation.request.body, rotated.secret)).toBe(true);
    expect(verifySignature(both, afterRotation.request.body, created.secret)).toBe(true);
  });

  it('goes to a disabled endpoint too', async () => {
    const token = await api.token('ping');
    const created = await api.create(token, {
      url: `${receiver.url}/off`,
      events: ['run.completed'],
      enabled: false,
    });
    const { answer } = await pinged(token, created.id);
    expect(answer.delivered).toBe(true);
  });

  it('answers what the endpoint answered: an error status, a redirect not followed', async () => {
    const token = await api.token('ping');
    const tenantId = await platform.tenantId('ping');
    const created = await api.create(token, { url: `${receiver.url}/failing`, events: ['run.completed'] });
    try {
      receiver.answer.status = 500;
      expect((await pinged(token, created.id)).answer).toEqual({
        delivered: false,
        responseCode: 500,
        latencyMs: expect.any(Number),
        error: 'the endpoint answered 500',
      });
      receiver.answer.status = 302;
      receiver.answer.location = `${receiver.url}/elsewhere`;
      expect((await pinged(token, created.id)).answer).toMatchObject({
        delivered: false,
        responseCode: 302,
        error: 'redirect 302 not followed',
      });
      expect(receiver.received.some((r) => r.url === '/elsewhere')).toBe(false);
    } finally {
      receiver.answer.status = 204;
      delete receiver.answer.location;
    }
    const audits = await auditOf(platform.database.db, tenantId, 'webhook_endpoint.tested');
    expect(audits.at(-1)?.data).toMatchObject({
      delivered: false,
      responseCode: 302,
      error: 'redirect 302 not followed',
    });
  });

  it('accepts http and loopback URLs on this stack', async () => {
    const token = await api.token('ping');
    const created = await api.create(token, { url: 'http://localhost:9/x', events: ['run.completed'] });
    expect(created.url).toBe('http://localhost:9/x');
  });
});
