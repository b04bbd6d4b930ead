// Secrets of an install through the real api (docs/installs.md "Secrets"):
// sealed at rest, never in an answer, a log line or an audit row.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { open } from '../../src/installs/secrets/seal.ts';
import { appInstallSecrets } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import {
  configurableModule,
  echoInstall,
  errorOf,
  ok,
  publishEcho,
  published,
  SECRET_KEY_HEX,
  seenThroughForgedHost,
  untilBlockedBy,
} from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
}, 120_000);
afterAll(async () => platform?.close());

const as = (tenant: string) => platform.token({ tenant });
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });
const bodies: string[] = [];
/** Every answer of this file is kept, to search them all for secret values at the end. */
async function kept(response: Promise<Response>, status: number) {
  const r = await response;
  const text = await r.text();
  bodies.push(text);
  expect(r.status, text).toBe(status);
  return (text ? JSON.parse(text) : null) as Record<string, unknown> & {
    error?: { code: string; details?: Record<string, unknown> };
  };
}

const VALUES = ['sk-live-7c1f0e93-api-key', 'replaced-2b8d4a11-value', 'partner-5e6f-token'];

describe('secrets', () => {
  it('stores, replaces and removes a sealed secret; enabling waits for it', async () => {
    const token = await as('keeper');
    const v = await publishEcho(platform, token, 'secret-app');
    const created = await kept(
      call('/app-installs', token, 'POST', {
        name: 's',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    expect(created).toMatchObject({
      requiredSecrets: ['API_KEY'],
      storedSecrets: [],
      missingSecrets: ['API_KEY'],
    });
    expect((await kept(call('/app-installs/s', token, 'PUT', { versionId: v.id }), 409)).error?.code).toBe(
      'install_not_configured',
    );

    const stored = await kept(
      call('/app-installs/s/secrets/API_KEY', token, 'POST', { value: VALUES[0] }),
      200,
    );
    expect(stored).toMatchObject({ storedSecrets: ['API_KEY'], missingSecrets: [] });
    const [row] = await platform.database.db
      .select()
      .from(appInstallSecrets)
      .where(eq(appInstallSecrets.installId, created.id as string));
    expect(row?.tenantId).toBe(await platform.tenantId('keeper'));
    expect(Buffer.from(row?.sealed ?? []).includes(Buffer.from(VALUES[0] as string))).toBe(false);
    const key = Buffer.from(SECRET_KEY_HEX, 'hex');
    const binding = { tenantId: row?.tenantId as string, installId: created.id as string, name: 'API_KEY' };
    expect(open(key, binding, row?.sealed as Buffer)).toBe(VALUES[0]);

    expect((await kept(call('/app-installs/s', token, 'PUT', { versionId: v.id }), 200)).enabled).toBe(true);
    await kept(call('/app-installs/s/secrets/API_KEY', token, 'POST', { value: VALUES[1] }), 200);
    const [replaced] = await platform.database.db
      .select()
      .from(appInstallSecrets)
      .where(eq(appInstallSecrets.installId, created.id as string));
    expect(open(key, binding, replaced?.sealed as Buffer)).toBe(VALUES[1]);

    const removed = await kept(call('/app-installs/s/secrets/API_KEY', token, 'DELETE'), 200);
    expect(removed).toMatchObject({ storedSecrets: [], missingSecrets: ['API_KEY'] });
    expect((await kept(call('/app-installs/s/secrets/API_KEY', token, 'DELETE'), 404)).error?.code).toBe(
      'not_found',
    );

    const trail = (await kept(call('/audit-events?action=app.secret.*', token), 200)).items as {
      action: string;
      data: Record<string, unknown>;
    }[];
    expect(trail.map((e) => [e.action, e.data.secret, e.data.replaced])).toEqual([
      ['app.secret.revoked', 'API_KEY', undefined],
      ['app.secret.stored', 'API_KEY', true],
      ['app.secret.stored', 'API_KEY', false],
    ]);
  });

  it('stores only names the app or the config declares; config secret variables become required', async () => {
    const token = await as('declared');
    const v = await published(platform, token, configurableModule('declared-app', '1.0.0'));
    await kept(
      call('/app-installs', token, 'POST', {
        name: 'd',
        versionId: v.id,
        enabled: false,
        config: { variables: [{ key: 'PARTNER_TOKEN', secret: true }], note: 'Bearer <<PARTNER_TOKEN>>' },
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    const view = await kept(
      call('/app-installs/d/secrets/PARTNER_TOKEN', token, 'POST', { value: VALUES[2] }),
      200,
    );
    expect(view).toMatchObject({
      requiredSecrets: ['API_KEY', 'PARTNER_TOKEN'],
      storedSecrets: ['PARTNER_TOKEN'],
      missingSecrets: ['API_KEY'],
    });
    // EU_TOKEN is declared (required only for region eu), so it may be stored before it is needed.
    await kept(call('/app-installs/d/secrets/EU_TOKEN', token, 'POST', { value: VALUES[2] }), 200);
    for (const name of ['UNDECLARED', '1bad', 'a'.repeat(65)]) {
      const error = await kept(
        call(`/app-installs/d/secrets/${name}`, token, 'POST', { value: VALUES[2] }),
        400,
      );
      expect(error.error?.code, name).toBe('validation_error');
    }
    expect((await kept(call('/app-installs/d/secrets/API_KEY', token, 'POST', {}), 400)).error?.code).toBe(
      'validation_error',
    );
    expect(
      (await kept(call('/app-installs/gone/secrets/API_KEY', token, 'POST', { value: VALUES[2] }), 404)).error
        ?.code,
    ).toBe('unknown_install');
  });

  it('refuses a value too short to be redacted at /value, and keeps what was stored', async () => {
    const token = await as('short');
    const v = await publishEcho(platform, token, 'short-app');
    await kept(
      call('/app-installs', token, 'POST', {
        name: 'short',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await kept(call('/app-installs/short/secrets/API_KEY', token, 'POST', { value: VALUES[0] }), 200);
    for (const value of ['k', 'hush', '1234567']) {
      const refused = await kept(call('/app-installs/short/secrets/API_KEY', token, 'POST', { value }), 400);
      expect(refused.error).toMatchObject({
        code: 'validation_error',
        details: {
          issues: [
            {
              path: '/value',
              message:
                'a secret is at least 8 characters: a shorter value could not be told apart from ordinary text, so it could not be redacted',
            },
          ],
        },
      });
    }
    const trail = (await kept(call('/audit-events?action=app.secret.*', token), 200)).items as unknown[];
    expect(trail).toHaveLength(1);
    const view = await kept(call('/app-installs/short', token), 200);
    expect(view).toMatchObject({ storedSecrets: ['API_KEY'] });
  });

  it('removes secrets with the install, and a store racing the removal answers 404 unknown_install', async () => {
    const token = await as('removal');
    const v = await publishEcho(platform, token, 'removal-app');
    const created = await kept(
      call('/app-installs', token, 'POST', {
        name: 'r',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await kept(call('/app-installs/r/secrets/API_KEY', token, 'POST', { value: VALUES[0] }), 200);
    const db = platform.database.db;

    // Hold the install's row lock in a transaction that removes the install, as DELETE does; the store
    // waits for it and then finds no install.
    let store: Promise<Record<string, unknown>> | undefined;
    await db.transaction(async (tx) => {
      await tx.execute(sql`select id from app_installs where id = ${created.id as string} for update`);
      store = kept(call('/app-installs/r/secrets/API_KEY', token, 'POST', { value: VALUES[1] }), 404);
      // Proceed once the store is waiting on this transaction's row lock.
      await untilBlockedBy(db, tx);
      await tx.execute(sql`delete from app_install_secrets where install_id = ${created.id as string}`);
      await tx.execute(sql`delete from app_installs where id = ${created.id as string}`);
    });
    expect(((await store) as { error?: { code: string } }).error?.code).toBe('unknown_install');
    expect(
      await db
        .select()
        .from(appInstallSecrets)
        .where(eq(appInstallSecrets.installId, created.id as string)),
    ).toEqual([]);

    // DELETE through the api removes the secrets too.
    const again = await kept(
      call('/app-installs', token, 'POST', {
        name: 'r',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await kept(call('/app-installs/r/secrets/API_KEY', token, 'POST', { value: VALUES[0] }), 200);
    expect((await call('/app-installs/r', token, 'DELETE')).status).toBe(204);
    expect(
      await db
        .select()
        .from(appInstallSecrets)
        .where(eq(appInstallSecrets.installId, again.id as string)),
    ).toEqual([]);
    const [uninstalled] = (await kept(call('/audit-events?action=app.uninstalled', token), 200)).items as {
      data: Record<string, unknown>;
    }[];
    expect(uninstalled?.data).toMatchObject({ name: 'r', secretsRemoved: ['API_KEY'] });
  });

  it('shows no secret value in any answer, log line or audit row', async () => {
    const everything = [
      ...bodies,
      ...platform.logs.map((line) => JSON.stringify(line)),
      ...(await platform.database.db.select().from(auditEvents)).map((row) => JSON.stringify(row)),
    ];
    expect(everything.length).toBeGreaterThan(20);
    for (const value of VALUES) {
      expect(everything.filter((text) => text.includes(value))).toEqual([]);
    }
  });
});

describe('without WEBHOOK_PUBLIC_URL', () => {
  it('shows webhookUrl null and sends no callbackUrl, whatever Host the caller sends', async () => {
    const token = await as('no-public-url');
    await echoInstall(platform, token);
    const seen = await seenThroughForgedHost(platform, token);
    expect(seen.webhookUrl).toBeNull();
    expect(seen.call).not.toHaveProperty('callbackUrl');
    expect(JSON.stringify(seen.call)).not.toContain('evil.example.com');
  });
});

describe('without SECRET_STORE_KEY', () => {
  let bare: CataloguePlatform;
  beforeAll(async () => {
    bare = await startCataloguePlatform();
  }, 120_000);
  afterAll(async () => bare?.close());

  it('answers 503 secret_store_unavailable to store and remove', async () => {
    expect(bare.config.secretStoreKey).toBeNull();
    const token = await bare.token({ tenant: 'keyless' });
    const v = await publishEcho(bare, token, 'keyless-app');
    await ok(
      await bare.fetch('/app-installs', {
        method: 'POST',
        token,
        json: { name: 'k', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] },
      }),
      201,
    );
    for (const method of ['POST', 'DELETE']) {
      const response = await bare.fetch('/app-installs/k/secrets/API_KEY', {
        method,
        token,
        json: method === 'POST' ? { value: VALUES[0] } : undefined,
      });
      expect((await errorOf(response, 503)).code).toBe('secret_store_unavailable');
    }
  });
});
