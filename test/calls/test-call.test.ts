// Test calls through the real api and runner (docs/calls.md "Test call": metered, quota-checked, with
// the install's cached values): a tenant's vendor app, a vendor double on 127.0.0.1.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { appMetering } from '../../src/calls/tables.ts';
import { appBlocks } from '../../src/catalogue/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';

const API_KEY = 'sk-live-3f9a1c77-test-call';
const WEBHOOK_SECRET = 'whsec-test-call-0c2e';

let platform: CataloguePlatform;
let vendor: VendorDouble;
let versionId: string;
let admin: string;

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/things/:id',
      respond: (request) => ({
        json: { status: 'found', id: request.params.id, sawKey: request.headers['x-api-key'] ?? null },
      }),
    },
    { method: 'POST', path: '/sessions', json: { sessionId: 'sess-42' } },
  ]);
  admin = await platform.token({ tenant: 'tester' });
  versionId = (await published(platform, admin, buildFixture('vendor-app'))).id;
}, 120_000);
afterAll(async () => {
  await vendor?.close();
  await platform?.close();
});

const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });

/** Installs the vendor app as `name` (disabled), with both secrets stored unless told otherwise. */
async function install(name: string, token = admin, secrets = true) {
  await ok(
    await call('/app-installs', token, 'POST', {
      name,
      versionId,
      enabled: false,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    }),
    201,
  );
  if (secrets) {
    await ok(await call(`/app-installs/${name}/secrets/API_KEY`, token, 'POST', { value: API_KEY }));
    await ok(
      await call(`/app-installs/${name}/secrets/WEBHOOK_SECRET`, token, 'POST', { value: WEBHOOK_SECRET }),
    );
  }
}

const test = (name: string, body: unknown, token = admin) =>
  call(`/app-installs/${name}/test`, token, 'POST', body);

describe('POST /app-installs/:install/test', () => {
  it('calls the vendor with the secret, answers it redacted, meters the call and audits app.tested', async () => {
    await install('lookup');
    vendor.reset();
    const answer = await ok<Record<string, unknown>>(
      await test('lookup', { action: 'lookup', input: { thingId: 't-1' } }),
    );
    expect(vendor.requests).toHaveLength(1);
    expect(vendor.requests[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(answer).toMatchObject({
      status: 'success',
      output: {
        vendor: { status: 200 },
      },
      usage: { httpRequests: 1, documentReads: 0, logLines: 1 },
      logs: [{ level: 'info', message: 'looking up t-1' }],
    });
    // The vendor echoed the key it received; the answer shows where, redacted.
    const body = (answer as { output: { vendor: { body: string } } }).output.vendor.body;
    expect(JSON.parse(body)).toEqual({ status: 'found', id: 't-1', sawKey: '[secret:API_KEY]' });
    expect(answer.redacted).toEqual([
      { placeholder: '[secret:API_KEY]', kind: 'secret', name: 'API_KEY', in: ['output'] },
    ]);
    expect(answer.durationMs).toEqual(expect.any(Number));
    expect(JSON.stringify(answer)).not.toContain(API_KEY);

    const tenantId = await platform.tenantId('tester');
    const metered = await platform.database.db
      .select()
      .from(appMetering)
      .where(and(eq(appMetering.tenantId, tenantId), eq(appMetering.installName, 'lookup')));
    expect(metered).toEqual([
      expect.objectContaining({ action: 'lookup', calls: 1, httpRequests: 1, spendMicros: 0 }),
    ]);
    const [tested] = await platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'app.tested')));
    expect(tested?.data).toMatchObject({ name: 'lookup', action: 'lookup', status: 'success' });
    expect(JSON.stringify(tested)).not.toContain(API_KEY);
  });

  it('answers an error answer, a trap and a pending session as the attempt ended', async () => {
    await install('outcomes');
    const crashed = await ok<Record<string, unknown>>(await test('outcomes', { action: 'crash', input: {} }));
    expect(crashed).toMatchObject({ status: 'error', error: { code: 'app_call_failed', reason: 'trapped' } });

    const started = await ok<Record<string, unknown>>(
      await test('outcomes', { action: 'start', input: { applicant: 'a-1' } }),
    );
    expect(started).toMatchObject({ status: 'pending', externalId: 'sess-42', callbackTimeoutSeconds: 3600 });
  });

  it('answers timeout when the module outlives its action’s time, and meters it (the module ran)', async () => {
    const schemas = '"input":{"type":"object"},"output":{"type":"object"}';
    const hostile = await published(
      platform,
      admin,
      buildFixture('hostile', {
        '"actions":[{"name":"spin"},{"name":"grow"},{"name":"big"},{"name":"trap"},{"name":"leak"},{"name":"garbage"},{"name":"wrong_shape"},{"name":"tag"}]': `"actions":[{"name":"spin",${schemas},"timeoutMs":300},{"name":"wrong_shape",${schemas}}]`,
      }),
    );
    await ok(
      await call('/app-installs', admin, 'POST', { name: 'hostile', versionId: hostile.id, enabled: false }),
      201,
    );
    const timedOut = await ok<Record<string, unknown>>(await test('hostile', { action: 'spin', input: {} }));
    expect(timedOut).toMatchObject({
      status: 'timeout',
      error: { code: 'app_call_failed', reason: 'timeout' },
    });
    const wrong = await ok<Record<string, unknown>>(
      await test('hostile', { action: 'wrong_shape', input: {} }),
    );
    expect(wrong).toMatchObject({
      status: 'error',
      error: { code: 'app_call_failed', reason: 'bad_output' },
    });
    const rows = await platform.database.db
      .select()
      .from(appMetering)
      .where(eq(appMetering.installName, 'hostile'));
    expect(rows.map((r) => [r.action, r.calls]).sort()).toEqual([
      ['spin', 1],
      ['wrong_shape', 1],
    ]);
  });

  it('stores what a call cached and hands it, redacted, to the next call', async () => {
    await install('cached');
    const first = await ok<{ output: unknown; redacted: unknown }>(
      await test('cached', { action: 'remember', input: { value: 'remember-me-1' } }),
    );
    expect(first.output).toEqual({ cached: { value: null } });
    expect(first.redacted).toEqual([]);
    const second = await ok<{ output: unknown; redacted: unknown }>(
      await test('cached', { action: 'remember', input: { value: 'remember-me-2' } }),
    );
    expect(second.output).toEqual({ cached: { value: '[cache:last]' } });
    expect(second.redacted).toEqual([
      { placeholder: '[cache:last]', kind: 'cache', name: 'last', in: ['output'] },
    ]);
    const listed = await ok<{ items: { name: string }[] }>(await call('/app-installs/cached/cache', admin));
    expect(listed.items.map((i) => i.name)).toEqual(['last']);
  });

  it('runs a disabled install and refuses one whose required secret has no value', async () => {
    await install('unconfigured', admin, false);
    const error = await errorOf(
      await test('unconfigured', { action: 'lookup', input: { thingId: '1' } }),
      409,
    );
    expect(error).toMatchObject({
      code: 'install_not_configured',
      details: { missingSecrets: ['API_KEY', 'WEBHOOK_SECRET'] },
    });
  });

  it('refuses an unknown action and input the action refuses, at their paths', async () => {
    await install('strict');
    const unknown = await errorOf(await test('strict', { action: 'nope', input: {} }), 400);
    expect(unknown).toMatchObject({ code: 'validation_error', details: { issues: [{ path: '/action' }] } });
    const invalid = await errorOf(await test('strict', { action: 'lookup', input: {} }), 400);
    expect(invalid).toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: '/input/thingId', message: 'is required' }] },
    });
    const noBody = await errorOf(await test('strict', { input: {} }), 400);
    expect(noBody.details).toMatchObject({ issues: [{ path: '/action' }] });
  });

  it('refuses with 429 app_quota_exceeded once the day’s calls are used, appending the event once', async () => {
    await install('budgeted');
    await ok(
      await call('/app-installs/budgeted/limits', admin, 'PUT', {
        currency: null,
        prices: {},
        budgets: [{ metric: 'calls', period: 'day', max: 1 }],
      }),
    );
    await ok(await test('budgeted', { action: 'remember', input: { value: 'within-budget' } }));
    for (let i = 0; i < 2; i++) {
      const refused = await errorOf(
        await test('budgeted', { action: 'remember', input: { value: 'over-budget' } }),
        429,
      );
      expect(refused).toMatchObject({
        code: 'app_quota_exceeded',
        details: { scope: 'install', metric: 'calls', period: 'day', max: 1, used: 1, install: 'budgeted' },
      });
    }
    const tenantId = await platform.tenantId('tester');
    const events = await platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'app.quota.exceeded')));
    expect(events).toHaveLength(1);
    const [metered] = await platform.database.db
      .select()
      .from(appMetering)
      .where(and(eq(appMetering.tenantId, tenantId), eq(appMetering.installName, 'budgeted')));
    expect(metered?.calls).toBe(1);
  });

  it('refuses a blocked module with 409 app_blocked', async () => {
    const token = await platform.token({ tenant: 'blocked-tester' });
    const own = await published(
      platform,
      token,
      buildFixture('vendor-app', { '"version":"1.0.0"': '"version":"1.0.1"' }),
    );
    await ok(
      await call('/app-installs', token, 'POST', {
        name: 'blocked',
        versionId: own.id,
        enabled: false,
        config: { baseUrl: vendor.url },
        approveHosts: [vendor.host],
      }),
      201,
    );
    const versions = (await (await call('/apps/vendor-app/versions', token)).json()) as {
      items: { id: string; sha256: string }[];
    };
    const sha256 = versions.items.find((v) => v.id === own.id)?.sha256 as string;
    await platform.database.db.insert(appBlocks).values({ sha256, reason: 'malware', createdBy: 'op' });
    const error = await errorOf(await test('blocked', { action: 'crash', input: {} }, token), 409);
    expect(error).toMatchObject({ code: 'app_blocked', details: { sha256, reason: 'malware' } });
  });

  it('answers 404 for another tenant’s install and 403 without apps:write', async () => {
    await install('private');
    const other = await platform.token({ tenant: 'someone-else' });
    expect((await errorOf(await test('private', { action: 'crash', input: {} }, other), 404)).code).toBe(
      'unknown_install',
    );
    const reader = await platform.token({ tenant: 'tester', roles: ['analyst'] });
    expect((await errorOf(await test('private', { action: 'crash', input: {} }, reader), 403)).code).toBe(
      'forbidden',
    );
  });

  it('reports metering per day, install and action; spend only to apps:write', async () => {
    await install('priced');
    await ok(
      await call('/app-installs/priced/limits', admin, 'PUT', {
        currency: 'EUR',
        prices: { lookup: 2500 },
        budgets: [],
      }),
    );
    await ok(await test('priced', { action: 'lookup', input: { thingId: 'p-1' } }));
    await ok(await test('priced', { action: 'crash', input: {} }));
    const report = await ok<{ from: string; to: string; items: Record<string, unknown>[] }>(
      await call('/app-installs/metering?install=priced', admin),
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(report.to).toBe(today);
    expect(report.from).toBe(`${today.slice(0, 8)}01`);
    expect(report.items).toEqual([
      expect.objectContaining({
        installName: 'priced',
        action: 'crash',
        day: today,
        calls: 1,
        httpRequests: 0,
        spend: [],
      }),
      expect.objectContaining({
        installName: 'priced',
        action: 'lookup',
        day: today,
        calls: 1,
        httpRequests: 1,
        spend: [{ currency: 'EUR', micros: 2500 }],
      }),
    ]);
    const reader = await platform.token({ tenant: 'tester', roles: ['analyst'] });
    const read = await ok<{ items: Record<string, unknown>[] }>(
      await call('/app-installs/metering?install=priced', reader),
    );
    expect(read.items).toHaveLength(2);
    expect(read.items.every((item) => !('spend' in item))).toBe(true);
    const other = await platform.token({ tenant: 'metering-stranger' });
    expect(
      (await ok<{ items: unknown[] }>(await call('/app-installs/metering?install=priced', other))).items,
    ).toEqual([]);

    for (const [query, path] of [
      ['from=2026-02-31', 'query.from'],
      ['from=2026-03-02&to=2026-03-01', 'query.to'],
      ['from=2024-01-01&to=2026-01-01', 'query.to'],
      ['from=yesterday', 'query.from'],
      ['colour=red', 'query.colour'],
    ]) {
      const error = await errorOf(await call(`/app-installs/metering?${query}`, admin), 400);
      expect(error.details, query).toMatchObject({ issues: [{ path }] });
    }
  });

  it('leaves no secret value in any log line or audit row', async () => {
    const everything = [
      ...platform.logs.map((line) => JSON.stringify(line)),
      ...(await platform.database.db.select().from(auditEvents)).map((row) => JSON.stringify(row)),
    ];
    expect(everything.length).toBeGreaterThan(20);
    for (const value of [API_KEY, WEBHOOK_SECRET]) {
      expect(everything.filter((text) => text.includes(value))).toEqual([]);
    }
  });
});
