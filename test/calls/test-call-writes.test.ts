// What a test call reads and writes (docs/calls.md "Test call"): the install with its cached values in
// the call's one query (resolveCall), its version's manifest kept by the process, and the app.tested record with its metering in one statement —
// neither without the other, and not twice when a try after a lost commit writes again. Through the real
// api, runner and database; a failing insert is a trigger of the test's own.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { resolveCall } from '../../src/calls/call-install.ts';
import { appMetering } from '../../src/calls/tables.ts';
import { writeAudited } from '../../src/calls/test-call-write.ts';
import { withManifest } from '../../src/catalogue/manifests.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { liveCacheOf, readLiveCache } from '../../src/installs/cache/cache.ts';
import { isUuid, uuidV7 } from '../../src/uuid.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { statementsWhile } from '../support/statements.ts';

const key = Buffer.from(SECRET_KEY_HEX, 'hex');
let platform: CataloguePlatform;
let vendor: VendorDouble;
let versionId: string;
let admin: string;
let tenantId: string;

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  vendor = await startVendorDouble([
    { method: 'GET', path: '/things/:id', respond: (request) => ({ json: { id: request.params.id } }) },
  ]);
  admin = await platform.token({ tenant: 'writes' });
  tenantId = await platform.tenantId('writes');
  versionId = (await published(platform, admin, buildFixture('vendor-app'))).id;
  await db().execute(sql`
    create function test_refuse() returns trigger language plpgsql
    as $$ begin raise exception 'refused by the test'; end $$`);
}, 120_000);
afterAll(async () => {
  await vendor?.close();
  await platform?.close();
});

const db = () => platform.database.db;
const call = (path: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token: admin, json });
const test = (name: string, body: unknown) => call(`/app-installs/${name}/test`, 'POST', body);
const LOOKUP = { action: 'lookup', input: { thingId: 't-1' } };

/** Installs the vendor app as `name` (disabled) with its secrets stored; answers its id. */
async function install(name: string): Promise<string> {
  const created = await ok<{ id: string }>(
    await call('/app-installs', 'POST', {
      name,
      versionId,
      enabled: false,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    }),
    201,
  );
  for (const secret of ['API_KEY', 'WEBHOOK_SECRET'])
    await ok(await call(`/app-installs/${name}/secrets/${secret}`, 'POST', { value: `${secret}-value` }));
  return created.id;
}

const meteringOf = (installName: string) =>
  db()
    .select()
    .from(appMetering)
    .where(and(eq(appMetering.tenantId, tenantId), eq(appMetering.installName, installName)));
const testedOf = async (installName: string) =>
  (
    await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'app.tested')))
  ).filter((row) => row.data.name === installName);

describe('a test call’s statements', () => {
  it('reads the cached values with the install in one query and writes app.tested with its metering in one', async () => {
    await install('counted');
    // A value in the cache, so the read has one to hand over.
    await ok(await test('counted', { action: 'remember', input: { value: 'kept-value-1' } }));
    const { sent } = await statementsWhile(async () => ok(await test('counted', LOOKUP)));

    const reading = sent.filter((text) => text.includes('"app_install_cache"'));
    expect(reading).toHaveLength(1);
    expect(reading[0]).toContain('"app_versions"');
    expect(reading[0]).toContain('"app_install_limits"');
    // The sealed secrets come with it: no statement of their own.
    expect(reading[0]).toContain('"app_install_secrets"');
    expect(sent.filter((text) => text.includes('"app_install_secrets"'))).toHaveLength(1);
    // The version's manifest is the one the process kept (catalogue/manifests.ts): never read again.
    expect(sent.filter((text) => text.includes('"manifest"'))).toEqual([]);
    const writing = sent.filter((text) => /insert into "(audit_events|app_metering)"/.test(text));
    expect(writing).toHaveLength(1);
    expect(writing[0]).toContain('insert into "audit_events"');
    expect(writing[0]).toContain('insert into "app_metering"');

    expect((await meteringOf('counted')).sort((a, b) => a.action.localeCompare(b.action))).toEqual([
      expect.objectContaining({ action: 'lookup', calls: 1, httpRequests: 1 }),
      expect.objectContaining({ action: 'remember', calls: 1 }),
    ]);
    const tested = await testedOf('counted');
    expect(tested.map((row) => row.data.action).sort()).toEqual(['lookup', 'remember']);
    // The id chosen before the write: a version 7 UUID, as the trail's own are.
    expect(tested.every((row) => isUuid(row.publicId) && row.publicId[14] === '7')).toBe(true);
  });

  it('hands the module the values resolveCall read, as readLiveCache opens them', async () => {
    const installId = await install('cache-read');
    await ok(await test('cache-read', { action: 'remember', input: { value: 'kept-value-2' } }));
    const resolved = await resolveCall(db(), tenantId, 'cache-read', 'remember');
    expect(resolved.cache.values.map((value) => value.name)).toEqual(['last']);
    const opened = await liveCacheOf(db(), key, resolved.install, resolved.cache);
    expect(opened).toEqual(await readLiveCache(db(), key, { id: installId, tenantId }));
    expect(opened.entries).toEqual([expect.objectContaining({ name: 'last', value: 'kept-value-2' })]);
  });
});

describe('a version’s manifest', () => {
  it('is read once a process, then kept frozen and shared by every call of the version', async () => {
    const other = await published(platform, admin, buildFixture('echo'));
    const { value, sent } = await statementsWhile(
      async () =>
        [await withManifest(db(), { id: other.id }), await withManifest(db(), { id: other.id })] as const,
    );
    const [first, second] = value;

    expect(sent.filter((text) => text.includes('"manifest"'))).toHaveLength(1);
    const [stored] = await db()
      .select({ manifest: appVersions.manifest })
      .from(appVersions)
      .where(eq(appVersions.id, other.id));
    expect(first.manifest).toEqual(stored?.manifest);
    expect(second.manifest).toBe(first.manifest);
    // Shared, so frozen all the way down: a caller's change would be every later call's.
    expect(Object.isFrozen(first.manifest)).toBe(true);
    expect(Object.isFrozen(first.manifest.actions)).toBe(true);
    expect(Object.isFrozen(first.manifest.actions[0])).toBe(true);
    expect(() => {
      (first.manifest.actions as unknown[]).push({ name: 'added' });
    }).toThrow(TypeError);
  });
});

describe('app.tested and its metering stand or fall together', () => {
  it('writes no metering when the audit record cannot be written', async () => {
    await install('audit-refused');
    await db().execute(sql`
      create trigger refuse_tested before insert on audit_events for each row
      when (new.action = 'app.tested' and new.data->>'name' = 'audit-refused') execute function test_refuse()`);
    try {
      expect((await errorOf(await test('audit-refused', LOOKUP), 500)).code).toBe('internal');
    } finally {
      await db().execute(sql`drop trigger refuse_tested on audit_events`);
    }
    expect(await meteringOf('audit-refused')).toEqual([]);
    expect(await testedOf('audit-refused')).toEqual([]);
  });

  it('writes no audit record when the metering cannot be written', async () => {
    await install('metering-refused');
    await db().execute(sql`
      create trigger refuse_metering before insert on app_metering for each row
      when (new.install_name = 'metering-refused') execute function test_refuse()`);
    try {
      expect((await errorOf(await test('metering-refused', LOOKUP), 500)).code).toBe('internal');
    } finally {
      await db().execute(sql`drop trigger refuse_metering on app_metering`);
    }
    expect(await testedOf('metering-refused')).toEqual([]);
    expect(await meteringOf('metering-refused')).toEqual([]);
  });

  it('neither audits nor meters again when a try after a lost commit writes once more', async () => {
    const installId = await install('written-twice');
    const entry = {
      publicId: uuidV7(Date.now()),
      tenantId,
      action: 'app.tested',
      actor: { type: 'user' as const, id: 'user:writes', name: null },
      resource: { type: 'app_install', id: installId },
      data: { name: 'written-twice', action: 'lookup' },
    };
    const metered = {
      tenantId,
      installId,
      installName: 'written-twice',
      appName: 'vendor-app',
      action: 'lookup',
      httpRequests: 2,
      charged: true,
      price: { currency: null, priceMicros: 0 },
    };
    expect(await writeAudited(db(), entry, metered)).toBe(true);
    expect(await writeAudited(db(), entry, metered)).toBe(false);
    expect(await testedOf('written-twice')).toHaveLength(1);
    expect(await meteringOf('written-twice')).toEqual([
      expect.objectContaining({ calls: 1, httpRequests: 2, spendMicros: 0 }),
    ]);
  });
});

describe('uuidV7', () => {
  it.each([
    [0, '00000000-0000-7'],
    [1, '00000000-0001-7'],
    [Date.UTC(2026, 10, 29), '01a22499-f800-7'],
    [2 ** 48 - 1, 'ffffffff-ffff-7'],
  ])('puts %d ms in the first 48 bits, then version 7 and the variant', (ms, prefix) => {
    for (const random of [Buffer.alloc(16, 0), Buffer.alloc(16, 0xff)]) {
      const id = uuidV7(ms, random);
      expect(isUuid(id)).toBe(true);
      expect(id.slice(0, 15)).toBe(prefix);
      expect(['8', '9', 'a', 'b']).toContain(id[19]);
    }
  });
});
