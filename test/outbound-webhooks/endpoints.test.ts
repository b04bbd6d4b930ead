// /webhook-endpoints through the real api with a secret store key and no private networks: create
// (secret once), list, read, replace, delete (with the deliveries), rotate; the URL rules and body
// refusals with nothing written; 20 endpoints a tenant, counted under a lock; another tenant's ids
// answer 404, missing permissions 403; the audit trail shows the URL masked and never a secret.
import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingSecrets, webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/index.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import { startListener } from './receiver.ts';
import {
  auditOf,
  type EndpointAnswer,
  insertDelivery,
  insertEndpoint,
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

describe('tenants and permissions', () => {
  it('answers another tenant’s endpoint as not found, on every route', async () => {
    const theirs = await api.create(await api.token('owner'), body());
    const token = await api.token('stranger');
    const path = `/webhook-endpoints/${theirs.id}`;
    for (const [method, suffix, json] of [
      ['GET', '', undefined],
      ['PUT', '', body()],
      ['DELETE', '', undefined],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/test', undefined],
    ] as const) {
      await expectError(await api.call(`${path}${suffix}`, token, method, json), 404, 'not_found');
    }
    expect(await ok(await api.call('/webhook-endpoints', token))).toEqual({ items: [] });
    const { secret: _secret, ...intact } = theirs;
    expect(await ok(await api.call(path, await api.token('owner')))).toEqual(intact);
    expect(
      await auditOf(platform.database.db, await platform.tenantId('stranger'), 'webhook_endpoint.deleted'),
    ).toEqual([]);
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const created = await api.create(await api.token('perms'), body());
    const reader = await api.token('perms', ['webhooks:read']);
    expect(await ok(await api.call('/webhook-endpoints', reader))).toMatchObject({
      items: [{ id: created.id }],
    });
    for (const [method, path, json] of [
      ['POST', '/webhook-endpoints', body()],
      ['PUT', `/webhook-endpoints/${created.id}`, body()],
      ['DELETE', `/webhook-endpoints/${created.id}`, undefined],
      ['POST', `/webhook-endpoints/${created.id}/rotate-secret`, undefined],
      ['POST', `/webhook-endpoints/${created.id}/test`, undefined],
      ['POST', `/webhook-deliveries/${randomUUID()}/retry`, undefined],
    ] as const) {
      const error = await expectError(await api.call(path, reader, method, json), 403, 'forbidden');
      expect(error.details).toEqual({ permission: 'webhooks:write' });
    }
    const analyst = await platform.token({ tenant: 'perms', roles: ['analyst'] });
    for (const path of [
      '/webhook-events',
      '/webhook-endpoints',
      `/webhook-endpoints/${created.id}`,
      '/webhook-deliveries',
      `/workflow-runs/${randomUUID()}/related`,
    ]) {
      const error = await expectError(await api.call(path, analyst), 403, 'forbidden');
      expect(error.details).toEqual({ permission: 'webhooks:read' });
    }
  });
});

describe('GET /webhook-events', () => {
  it('lists every event type and the ping with a sample body for the caller’s tenant', async () => {
    const token = await api.token('events');
    const tenantId = await platform.tenantId('events');
    const { items } = await ok<{ items: { type: string; sample: { tenantId: string; type: string } }[] }>(
      await api.call('/webhook-events', token),
    );
    expect(items).toHaveLength(18);
    expect(items.at(-1)?.type).toBe('ping');
    for (const item of items) {
      expect(item.sample.type).toBe(item.type);
      expect(item.sample.tenantId).toBe(tenantId);
    }
    expect(items[0]).toMatchObject({
      type: 'decision.created',
      actions: ['decision.emitted'],
      resourceType: 'decision',
      sample: { resource: { type: 'decision' }, data: { outcome: 'review', source: 'decide' } },
    });
  });
});

describe('the test ping without private networks', () => {
  it('sends nothing to a loopback endpoint (saved under other rules): zero bytes reach a listener there', async () => {
    const token = await api.token('loopback');
    const tenantId = await platform.tenantId('loopback');
    const listener = await startListener();
    try {
      for (const [url, error] of [
        [`https://127.0.0.1:${listener.port}/in`, 'refused: the host resolves to a loopback address'],
        [`https://localhost:${listener.port}/in`, 'refused: the host is local'],
        [
          `https://[::ffff:127.0.0.1]:${listener.port}/in`,
          'refused: the host resolves to a loopback address',
        ],
        [`http://127.0.0.1:${listener.port}/in`, 'the endpoint URL must use https'],
      ] as const) {
        const id = await insertEndpoint(platform, { tenantId, url, secret: 'whsec_saved_before' });
        const answer = await ok<{ delivered: boolean; responseCode: number | null; error?: string }>(
          await api.call(`/webhook-endpoints/${id}/test`, token, 'POST'),
        );
        expect(answer, url).toMatchObject({ delivered: false, responseCode: null, error });
      }
      expect(listener.seen).toEqual({ connections: 0, bytes: 0 });
    } finally {
      await listener.close();
    }
  });
});

describe('the description of the outbound webhook routes', () => {
  it('names each operation, with the statuses it answers', async () => {
    type Operations = Record<
      string,
      Record<string, { operationId: string; summary: string; tags: string[]; responses: object }>
    >;
    const { paths } = (await (await platform.fetch('/openapi.json', { token: null })).json()) as {
      paths: Operations;
    };
    const described = (method: string, path: string) => {
      const op = paths[path]?.[method];
      return (
        op && {
          id: op.operationId,
          tags: op.tags,
          statuses: Object.keys(op.responses).sort(),
          summary: op.summary,
        }
      );
    };
    const generic = ['400', '401', '403', '429', '500', '503'];
    const withBody = [...generic, '400', '413', '415'];
    const expected: [string, string, string, string[]][] = [
      ['get', '/webhook-events', 'listWebhookEvents', ['200', ...generic]],
      ['get', '/webhook-endpoints', 'listWebhookEndpoints', ['200', ...generic]],
      ['post', '/webhook-endpoints', 'createWebhookEndpoint', ['201', '409', ...withBody]],
      ['get', '/webhook-endpoints/{id}', 'getWebhookEndpoint', ['200', '400', '404', ...generic]],
      ['put', '/webhook-endpoints/{id}', 'replaceWebhookEndpoint', ['200', '404', ...withBody]],
      ['delete', '/webhook-endpoints/{id}', 'deleteWebhookEndpoint', ['204', '400', '404', ...generic]],
      ['post', '/webhook-endpoints/{id}/rotate-secret', 'rotateWebhookSecret', ['200', '404', ...withBody]],
      ['post', '/webhook-endpoints/{id}/test', 'testWebhookEndpoint', ['200', '404', ...withBody]],
      ['get', '/webhook-deliveries', 'listWebhookDeliveries', ['200', '400', ...generic]],
      ['post', '/webhook-deliveries/{id}/retry', 'retryWebhookDelivery', ['200', '404', '409', ...withBody]],
      ['get', '/workflow-runs/{id}/related', 'listWorkflowRunDeliveries', ['200', '400', '404', ...generic]],
    ];
    for (const [method, path, id, statuses] of expected) {
      expect(described(method, path), `${method} ${path}`).toEqual({
        id,
        tags: expect.any(Array),
        statuses: [...new Set(statuses)].sort(),
        summary: expect.any(String),
      });
    }
  });
});
