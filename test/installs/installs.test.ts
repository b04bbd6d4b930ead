// Installs through the real api (docs/installs.md: the rules of a save, the install view, approved hosts).
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBlocks } from '../../src/catalogue/tables.ts';
import { appInstallAliases, appInstalls } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { startTestPlatform } from '../support/platform.ts';
import {
  configurableModule,
  echoInstall,
  errorOf,
  ok,
  publishEcho,
  published,
  publishPlatformApp,
  SECRET_KEY_HEX,
  seenThroughForgedHost,
} from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    WEBHOOK_PUBLIC_URL: 'https://hooks.example.com/base/',
  });
}, 120_000);
afterAll(async () => platform?.close());

const as = (tenant: string, user = 'ada') => platform.token({ tenant, user });
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });
const install = (token: string, body: Record<string, unknown>) => call('/app-installs', token, 'POST', body);
const save = (token: string, name: string, body: Record<string, unknown>) =>
  call(`/app-installs/${name}`, token, 'PUT', body);

async function auditOf(token: string, action: string) {
  const body = await ok<{ items: { resource: { id: string }; data: Record<string, unknown> }[] }>(
    await call(`/audit-events?action=${action}`, token),
  );
  return body.items;
}

describe('install, read, save and remove', () => {
  it('creates an install and answers the full install view', async () => {
    const token = await as('views');
    const v1 = await publishEcho(platform, token, 'echo-one');
    const created = await ok<Record<string, unknown>>(
      await install(token, {
        name: 'screening',
        versionId: v1.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
        comment: 'first',
      }),
      201,
    );
    const id = created.id as string;
    expect(created).toEqual({
      id: expect.any(String),
      tenantId: await platform.tenantId('views'),
      name: 'screening',
      appName: 'echo-one',
      versionId: v1.id,
      version: expect.objectContaining({
        id: v1.id,
        name: 'echo-one',
        version: '1.0.0',
        status: 'published',
      }),
      autoUpgrade: 'off',
      upgradedFromVersionId: null,
      enabled: false,
      config: {},
      hosts: ['api.vendor.test'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      requiredSecrets: ['API_KEY'],
      storedSecrets: [],
      missingSecrets: ['API_KEY'],
      updateAvailable: false,
      webhookUrl: `https://hooks.example.com/base/webhooks/app-installs/${id}`,
      pendingChange: null,
      aliases: [],
      circuit: {
        state: 'closed',
        failures: 0,
        since: null,
        settings: null,
        defaults: { failureThreshold: 5, openSeconds: 30 },
      },
    });
    expect(await ok(await call('/app-installs/screening', token))).toEqual(created);
    expect((await ok<{ items: unknown[] }>(await call('/app-installs', token))).items).toEqual([created]);
    expect((await ok<{ items: unknown[] }>(await call('/app-installs?app=echo-one', token))).items).toEqual([
      created,
    ]);
    expect((await ok<{ items: unknown[] }>(await call('/app-installs?app=other', token))).items).toEqual([]);
    expect((await ok<{ installs: string[] }>(await call('/apps/echo-one', token))).installs).toEqual([
      'screening',
    ]);
    const [audit] = await auditOf(token, 'app.installed');
    expect(audit).toMatchObject({
      resource: { id },
      data: {
        name: 'screening',
        appName: 'echo-one',
        versionId: v1.id,
        autoUpgrade: 'off',
        comment: 'first',
      },
    });

    // A higher published version shows as an update; a save moves the install onto it.
    const v2 = await publishEcho(platform, token, 'echo-one', '1.1.0');
    expect(
      (await ok<{ updateAvailable: boolean }>(await call('/app-installs/screening', token))).updateAvailable,
    ).toBe(true);
    const saved = await ok<Record<string, unknown>>(
      await save(token, 'screening', { versionId: v2.id, enabled: false, config: { any: 'thing' } }),
    );
    expect(saved).toMatchObject({
      id,
      versionId: v2.id,
      version: { version: '1.1.0' },
      config: { any: 'thing' },
      updateAvailable: false,
      enabled: false,
      hosts: ['api.vendor.test'],
    });
    expect(Date.parse(saved.updatedAt as string)).toBeGreaterThan(Date.parse(created.updatedAt as string));
    const [configured] = await auditOf(token, 'app.configured');
    expect(configured).toMatchObject({
      resource: { id },
      data: { versionId: v2.id, previousVersionId: v1.id, configChanged: true, enabled: false },
    });

    // Removing it frees the name and is audited.
    expect((await call('/app-installs/screening', token, 'DELETE')).status).toBe(204);
    expect((await errorOf(await call('/app-installs/screening', token), 404)).code).toBe('unknown_install');
    const [uninstalled] = await auditOf(token, 'app.uninstalled');
    expect(uninstalled).toMatchObject({ resource: { id }, data: { name: 'screening' } });
    await ok(
      await install(token, {
        name: 'screening',
        versionId: v2.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
  });

  it('counts a prerelease as an update only for an install on a prerelease', async () => {
    const token = await as('prereleases');
    const release = await publishEcho(platform, token, 'pre-app', '1.0.0');
    const beta = await publishEcho(platform, token, 'pre-app', '1.1.0-beta.1');
    const base = { enabled: false, approveHosts: ['api.vendor.test'] };
    await ok(await install(token, { ...base, name: 'on-release', versionId: release.id }), 201);
    await ok(await install(token, { ...base, name: 'on-beta', versionId: beta.id }), 201);
    const read = async (name: string) =>
      (await ok<{ updateAvailable: boolean }>(await call(`/app-installs/${name}`, token))).updateAvailable;
    expect([await read('on-release'), await read('on-beta')]).toEqual([false, false]);
    await publishEcho(platform, token, 'pre-app', '1.1.0-beta.2');
    expect([await read('on-release'), await read('on-beta')]).toEqual([false, true]);
  });

  it('unfolds hosts from config URLs, required secrets by condition and the webhook url from config', async () => {
    const token = await as('configured');
    const v = await published(platform, token, configurableModule('vendor-api', '1.0.0'));
    const created = await ok<Record<string, unknown>>(
      await install(token, {
        name: 'vendor',
        versionId: v.id,
        enabled: false,
        config: {
          baseUrl: 'https://eu.vendor.example:8443/v2',
          region: 'eu',
          variables: [
            { key: 'PARTNER_TOKEN', secret: true, stepPlaces: ['headers'] },
            { key: 'plain', value: 'x' },
          ],
        },
        approveHosts: ['api.vendor.test', 'eu.vendor.example:8443'],
      }),
      201,
    );
    expect(created).toMatchObject({
      hosts: ['api.vendor.test', 'eu.vendor.example:8443'],
      requiredSecrets: ['API_KEY', 'EU_TOKEN', 'PARTNER_TOKEN'],
      missingSecrets: ['API_KEY', 'EU_TOKEN', 'PARTNER_TOKEN'],
      webhookUrl: null,
    });
    // Another region needs no EU_TOKEN; the id source in config opens the webhook url; dropping the URL
    // drops its host without approval.
    const saved = await ok<Record<string, unknown>>(
      await save(token, 'vendor', {
        versionId: v.id,
        enabled: false,
        config: { region: 'us', idSource: { header: 'x-vendor-id' } },
      }),
    );
    expect(saved).toMatchObject({
      hosts: ['api.vendor.test'],
      requiredSecrets: ['API_KEY'],
      webhookUrl: `https://hooks.example.com/base/webhooks/app-installs/${created.id}`,
    });
    const [configured] = await auditOf(token, 'app.configured');
    expect(configured?.data).toMatchObject({ hostsAdded: [], hostsRemoved: ['eu.vendor.example:8443'] });
  });

  it('installs a platform app with autoUpgrade compatible, keeps it when a save leaves it out', async () => {
    const token = await as('upgrades');
    const ids = await publishPlatformApp(platform, 'platform-echo', ['1.0.0', '1.1.0']);
    const created = await ok<Record<string, unknown>>(
      await install(token, {
        name: 'auto',
        versionId: ids.get('1.1.0'),
        enabled: false,
        approveHosts: ['api.vendor.test'],
        autoUpgrade: 'compatible',
      }),
      201,
    );
    expect(created).toMatchObject({ autoUpgrade: 'compatible', upgrade: { target: null, waitingFor: null } });
    const [audit] = await auditOf(token, 'app.installed');
    expect(audit?.data).toMatchObject({ name: 'auto', autoUpgrade: 'compatible' });

    const kept = await ok<Record<string, unknown>>(
      await save(token, 'auto', { versionId: ids.get('1.1.0'), enabled: false, config: { a: 1 } }),
    );
    expect(kept.autoUpgrade).toBe('compatible');
    // Down to a lower version while autoUpgrade stays on: refused; with autoUpgrade off in the same save: fine.
    const down = await errorOf(
      await save(token, 'auto', { versionId: ids.get('1.0.0'), enabled: false }),
      400,
    );
    expect(down.code).toBe('validation_error');
    const off = await ok<Record<string, unknown>>(
      await save(token, 'auto', { versionId: ids.get('1.0.0'), enabled: false, autoUpgrade: 'off' }),
    );
    expect(off).toMatchObject({ autoUpgrade: 'off', version: { version: '1.0.0' }, updateAvailable: true });
    expect(off).not.toHaveProperty('upgrade');
  });
});

describe('install rules', () => {
  it('keeps names unique among names and aliases, and refuses reserved names', async () => {
    const token = await as('names');
    const v = await publishEcho(platform, token, 'names-app');
    const body = { versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] };
    const first = await ok<{ id: string }>(await install(token, { ...body, name: 'kyc' }), 201);
    const taken = await errorOf(await install(token, { ...body, name: 'kyc' }), 409);
    expect(taken).toMatchObject({ code: 'install_name_taken', details: { name: 'kyc', aliasOf: null } });
    // A kept alias, written directly as a rename would (renames.test.ts goes through the api).
    await platform.database.db
      .insert(appInstallAliases)
      .values({ tenantId: await platform.tenantId('names'), installId: first.id, alias: 'old-kyc' });
    const alias = await errorOf(await install(token, { ...body, name: 'old-kyc' }), 409);
    expect(alias).toMatchObject({ code: 'install_name_taken', details: { name: 'old-kyc', aliasOf: 'kyc' } });
    expect((await ok<{ aliases: string[] }>(await call('/app-installs/kyc', token))).aliases).toEqual([
      'old-kyc',
    ]);
    // Another tenant has its own namespace.
    const other = await as('names-elsewhere');
    const theirs = await publishEcho(platform, other, 'names-app');
    await ok(await install(other, { ...body, versionId: theirs.id, name: 'kyc' }), 201);
    for (const name of ['health', 'uploads', 'Bad_Name']) {
      expect((await errorOf(await install(token, { ...body, name }), 400)).code).toBe('validation_error');
    }
  });

  it('stops at 50 installs per tenant with install_limit_reached', async () => {
    const token = await as('many');
    const v = await publishEcho(platform, token, 'many-app');
    const body = { versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] };
    for (let i = 0; i < 50; i++) await ok(await install(token, { ...body, name: `install-${i}` }), 201);
    const refused = await errorOf(await install(token, { ...body, name: 'one-too-many' }), 409);
    expect(refused).toMatchObject({ code: 'install_limit_reached', details: { max: 50 } });
    expect((await call('/app-installs/install-0', token, 'DELETE')).status).toBe(204);
    await ok(await install(token, { ...body, name: 'one-too-many' }), 201);
  });

  it('refuses versions that are unknown, not published, another tenant’s, or blocked', async () => {
    const token = await as('versions');
    const upload = await platform.upload(await configurableModule('versions-app', '0.1.0'), token);
    const uploaded = await ok<{ id: string }>(upload, 201);
    const other = await publishEcho(platform, await as('versions-other'), 'foreign-app');
    const body = { name: 'x', enabled: false, approveHosts: ['api.vendor.test'] };
    for (const versionId of [crypto.randomUUID(), uploaded.id, other.id]) {
      const error = await errorOf(await install(token, { ...body, versionId }), 400);
      expect(error).toMatchObject({
        code: 'validation_error',
        details: { issues: [{ path: '/versionId' }] },
      });
    }
    const v = await publishEcho(platform, token, 'blocked-app');
    const sha = await ok<{ items: { sha256: string }[] }>(await call('/apps/blocked-app/versions', token));
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: sha.items[0]?.sha256, reason: 'leaks data', createdBy: 'operator' });
    const blocked = await errorOf(await install(token, { ...body, versionId: v.id }), 409);
    expect(blocked).toMatchObject({ code: 'app_blocked', details: { reason: 'leaks data' } });
  });

  it('refuses autoUpgrade compatible for a tenant’s own app', async () => {
    const token = await as('auto-own');
    const v = await publishEcho(platform, token, 'own-app');
    const error = await errorOf(
      await install(token, {
        name: 'own',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
        autoUpgrade: 'compatible',
      }),
      400,
    );
    expect(error).toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: '/autoUpgrade' }] },
    });
  });

  it('validates config against the schema, then its URLs and secret references', async () => {
    const token = await as('config-rules');
    const v = await published(platform, token, configurableModule('rules-app', '1.0.0'));
    const body = { name: 'rules', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] };
    const cases: [Record<string, unknown>, string][] = [
      [{ region: 'mars' }, '/region'],
      [{ baseUrl: 'http://vendor.example' }, '/baseUrl'],
      [{ baseUrl: 'https://user:pw@vendor.example' }, '/baseUrl'],
      [{ baseUrl: 'https://10.0.0.1' }, '/baseUrl'],
      [{ baseUrl: 'https://vendor.example:22' }, '/baseUrl'],
      [{ baseUrl: 'https://hooks.example.com:9000' }, '/baseUrl'],
      [{ note: 'Bearer {{secret:NOPE}}' }, '/note'],
      [{ variables: [{ key: '1bad', secret: true }] }, '/variables/0/key'],
      [{ variables: [{ key: 'TOKEN', secret: true, value: 'inline' }] }, '/variables/0/value'],
      [{ variables: [{ key: 'TOKEN', stepPlaces: ['headers'] }] }, '/variables/0/stepPlaces'],
    ];
    for (const [config, path] of cases) {
      const error = await errorOf(await install(token, { ...body, config }), 400);
      expect(error.code, JSON.stringify(config)).toBe('validation_error');
      expect(error.details?.issues, JSON.stringify(config)).toEqual(
        expect.arrayContaining([expect.objectContaining({ path })]),
      );
    }
    const missing = await ok<{ items: unknown[] }>(await call('/app-installs', token));
    expect(missing.items).toEqual([]);
  });

  it('needs every added host in approveHosts (hosts_not_approved) on create and save', async () => {
    const token = await as('hosts');
    const v = await published(platform, token, configurableModule('hosts-app', '1.0.0'));
    const refused = await errorOf(await install(token, { name: 'h', versionId: v.id, enabled: false }), 409);
    expect(refused).toMatchObject({ code: 'hosts_not_approved', details: { added: ['api.vendor.test'] } });
    await ok(
      await install(token, { name: 'h', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] }),
      201,
    );
    const config = { baseUrl: 'https://new.vendor.example/api' };
    const adds = await errorOf(await save(token, 'h', { versionId: v.id, enabled: false, config }), 409);
    expect(adds).toMatchObject({ code: 'hosts_not_approved', details: { added: ['new.vendor.example'] } });
    const approved = await ok<{ hosts: string[] }>(
      await save(token, 'h', {
        versionId: v.id,
        enabled: false,
        config,
        approveHosts: ['new.vendor.example'],
      }),
    );
    expect(approved.hosts).toEqual(['api.vendor.test', 'new.vendor.example']);
    // Approved once, the host needs no approval on the next save.
    await ok(await save(token, 'h', { versionId: v.id, enabled: false, config: { ...config, note: 'n' } }));
  });

  it('holds a save that adds hosts while the tenant requires approvals for apps (changes*.test.ts)', async () => {
    const token = await as('approvals');
    const v = await published(platform, token, configurableModule('approved-app', '1.0.0'));
    await ok(
      await install(token, { name: 'a', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] }),
      201,
    );
    await ok(
      await call('/tenants/me/settings', token, 'PUT', {
        approvals: { required: true, requiredFor: ['apps'], fourEyes: true },
        collection: { flowUrl: null },
      }),
    );
    const config = { baseUrl: 'https://held.vendor.example' };
    const held = await ok<{ install: { hosts: string[] }; change: { hostsAdded: string[] } }>(
      await save(token, 'a', {
        versionId: v.id,
        enabled: false,
        config,
        approveHosts: ['held.vendor.example'],
      }),
      202,
    );
    expect(held).toMatchObject({
      install: { hosts: ['api.vendor.test'] },
      change: { hostsAdded: ['held.vendor.example'] },
    });
    // A save adding no host applies at once.
    await ok(await save(token, 'a', { versionId: v.id, enabled: false, config: { note: 'fine' } }));
  });

  it('enables only with every required secret stored; a save that only switches off is never refused', async () => {
    const token = await as('enable');
    const v = await publishEcho(platform, token, 'enable-app');
    const body = { name: 'e', versionId: v.id, approveHosts: ['api.vendor.test'] };
    const refused = await errorOf(await install(token, body), 409);
    expect(refused).toMatchObject({
      code: 'install_not_configured',
      details: { missingSecrets: ['API_KEY'] },
    });
    await ok(await install(token, { ...body, enabled: false }), 201);
    const still = await errorOf(await save(token, 'e', { versionId: v.id, enabled: true }), 409);
    expect(still).toMatchObject({ code: 'install_not_configured', details: { missingSecrets: ['API_KEY'] } });
    await ok(await call('/app-installs/e/secrets/API_KEY', token, 'POST', { value: 'sk-test-value' }));
    expect((await ok<{ enabled: boolean }>(await save(token, 'e', { versionId: v.id }))).enabled).toBe(true);

    // Blocked afterwards: switching on (or anything else) is refused, switching off never is.
    const versions = (
      await ok<{ items: { sha256: string }[] }>(await call('/apps/enable-app/versions', token))
    ).items;
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: versions[0]?.sha256, reason: 'bad', createdBy: 'operator' });
    expect((await errorOf(await save(token, 'e', { versionId: v.id, config: { x: 1 } }), 409)).code).toBe(
      'app_blocked',
    );
    const off = await ok<{ enabled: boolean }>(await save(token, 'e', { versionId: v.id, enabled: false }));
    expect(off.enabled).toBe(false);
  });

  it('takes only a published version of the install’s own app on save', async () => {
    const token = await as('own-version');
    const mine = await publishEcho(platform, token, 'mine-app');
    const otherApp = await publishEcho(platform, token, 'other-app');
    const unpublished = await ok<{ id: string }>(
      await platform.upload(await configurableModule('mine-app', '2.0.0'), token),
      201,
    );
    await ok(
      await install(token, {
        name: 'm',
        versionId: mine.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    for (const versionId of [otherApp.id, unpublished.id, crypto.randomUUID()]) {
      const error = await errorOf(await save(token, 'm', { versionId, enabled: false }), 400);
      expect(error).toMatchObject({
        code: 'validation_error',
        details: { issues: [{ path: '/versionId' }] },
      });
    }
  });

  it('builds webhookUrl and callbackUrl from WEBHOOK_PUBLIC_URL alone, whatever Host the caller sends', async () => {
    const token = await as('public-url');
    const id = await echoInstall(platform, token);
    const seen = await seenThroughForgedHost(platform, token);
    const expected = `https://hooks.example.com/base/webhooks/app-installs/${id}`;
    expect(seen.webhookUrl).toBe(expected);
    expect(seen.call.callbackUrl).toBe(expected);
  });

  it('answers 404 unknown_install for another tenant’s install and checks permissions', async () => {
    const token = await as('owner');
    const v = await publishEcho(platform, token, 'owned-app');
    await ok(
      await install(token, {
        name: 'mine',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    const stranger = await as('stranger');
    for (const [method, path, json] of [
      ['GET', '/app-installs/mine', undefined],
      ['PUT', '/app-installs/mine', { versionId: v.id, enabled: false }],
      ['DELETE', '/app-installs/mine', undefined],
      ['POST', '/app-installs/mine/secrets/API_KEY', { value: 'sk-test-value' }],
      ['DELETE', '/app-installs/mine/secrets/API_KEY', undefined],
    ] as const) {
      const error = await errorOf(await call(path, stranger, method, json), 404);
      expect(error.code, `${method} ${path}`).toBe('unknown_install');
    }
    const reader = await platform.token({ tenant: 'owner', roles: ['analyst'] });
    const before = await ok(await call('/app-installs/mine', reader));
    await ok(await call('/app-installs', reader));
    for (const [method, path, json] of [
      [
        'POST',
        '/app-installs',
        { name: 'r', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] },
      ],
      ['PUT', '/app-installs/mine', { versionId: v.id, enabled: false, config: { changed: true } }],
      ['DELETE', '/app-installs/mine', undefined],
      ['POST', '/app-installs/mine/secrets/API_KEY', { value: 'sk-test-value' }],
      ['DELETE', '/app-installs/mine/secrets/API_KEY', undefined],
    ] as const) {
      const error = await errorOf(await call(path, reader, method, json), 403);
      expect(error, `${method} ${path}`).toMatchObject({
        code: 'forbidden',
        details: { permission: 'apps:write' },
      });
    }
    // Nothing changed: the install as it was, no other install, no secret stored, nothing audited.
    expect(await ok(await call('/app-installs/mine', token))).toEqual(before);
    const listed = await ok<{ items: { name: string }[] }>(await call('/app-installs', token));
    expect(listed.items.map((item) => item.name)).toEqual(['mine']);
    const trail = await ok<{ items: { action: string }[] }>(await call('/audit-events', token));
    expect(trail.items.map((item) => item.action)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^app\.(configured|uninstalled|secret\.)/)]),
    );
    expect(trail.items.filter((item) => item.action === 'app.installed')).toHaveLength(1);
  });

  it('serializes two saves of one install: both apply in turn, the second from the first’s result', async () => {
    const token = await as('races');
    const v = await publishEcho(platform, token, 'race-app');
    const created = await ok<{ id: string }>(
      await install(token, { name: 'r', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] }),
      201,
    );
    const [a, b] = await Promise.all([
      save(token, 'r', { versionId: v.id, enabled: false, config: { by: 'a' } }),
      save(token, 'r', { versionId: v.id, enabled: false, config: { by: 'b' } }),
    ]);
    await ok(a);
    await ok(b);
    const saves = (await auditOf(token, 'app.configured')).filter((e) => e.resource.id === created.id);
    expect(saves).toHaveLength(2);
    const [later, earlier] = saves as [(typeof saves)[0], (typeof saves)[0]];
    // The later save started from the state the earlier one left: nothing was lost in between.
    expect(later.data.previousUpdatedAt).toBe(earlier.data.updatedAt);
    const final = await ok<{ config: unknown; updatedAt: string }>(await call('/app-installs/r', token));
    expect(final.updatedAt).toBe(later.data.updatedAt);
    const [row] = await platform.database.db
      .select()
      .from(appInstalls)
      .where(and(eq(appInstalls.id, created.id), eq(appInstalls.name, 'r')));
    expect(row?.config).toEqual(final.config);
  });
});

describe('without a runner', () => {
  it('answers 503 apps_unavailable', async () => {
    const bare = await startTestPlatform();
    try {
      expect((await errorOf(await bare.fetch('/app-installs'), 503)).code).toBe('apps_unavailable');
      expect((await errorOf(await bare.fetch('/app-installs/x'), 503)).code).toBe('apps_unavailable');
    } finally {
      await bare.close();
    }
  });
});
