// The outbound webhook routes' edges, through the real api with a secret store key and no private
// networks: another tenant's ids answer 404 on every route, missing permissions 403, the event catalogue
// with the caller's tenant in its samples, a test ping to a loopback endpoint refused before any byte
// leaves, and each operation's description.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import { startListener } from './receiver.ts';
import { auditOf, insertEndpoint, startWebhooksPlatform, webhooksCalls } from './support.ts';

let platform: TestPlatform;
let api: ReturnType<typeof webhooksCalls>;
beforeAll(async () => {
  platform = await startWebhooksPlatform();
  api = webhooksCalls(platform);
}, 120_000);
afterAll(async () => platform?.close());

const body = (fields: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/platform/in?token=tenant-own-token',
  events: ['run.completed', 'decision.created'],
  ...fields,
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
      `/webhook-deliveries/${randomUUID()}/attempts`,
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
      [
        'get',
        '/webhook-deliveries/{id}/attempts',
        'listWebhookDeliveryAttempts',
        ['200', '400', '404', ...generic],
      ],
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
