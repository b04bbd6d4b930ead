// /webhook-endpoints through the real api with a secret store key and no private networks: create
// (secret once), list, read, replace, delete (with the deliveries), rotate; the URL rules and body
// refusals with nothing written; 20 endpoints a tenant, counted under a lock; the audit trail shows the
// URL masked and never a secret. Tenants, permissions and the catalogue: access.test.ts.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingSecrets, webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/index.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import {
  auditOf,
  type EndpointAnswer,
  insertDelivery,
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

const URL_ = 'https://hooks.example.com/platform/in?token=tenant-own-token';
const body = (fields: Record<string, unknown> = {}) => ({
  url: URL_,
  events: ['run.completed', 'decision.created'],
  ...fields,
});
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function endpointsOf(tenant: string) {
  const tenantId = await platform.tenantId(tenant);
  const [row] = await platform.database.db
    .select({ n: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, tenantId));
  return row?.n ?? 0;
}

describe('POST /webhook-endpoints', () => {
  it('creates the endpoint and answers its secret this once', async () => {
    const token = await api.token('create');
    const created = await api.create(token, body({ description: 'CRM sync' }));
    expect(created).toEqual({
      id: expect.any(String),
      url: URL_,
      description: 'CRM sync',
      events: ['run.completed', 'decision.created'],
      enabled: true,
      lastDeliveryAt: null,
      failing: false,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const { secret, ...endpoint } = created;
    expect(await ok(await api.call(`/webhook-endpoints/${created.id}`, token))).toEqual(endpoint);
    expect(await ok(await api.call('/webhook-endpoints', token))).toEqual({ items: [endpoint] });

    // Sealed in its row, bound to tenant and endpoint: it opens to the secret answered.
    const [row] = await platform.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.id));
    expect(row?.secretSealed.includes(Buffer.from(secret))).toBe(false);
    expect(signingSecrets(platform.config.secretStoreKey as Buffer, row as never, new Date())).toEqual([
      secret,
    ]);

    const [audit] = await auditOf(
      platform.database.db,
      await platform.tenantId('create'),
      'webhook_endpoint.created',
    );
    expect(audit).toMatchObject({
      resourceType: 'webhook_endpoint',
      resourceId: created.id,
      actorId: 'user:ada',
      data: {
        url: 'https://hooks.example.com/…',
        description: 'CRM sync',
        events: ['run.completed', 'decision.created'],
        enabled: true,
      },
    });
    expect(JSON.stringify(audit)).not.toContain('tenant-own-token');
    expect(JSON.stringify(audit)).not.toContain(secret);
    expect(JSON.stringify(platform.logs)).not.toContain(secret);
  });

  it('creates a disabled endpoint when told', async () => {
    const token = await api.token('create-disabled');
    const created = await api.create(token, body({ enabled: false, description: null }));
    expect(created).toMatchObject({ enabled: false, description: null });
  });

  it.each([
    ['an unknown event', body({ events: ['run.completed', 'run.started'] }), '/events/1'],
    ['the ping as an event', body({ events: ['ping'] }), '/events/0'],
    ['no events', body({ events: [] }), '/events'],
    ['an event twice', body({ events: ['run.completed', 'run.completed'] }), '/events'],
    ['events as text', body({ events: 'run.completed' }), '/events'],
    ['no url', { events: ['run.completed'] }, '/url'],
    ['enabled as text', body({ enabled: 'true' }), '/enabled'],
    ['an unknown field', body({ secret: 'whsec_mine' }), '/secret'],
    ['a description too long', body({ description: 'x'.repeat(501) }), '/description'],
    ['an http URL', body({ url: 'http://hooks.example.com/in' }), '/url'],
    ['localhost', body({ url: 'https://localhost/in' }), '/url'],
    ['127.0.0.1', body({ url: 'https://127.0.0.1/in' }), '/url'],
    ['[::1]', body({ url: 'https://[::1]/in' }), '/url'],
    ['169.254.169.254', body({ url: 'https://169.254.169.254/latest/meta-data' }), '/url'],
    ['10.0.0.1', body({ url: 'https://10.0.0.1/in' }), '/url'],
    ['NAT64 [64:ff9b::a00:1]', body({ url: 'https://[64:ff9b::a00:1]/in' }), '/url'],
    ['6to4 [2002::1]', body({ url: 'https://[2002::1]/in' }), '/url'],
    ['credentials', body({ url: 'https://user:pass@hooks.example.com/in' }), '/url'],
    ['a fragment', body({ url: 'https://hooks.example.com/in#x' }), '/url'],
    ['no URL at all', body({ url: 'hooks.example.com' }), '/url'],
  ])('refuses %s with 400 validation_error at its path, writing nothing', async (_what, sent, path) => {
    const token = await api.token('refusals');
    const response = await api.call('/webhook-endpoints', token, 'POST', sent);
    const error = await expectError(response, 400, 'validation_error');
    const issues = (error.details?.issues ?? []) as { path: string; message: string }[];
    expect(issues.map((issue) => issue.path)).toContain(path);
    expect(await endpointsOf('refusals')).toBe(0);
  });

  it('says why a URL is refused', async () => {
    const token = await api.token('refusals');
    const refused = async (url: string) => {
      const error = await expectError(
        await api.call('/webhook-endpoints', token, 'POST', body({ url })),
        400,
        'validation_error',
      );
      return error.details?.issues;
    };
    expect(await refused('https://[64:ff9b::a00:1]/in')).toEqual([
      {
        path: '/url',
        message: 'names a nat64 address ([64:ff9b::a00:1]): webhooks go to public addresses only',
      },
    ]);
    expect(await refused('http://hooks.example.com/in')).toEqual([
      { path: '/url', message: 'must use https' },
    ]);
  });

  it('keeps 20 endpoints a tenant: the 21st is 409 conflict with details.max', async () => {
    const token = await api.token('twenty');
    for (let i = 0; i < 20; i++) await api.create(token, body({ url: `https://hooks.example.com/${i}` }));
    const error = await expectError(
      await api.call('/webhook-endpoints', token, 'POST', body()),
      409,
      'conflict',
    );
    expect(error.details).toEqual({ max: 20 });
    expect(await endpointsOf('twenty')).toBe(20);
  });

  it('counts under a lock: of creates racing at 19 only one passes', async () => {
    const token = await api.token('race');
    for (let i = 0; i < 19; i++) await api.create(token, body({ url: `https://hooks.example.com/${i}` }));
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => api.call('/webhook-endpoints', token, 'POST', body())),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await endpointsOf('race')).toBe(20);
  });
});

describe('PUT /webhook-endpoints/:id', () => {
  it('replaces url, description, events and enabled; left out, description is none and enabled true', async () => {
    const token = await api.token('replace');
    const created = await api.create(token, body({ description: 'first', enabled: false }));
    const replaced = await ok<EndpointAnswer>(
      await api.call(`/webhook-endpoints/${created.id}`, token, 'PUT', {
        url: 'https://other.example.com/in?k=secret-in-query',
        events: ['app.circuit.opened'],
      }),
    );
    expect(replaced).toEqual({
      ...created,
      secret: undefined,
      url: 'https://other.example.com/in?k=secret-in-query',
      description: null,
      events: ['app.circuit.opened'],
      enabled: true,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(replaced).not.toHaveProperty('secret');
    expect(Date.parse(replaced.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    const [audit] = await auditOf(
      platform.database.db,
      await platform.tenantId('replace'),
      'webhook_endpoint.updated',
    );
    expect(audit?.data).toEqual({
      url: 'https://other.example.com/…',
      description: null,
      events: ['app.circuit.opened'],
      enabled: true,
      changed: ['url', 'description', 'events', 'enabled'],
    });
  });

  it('keeps the secret', async () => {
    const token = await api.token('replace');
    const created = await api.create(token, body());
    await ok(
      await api.call(
        `/webhook-endpoints/${created.id}`,
        token,
        'PUT',
        body({ url: 'https://new.example.com/' }),
      ),
    );
    const [row] = await platform.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.id));
    expect(signingSecrets(platform.config.secretStoreKey as Buffer, row as never, new Date())).toEqual([
      created.secret,
    ]);
  });

  it('refuses under the same rules, writing nothing', async () => {
    const token = await api.token('replace');
    const created = await api.create(token, body());
    for (const sent of [
      body({ url: 'https://10.0.0.1/' }),
      body({ events: [] }),
      body({ events: ['nope'] }),
    ]) {
      await expectError(
        await api.call(`/webhook-endpoints/${created.id}`, token, 'PUT', sent),
        400,
        'validation_error',
      );
    }
    const { secret: _secret, ...unchanged } = created;
    expect(await ok(await api.call(`/webhook-endpoints/${created.id}`, token))).toEqual(unchanged);
  });
});

describe('DELETE /webhook-endpoints/:id', () => {
  it('removes the endpoint and its deliveries', async () => {
    const token = await api.token('remove');
    const tenantId = await platform.tenantId('remove');
    const gone = await api.create(token, body());
    const kept = await api.create(token, body());
    const db = platform.database.db;
    for (const endpointId of [gone.id, gone.id, kept.id]) await insertDelivery(db, { tenantId, endpointId });

    const response = await api.call(`/webhook-endpoints/${gone.id}`, token, 'DELETE');
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    await expectError(await api.call(`/webhook-endpoints/${gone.id}`, token), 404, 'not_found');
    const left = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, tenantId));
    expect(left.map((d) => d.endpointId)).toEqual([kept.id]);
    const [audit] = await auditOf(db, tenantId, 'webhook_endpoint.deleted');
    expect(audit?.data).toEqual({
      url: 'https://hooks.example.com/…',
      events: ['run.completed', 'decision.created'],
      deliveries: 2,
    });
    await expectError(await api.call(`/webhook-endpoints/${gone.id}`, token, 'DELETE'), 404, 'not_found');
  });
});

describe('POST /webhook-endpoints/:id/rotate-secret', () => {
  it('answers a new secret once; the previous one signs for 24 hours, a second rotation replaces it', async () => {
    const token = await api.token('rotate');
    const tenantId = await platform.tenantId('rotate');
    const created = await api.create(token, body());
    const before = Date.now();
    const first = await ok<{ secret: string; previousSecretUntil: string }>(
      await api.call(`/webhook-endpoints/${created.id}/rotate-secret`, token, 'POST'),
    );
    expect(first.secret).toMatch(/^whsec_/);
    expect(first.secret).not.toBe(created.secret);
    const until = Date.parse(first.previousSecretUntil);
    expect(until - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const key = platform.config.secretStoreKey as Buffer;
    const secretsNow = async (at = new Date()) => {
      const [row] = await platform.database.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, created.id));
      return signingSecrets(key, row as never, at);
    };
    expect(await secretsNow()).toEqual([first.secret, created.secret]);
    expect(await secretsNow(new Date(until + 1))).toEqual([first.secret]);

    const second = await ok<{ secret: string }>(
      await api.call(`/webhook-endpoints/${created.id}/rotate-secret`, token, 'POST'),
    );
    expect(await secretsNow()).toEqual([second.secret, first.secret]);

    const audits = await auditOf(platform.database.db, tenantId, 'webhook_endpoint.secret_rotated');
    expect(audits.map((a) => a.data)).toEqual([
      { url: 'https://hooks.example.com/…', previousSecretUntil: first.previousSecretUntil },
      { url: 'https://hooks.example.com/…', previousSecretUntil: expect.stringMatching(ISO) },
    ]);
    const trail = JSON.stringify(audits);
    for (const secret of [created.secret, first.secret, second.secret]) {
      expect(trail).not.toContain(secret);
      expect(JSON.stringify(platform.logs)).not.toContain(secret);
    }
  });
});
