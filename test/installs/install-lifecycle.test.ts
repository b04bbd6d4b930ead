// What happens around an install's state (docs/installs.md): cached values cleared by secret writes and by
// saves changing config or version (never by a save changing neither), and DELETE answering
// install_in_use while runs wait on its vendor sessions, keeping sessions and metering.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { meterCall } from '../../src/calls/metering.ts';
import { appMetering } from '../../src/calls/tables.ts';
import { readLiveCache, storeCacheChanges } from '../../src/installs/cache/cache.ts';
import { appInstallCache, appInstallLimits } from '../../src/installs/tables.ts';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, publishEcho, SECRET_KEY_HEX } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
}, 120_000);
afterAll(async () => platform?.close());

const key = Buffer.from(SECRET_KEY_HEX, 'hex');
const BUDGET = { entries: 16, totalBytes: 64 * 1024 };
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });

interface Installed {
  id: string;
  tenantId: string;
  versionId: string;
}

async function installEcho(token: string, app: string, name: string): Promise<Installed> {
  const version = await publishEcho(platform, token, app);
  const created = await ok<{ id: string; tenantId: string }>(
    await call('/app-installs', token, 'POST', {
      name,
      versionId: version.id,
      enabled: false,
      approveHosts: ['api.vendor.test'],
    }),
    201,
  );
  return { ...created, versionId: version.id };
}

/** Caches one value as a call would: read, then the call's changes stored. */
async function cacheOne(install: Installed, value: string) {
  const read = await readLiveCache(platform.database.db, key, install);
  const stored = await storeCacheChanges(
    platform.database,
    key,
    install,
    read,
    [{ op: 'set', name: 'token', value, ttlSeconds: 600 }],
    BUDGET,
  );
  expect(stored.stored).toBe(true);
}

const cachedNames = async (install: Installed) =>
  (await readLiveCache(platform.database.db, key, install)).entries.map((e) => e.name);

async function clearReasons(installId: string) {
  const rows = await platform.database.db
    .select({ data: auditEvents.data })
    .from(auditEvents)
    .where(and(eq(auditEvents.action, 'app.cache.cleared'), eq(auditEvents.resourceId, installId)));
  return rows.map((r) => (r.data as { reason: string; entries: number }).reason);
}

describe('cached values cleared by install changes', () => {
  it('clears on a secret stored or removed, and on a save changing config or version, not otherwise', async () => {
    const token = await platform.token({ tenant: 'clearing' });
    const install = await installEcho(token, 'clearing-app', 'c');

    await cacheOne(install, 'cached-before-secret');
    await ok(await call('/app-installs/c/secrets/API_KEY', token, 'POST', { value: 'sk-clearing-1' }));
    expect(await cachedNames(install)).toEqual([]);

    await cacheOne(install, 'cached-before-noop');
    await ok(await call('/app-installs/c', token, 'PUT', { versionId: install.versionId, enabled: true }));
    expect(await cachedNames(install)).toEqual(['token']);

    await ok(
      await call('/app-installs/c', token, 'PUT', { versionId: install.versionId, config: { region: 'eu' } }),
    );
    expect(await cachedNames(install)).toEqual([]);

    await cacheOne(install, 'cached-before-version');
    const next = await publishEcho(platform, token, 'clearing-app', '1.1.0');
    await ok(await call('/app-installs/c', token, 'PUT', { versionId: next.id, config: { region: 'eu' } }));
    expect(await cachedNames(install)).toEqual([]);

    await cacheOne(install, 'cached-before-revoke');
    await ok(
      await call('/app-installs/c', token, 'PUT', {
        versionId: next.id,
        enabled: false,
        config: { region: 'eu' },
      }),
    );
    await ok(await call('/app-installs/c/secrets/API_KEY', token, 'DELETE'));
    expect(await cachedNames(install)).toEqual([]);

    expect(await clearReasons(install.id)).toEqual(['secret', 'config', 'version', 'secret']);
  });
});

describe('DELETE /app-installs/:install', () => {
  it('answers install_in_use while a run waits on its session; force fails the sessions and removes it', async () => {
    const token = await platform.token({ tenant: 'removing' });
    const install = await installEcho(token, 'removing-app', 'r');
    const db = platform.database.db;
    await db.insert(appCallbacks).values([
      {
        tenantId: install.tenantId,
        installId: install.id,
        installName: 'r',
        versionId: install.versionId,
        action: 'echo',
        externalId: 'waited-on',
        workflowRunId: '00000000-0000-4000-8000-000000000001',
        createdAt: new Date('2030-01-01T10:01:00Z'),
      },
      // A run that waited longer is named first.
      {
        tenantId: install.tenantId,
        installId: install.id,
        installName: 'r',
        versionId: install.versionId,
        action: 'echo',
        externalId: 'waited-on-longer',
        workflowRunId: '00000000-0000-4000-8000-000000000002',
        createdAt: new Date('2030-01-01T10:00:00Z'),
      },
      // A session no run waits on (a test call's) does not keep the install.
      {
        tenantId: install.tenantId,
        installId: install.id,
        installName: 'r',
        versionId: install.versionId,
        action: 'echo',
        externalId: 'nobody-waits',
      },
    ]);
    await cacheOne(install, 'cached-before-removal');
    await ok(await call('/app-installs/r/limits', token, 'PUT', { currency: null, prices: {}, budgets: [] }));
    await meterCall(db, {
      tenantId: install.tenantId,
      installId: install.id,
      installName: 'r',
      appName: 'removing-app',
      action: 'echo',
      httpRequests: 2,
      charged: true,
    });

    const refused = await errorOf(await call('/app-installs/r', token, 'DELETE'), 409);
    expect(refused).toMatchObject({
      code: 'install_in_use',
      details: {
        pendingCallbacks: 2,
        runs: [
          { id: '00000000-0000-4000-8000-000000000002' },
          { id: '00000000-0000-4000-8000-000000000001' },
        ],
      },
    });
    expect((await call('/app-installs/r', token)).status).toBe(200);

    expect((await call('/app-installs/r?force=true', token, 'DELETE')).status).toBe(204);
    const sessions = await db.select().from(appCallbacks).where(eq(appCallbacks.installId, install.id));
    expect(sessions.map((s) => [s.externalId, s.status, s.error]).sort()).toEqual([
      ['nobody-waits', 'failed', 'install_removed'],
      ['waited-on', 'failed', 'install_removed'],
      ['waited-on-longer', 'failed', 'install_removed'],
    ]);
    expect(await db.select().from(appInstallCache).where(eq(appInstallCache.installId, install.id))).toEqual(
      [],
    );
    expect(
      await db.select().from(appInstallLimits).where(eq(appInstallLimits.installId, install.id)),
    ).toEqual([]);
    const metered = await db.select().from(appMetering).where(eq(appMetering.installId, install.id));
    expect(metered).toEqual([expect.objectContaining({ calls: 1, httpRequests: 2 })]);
    const [uninstalled] = await db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'app.uninstalled'), eq(auditEvents.resourceId, install.id)));
    expect(uninstalled?.data).toMatchObject({ name: 'r', force: true, failedCallbacks: 3 });
    // Its name is free again.
    expect((await errorOf(await call('/app-installs/r', token), 404)).code).toBe('unknown_install');
  });
});
