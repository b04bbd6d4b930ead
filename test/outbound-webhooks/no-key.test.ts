// Without SECRET_STORE_KEY: an endpoint cannot be created (503 secret_store_unavailable, nothing
// written), nor its secret rotated, nor a ping signed; reading, replacing and deleting still answer.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../src/outbound-webhooks/index.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';
import { auditOf, insertEndpoint, startWebhooksPlatform, webhooksCalls } from './support.ts';

let platform: TestPlatform;
let api: ReturnType<typeof webhooksCalls>;
beforeAll(async () => {
  platform = await startWebhooksPlatform({ key: false });
  api = webhooksCalls(platform);
}, 120_000);
afterAll(async () => platform?.close());

describe('without a secret store key', () => {
  it('refuses to create an endpoint with 503, writing nothing', async () => {
    const token = await api.token('keyless');
    const tenantId = await platform.tenantId('keyless');
    expect(platform.config.secretStoreKey).toBeNull();
    await expectError(
      await api.call('/webhook-endpoints', token, 'POST', {
        url: 'https://hooks.example.com/in',
        events: ['run.completed'],
      }),
      503,
      'secret_store_unavailable',
    );
    const [held] = await platform.database.db
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.tenantId, tenantId));
    expect(held?.n).toBe(0);
    expect(await auditOf(platform.database.db, tenantId, 'webhook_endpoint.created')).toEqual([]);
  });

  it('refuses to rotate or ping, and still reads, replaces and deletes', async () => {
    const token = await api.token('keyless');
    const tenantId = await platform.tenantId('keyless');
    const id = await insertEndpoint(platform, {
      tenantId,
      url: 'https://hooks.example.com/in',
      secret: 'whsec_x',
    });
    for (const suffix of ['rotate-secret', 'test']) {
      await expectError(
        await api.call(`/webhook-endpoints/${id}/${suffix}`, token, 'POST'),
        503,
        'secret_store_unavailable',
      );
    }
    expect(await ok(await api.call(`/webhook-endpoints/${id}`, token))).toMatchObject({ id });
    expect(
      await ok(
        await api.call(`/webhook-endpoints/${id}`, token, 'PUT', {
          url: 'https://hooks.example.com/moved',
          events: ['run.failed'],
        }),
      ),
    ).toMatchObject({ url: 'https://hooks.example.com/moved', events: ['run.failed'] });
    expect((await api.call(`/webhook-endpoints/${id}`, token, 'DELETE')).status).toBe(204);
    expect(await auditOf(platform.database.db, tenantId, 'webhook_endpoint.secret_rotated')).toEqual([]);
  });
});
