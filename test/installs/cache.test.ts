// Cached values of an install (docs/cached-values.md):
// the service functions calls use, against the real test database, and the listing and clearing routes
// through the real api.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import {
  type CacheInstall,
  type CacheRead,
  clearInstallCache,
  readLiveCache,
  storeCacheChanges,
} from '../../src/installs/cache/cache.ts';
import { cacheBinding, open, seal } from '../../src/installs/secrets/seal.ts';
import { appInstallCache } from '../../src/installs/tables.ts';
import type { CacheChange } from '../../src/runner/host/call-state.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, publishEcho, SECRET_KEY_HEX, untilBlockedBy } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
}, 120_000);
afterAll(async () => platform?.close());

const key = Buffer.from(SECRET_KEY_HEX, 'hex');
const BUDGET = { entries: 16, totalBytes: 64 * 1024 };
const SECOND = 1000;
const DAY = 86_400 * SECOND;
const later = (from: Date, ms: number) => new Date(from.getTime() + ms);
const SYSTEM = { actor: { type: 'system' as const, id: 'test', name: null }, requestId: null };
const NOTHING_STORED = { stored: false, set: 0, deleted: 0, evicted: 0 };

/** Every value this file caches: none may show up in an answer, a log line or an audit row. */
const VALUES: string[] = [];
const cached = (label: string) => {
  const v = `${label}-cached-${VALUES.length}-7f3a`;
  VALUES.push(v);
  return v;
};
const set = (name: string, value: string, ttl = 3600): CacheChange => ({
  op: 'set',
  name,
  value,
  ttlSeconds: ttl,
});
const del = (name: string, readValue: string | null): CacheChange => ({ op: 'delete', name, readValue });

interface Install extends CacheInstall {
  name: string;
  appName: string;
}

const versions = new Map<string, string>();
/** A disabled install of an echo app the tenant published (once per tenant and platform). */
async function installFor(tenant: string, name: string, on = platform): Promise<Install> {
  const token = await on.token({ tenant });
  const app = `${tenant}-app`;
  const versionId = versions.get(`${on.url} ${app}`) ?? (await publishEcho(on, token, app)).id;
  versions.set(`${on.url} ${app}`, versionId);
  const json = { name, versionId, enabled: false, approveHosts: ['api.vendor.test'] };
  const created = await ok<Install>(await on.fetch('/app-installs', { method: 'POST', token, json }), 201);
  return { id: created.id, tenantId: created.tenantId, name: created.name, appName: created.appName };
}

const db = () => platform.database.db;
const read = (install: CacheInstall, now?: Date) => readLiveCache(db(), key, install, now);
const store = (install: CacheInstall, from: CacheRead, changes: CacheChange[], now?: Date, budget = BUDGET) =>
  storeCacheChanges(platform.database, key, install, from, changes, budget, now);
/** One call: reads the live values, then stores its changes. */
const call = async (install: Install, changes: CacheChange[], now?: Date, budget = BUDGET) =>
  store(install, await read(install, now), changes, now, budget);
const clear = (install: Install, reason: 'secret' | 'config', now: Date) =>
  db().transaction((tx) => clearInstallCache(tx, install, reason, SYSTEM, now));
const rowsOf = (install: Install) =>
  db().select().from(appInstallCache).where(eq(appInstallCache.installId, install.id));
const namesOf = async (install: Install, now?: Date) =>
  (await read(install, now)).entries.map((e) => e.name).sort();
const storedValue = async (install: Install, name: string, now?: Date) =>
  (await read(install, now)).entries.find((e) => e.name === name)?.value;
/** Puts a sealed row in place as if some earlier write had left it. */
const insertRow = (install: Install, name: string, sealed: Buffer, expiresAt: Date, on = platform) =>
  on.database.db
    .insert(appInstallCache)
    .values({ installId: install.id, tenantId: install.tenantId, name, sealed, sizeBytes: 12, expiresAt });

describe('storing and reading', () => {
  it('seals values at rest, bound to tenant, install and name; ttl is capped at a day', async () => {
    const install = await installFor('sealer', 'sealed');
    const t0 = new Date();
    const first = await read(install, t0);
    expect(first).toEqual({ generation: 0, entries: [] });
    const greeting = cached('greeting');
    expect(await store(install, first, [set('greeting', greeting, 90)], t0)).toEqual({
      stored: true,
      set: 1,
      deleted: 0,
      evicted: 0,
    });

    const [row] = await rowsOf(install);
    expect(row).toMatchObject({ tenantId: install.tenantId, name: 'greeting', sizeBytes: greeting.length });
    const sealed = row?.sealed as Buffer;
    expect(sealed.includes(Buffer.from(greeting))).toBe(false);
    expect(open(key, cacheBinding(install.tenantId, install.id, 'greeting'), sealed)).toBe(greeting);
    expect(open(key, cacheBinding(install.tenantId, install.id, 'other'), sealed)).toBeNull();
    const asSecret = { tenantId: install.tenantId, installId: install.id, name: 'greeting' };
    expect(open(key, asSecret, sealed)).toBeNull();
    expect((await read(install, t0)).entries).toEqual([
      { name: 'greeting', value: greeting, expiresAt: later(t0, 90 * SECOND).toISOString() },
    ]);

    await call(install, [set('week', cached('week'), 7 * 86_400)], t0);
    const week = (await read(install, t0)).entries.find((e) => e.name === 'week');
    expect(week?.expiresAt).toBe(later(t0, DAY).toISOString());
  });

  it('never shows an install’s values to another install of the tenant nor to another tenant', async () => {
    const own = await installFor('owner', 'own');
    const sibling = await installFor('owner', 'sibling');
    const stranger = await installFor('stranger', 'own');
    const t0 = new Date();
    await call(own, [set('token', cached('own-token'))], t0);

    expect((await read(sibling, t0)).entries).toEqual([]);
    expect((await read(stranger, t0)).entries).toEqual([]);
    // Another tenant naming this install's id finds no install: nothing read, nothing stored.
    const foreign = { tenantId: stranger.tenantId, id: own.id };
    expect(await read(foreign, t0)).toEqual({ generation: -1, entries: [] });
    const intrusion = [set('token', cached('intruder'))];
    expect(await store(foreign, { generation: 0, entries: [] }, intrusion, t0)).toEqual(NOTHING_STORED);

    // A sealed value copied to the sibling install does not open there: left out and removed.
    const [row] = await rowsOf(own);
    await insertRow(sibling, 'token', row?.sealed as Buffer, row?.expiresAt as Date);
    expect((await read(sibling, t0)).entries).toEqual([]);
    expect(await rowsOf(sibling)).toEqual([]);
    expect(await namesOf(own, t0)).toEqual(['token']);
  });

  it('leaves out and removes values that no longer open and values that expired', async () => {
    const install = await installFor('opener', 'opened');
    const t0 = new Date();
    const good = cached('good');
    await call(install, [set('good', good), set('short', cached('short'), 60)], t0);
    const binding = (name: string) => cacheBinding(install.tenantId, install.id, name);
    const tampered = seal(key, binding('tampered'), cached('tampered'));
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    await insertRow(install, 'tampered', tampered, later(t0, DAY));
    await insertRow(
      install,
      'rekeyed',
      seal(Buffer.alloc(32, 7), binding('rekeyed'), cached('rk')),
      later(t0, DAY),
    );

    expect((await read(install, t0)).entries.map((e) => e.name)).toEqual(['good', 'short']);
    expect((await rowsOf(install)).map((r) => r.name).sort()).toEqual(['good', 'short']);

    // A minute and a second on, the short-lived value has expired: left out, and its row removed.
    expect(await read(install, later(t0, 61 * SECOND))).toMatchObject({
      entries: [{ name: 'good', value: good }],
    });
    expect((await rowsOf(install)).map((r) => r.name)).toEqual(['good']);
  });
});

describe('changes of calls', () => {
  it('evicts by entries, the value written longest ago first; a rewrite counts as new', async () => {
    const install = await installFor('evict', 'by-entries');
    const three = { entries: 3, totalBytes: 64 * 1024 };
    const t0 = new Date();
    await call(install, [set('a', cached('a')), set('b', cached('b')), set('c', cached('c'))], t0, three);
    await call(install, [set('a', cached('a-again'))], t0, three);
    const stored = await call(install, [set('d', cached('d'))], t0, three);
    expect(stored).toEqual({ stored: true, set: 1, deleted: 0, evicted: 1 });
    expect(await namesOf(install, t0)).toEqual(['a', 'c', 'd']);
    // Within one call too: of five sets only the last three written stay.
    const five = ['e', 'f', 'g', 'h', 'i'].map((n) => set(n, cached(n)));
    expect(await call(install, five, t0, three)).toMatchObject({ set: 5, evicted: 5 });
    expect(await namesOf(install, t0)).toEqual(['g', 'h', 'i']);
  });

  it('evicts by bytes, the value written longest ago first; a rewrite counts as new', async () => {
    const install = await installFor('evict', 'by-bytes');
    const bytes = { entries: 64, totalBytes: 40 };
    const sized = (label: string) => cached(`${label}-sixteen-bytes`).slice(0, 16);
    const t0 = new Date();
    await call(install, [set('v1', sized('v1')), set('v2', sized('v2'))], t0, bytes);
    expect(await call(install, [set('v3', sized('v3'))], t0, bytes)).toMatchObject({ evicted: 1 });
    expect(await namesOf(install, t0)).toEqual(['v2', 'v3']);
    await call(install, [set('v2', sized('v2b'))], t0, bytes);
    await call(install, [set('v4', sized('v4'))], t0, bytes);
    expect(await namesOf(install, t0)).toEqual(['v2', 'v4']);
    expect((await rowsOf(install)).reduce((sum, r) => sum + r.sizeBytes, 0)).toBe(32);
  });

  it('keeps the value of the call stored last when two calls set one name', async () => {
    const install = await installFor('racer', 'last-wins');
    const t0 = new Date();
    const [first, second] = [await read(install, t0), await read(install, t0)];
    const [one, two] = [cached('one'), cached('two')];
    await store(install, first, [set('x', one)], t0);
    await store(install, second, [set('x', two)], t0);
    expect(await storedValue(install, 'x', t0)).toBe(two);

    // The order of storing decides, not the order of reading.
    const [third, fourth] = [await read(install, t0), await read(install, t0)];
    const [three, four] = [cached('three'), cached('four')];
    await store(install, fourth, [set('x', four)], t0);
    await store(install, third, [set('x', three)], t0);
    expect(await storedValue(install, 'x', t0)).toBe(three);
  });

  it('deletes a value only while it is still the one that call read', async () => {
    const install = await installFor('deleter', 'deletes');
    const t0 = new Date();
    const v1 = cached('v1');
    await call(install, [set('x', v1), set('y', cached('y'))], t0);
    const slow = await read(install, t0);
    expect(slow.entries.find((e) => e.name === 'x')?.value).toBe(v1);

    const v2 = cached('v2');
    await call(install, [set('x', v2)], t0);
    expect(await store(install, slow, [del('x', v1)], t0)).toMatchObject({ stored: true, deleted: 0 });
    expect(await storedValue(install, 'x', t0)).toBe(v2);

    // A call that read no value of y deletes nothing; one that read the current value removes it.
    expect(await call(install, [del('y', null)], t0)).toMatchObject({ deleted: 0 });
    expect(await call(install, [del('x', v2)], t0)).toMatchObject({ deleted: 1 });
    expect(await namesOf(install, t0)).toEqual(['y']);
  });

  it('stores nothing from a call that read before a clear; automatic clears of nothing are not audited', async () => {
    const install = await installFor('clearer', 'cleared');
    const t0 = new Date();
    await call(install, [set('x', cached('x'))], t0);
    const running = await read(install, t0);
    expect(running.entries).toHaveLength(1);

    expect(await clear(install, 'secret', t0)).toBe(1);
    expect(await store(install, running, [set('y', cached('y')), del('x', null)], t0)).toEqual(
      NOTHING_STORED,
    );
    expect(await rowsOf(install)).toEqual([]);
    expect(await read(install, t0)).toEqual({ generation: running.generation + 1, entries: [] });

    // A clear of nothing still moves the generation; for an automatic reason it leaves no record.
    const idle = await read(install, t0);
    expect(await clear(install, 'config', t0)).toBe(0);
    expect((await read(install, t0)).generation).toBe(idle.generation + 1);
    expect(await store(install, idle, [set('z', cached('z'))], t0)).toEqual(NOTHING_STORED);
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'app.cache.cleared'), eq(auditEvents.resourceId, install.id)));
    expect(audits.map((e) => e.data)).toEqual([
      { name: 'cleared', appName: 'clearer-app', reason: 'secret', entries: 1 },
    ]);
  });

  it('drops the changes of a store that waited on a clear in flight', async () => {
    const install = await installFor('clearer', 'in-flight');
    const t0 = new Date();
    await call(install, [set('x', cached('x'))], t0);
    const running = await read(install, t0);
    let stored: Promise<unknown> | undefined;
    await db().transaction(async (tx) => {
      expect(await clearInstallCache(tx, install, 'version', SYSTEM, t0)).toBe(1);
      stored = store(install, running, [set('y', cached('y'))], t0);
      // Commit once the store is waiting on this transaction's lock of the install's row.
      await untilBlockedBy(db(), tx);
    });
    expect(await stored).toEqual(NOTHING_STORED);
    expect(await rowsOf(install)).toEqual([]);
  });
});

describe('routes', () => {
  const bodies: string[] = [];
  async function kept(response: Promise<Response>, status: number) {
    const r = await response;
    const text = await r.text();
    bodies.push(text);
    expect(r.status, text).toBe(status);
    return JSON.parse(text) as Record<string, unknown> & { error?: { code: string } };
  }
  const cachePath = '/app-installs/listed/cache';
  const ACCENTED = 'ééééé-éé';

  it('lists live values by name, never a value, with the budget; clears them (manual), audited', async () => {
    const install = await installFor('lister', 'listed');
    const token = await platform.token({ tenant: 'lister' });
    const t0 = new Date();
    VALUES.push(ACCENTED);
    await call(
      install,
      [set('zeta', cached('zeta'), 600), set('Alpha', cached('alpha')), set('beta', ACCENTED)],
      t0,
    );
    // Written two days ago for an hour: expired now, so not listed.
    await call(install, [set('old', cached('old'))], later(t0, -2 * DAY));

    const listing = await kept(platform.fetch(cachePath, { token }), 200);
    const rows = new Map((await rowsOf(install)).map((r) => [r.name, r]));
    const item = (name: string) => ({
      name,
      expiresAt: rows.get(name)?.expiresAt.toISOString(),
      updatedAt: t0.toISOString(),
      sizeBytes: rows.get(name)?.sizeBytes,
    });
    const live = ['Alpha', 'beta', 'zeta'];
    expect(listing).toEqual({
      items: live.map(item),
      limits: { entries: 16, totalBytes: 65536 },
      used: { entries: 3, totalBytes: live.reduce((n, name) => n + (rows.get(name)?.sizeBytes ?? 0), 0) },
    });
    // Sizes are UTF-8 bytes: eight characters of which seven take two bytes.
    expect(item('beta').sizeBytes).toBe(15);
    expect(item('zeta').expiresAt).toBe(later(t0, 600 * SECOND).toISOString());

    const analyst = await platform.token({ tenant: 'lister', roles: ['analyst'] });
    await kept(platform.fetch(cachePath, { token: analyst }), 200);
    const refused = await kept(platform.fetch(cachePath, { method: 'DELETE', token: analyst }), 403);
    expect(refused.error?.code).toBe('forbidden');
    const nobody = await platform.token({ tenant: 'lister', roles: [] });
    expect((await kept(platform.fetch(cachePath, { token: nobody }), 403)).error?.code).toBe('forbidden');

    expect(await kept(platform.fetch(cachePath, { method: 'DELETE', token }), 200)).toEqual({ entries: 3 });
    expect(await rowsOf(install)).toEqual([]);
    const empty = await kept(platform.fetch(cachePath, { token }), 200);
    expect(empty).toMatchObject({ items: [], used: { entries: 0, totalBytes: 0 } });
    expect(await kept(platform.fetch(cachePath, { method: 'DELETE', token }), 200)).toEqual({ entries: 0 });

    const trail = await kept(platform.fetch('/audit-events?action=app.cache.cleared', { token }), 200);
    const events = trail.items as { actor: { type: string }; resource: unknown; data: unknown }[];
    expect(events.map((e) => e.data)).toEqual([
      { name: 'listed', appName: 'lister-app', reason: 'manual', entries: 0 },
      { name: 'listed', appName: 'lister-app', reason: 'manual', entries: 3 },
    ]);
    expect(events[0]).toMatchObject({
      actor: { type: 'user' },
      resource: { type: 'app_install', id: install.id },
    });
  });

  it('answers 404 unknown_install for an unknown install and for another tenant’s', async () => {
    await installFor('holder', 'private');
    const other = await platform.token({ tenant: 'outsider' });
    for (const path of ['/app-installs/private/cache', '/app-installs/missing/cache']) {
      for (const method of ['GET', 'DELETE']) {
        const error = await errorOf(await platform.fetch(path, { method, token: other }), 404);
        expect(error.code, `${method} ${path}`).toBe('unknown_install');
      }
    }
  });

  it('shows no cached value in any answer, log line or audit row', async () => {
    const everything = [
      ...bodies,
      ...platform.logs.map((line) => JSON.stringify(line)),
      ...(await db().select().from(auditEvents)).map((row) => JSON.stringify(row)),
    ];
    expect(everything.length).toBeGreaterThan(10);
    for (const v of VALUES) expect(everything.filter((text) => text.includes(v))).toEqual([]);
  });
});

describe('without SECRET_STORE_KEY', () => {
  let bare: CataloguePlatform;
  beforeAll(async () => {
    bare = await startCataloguePlatform();
  }, 120_000);
  afterAll(async () => bare?.close());

  it('lists and clears without opening anything', async () => {
    expect(bare.config.secretStoreKey).toBeNull();
    const install = await installFor('keyless', 'k', bare);
    const token = await bare.token({ tenant: 'keyless' });
    // A value an earlier deployment (with a key) stored.
    const expiresAt = later(new Date(), DAY);
    const sealed = seal(key, cacheBinding(install.tenantId, install.id, 'kept'), cached('kept'));
    await insertRow(install, 'kept', sealed, expiresAt, bare);
    const listing = await ok<{ items: unknown[] }>(await bare.fetch('/app-installs/k/cache', { token }));
    expect(listing.items).toEqual([
      { name: 'kept', sizeBytes: 12, expiresAt: expiresAt.toISOString(), updatedAt: expect.any(String) },
    ]);
    const cleared = await ok(await bare.fetch('/app-installs/k/cache', { method: 'DELETE', token }));
    expect(cleared).toEqual({ entries: 1 });
  });
});
