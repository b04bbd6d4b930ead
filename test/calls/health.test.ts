// GET /apps/health through the real api on a real database (docs/calls.md "Health
// report"): per install its calls, failures, timeouts, p95 and last call and failure in the window, once
// under its current name; the open and half-open circuits with the settings in force; the installs on
// a blocked module or app. Installs, invocation records, circuit rows and blocks are written straight in
// the database (test/calls/support.ts), their times in the database's clock.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInvocations, type InvocationStatus } from '../../src/calls/tables.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { appInstallCircuits, appInstalls } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok } from '../installs/support.ts';
import { insertInstall } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field in the expectations
type Report = any;

async function tenantOf(name: string) {
  const tenantId = await platform.tenantId(name);
  const token = await platform.token({ tenant: name, roles: ['analyst'] });
  const report = async (query = '') => ok<Report>(await platform.fetch(`/apps/health${query}`, { token }));
  const install = async (installName: string) => {
    const row = await insertInstall(platform.database, tenantId, installName, undefined, ['echo']);
    /** Records an attempt `minutesAgo` in the database's time; answers its created_at. */
    const record = async (status: InvocationStatus, durationMs: number, minutesAgo: number) => {
      const [made] = await platform.database.db
        .insert(appInvocations)
        .values({
          tenantId,
          installId: row.id,
          installName: row.name,
          versionId: row.versionId,
          appName: 'echo',
          version: '1.0.0',
          action: 'echo',
          attempt: 1,
          status,
          durationMs,
          usage: {},
          createdAt: sql`now() - make_interval(mins => ${minutesAgo})`,
        })
        .returning({ createdAt: appInvocations.createdAt });
      return (made?.createdAt as Date).toISOString();
    };
    return { id: row.id, versionId: row.versionId, record };
  };
  return { tenantId, report, install };
}

describe('GET /apps/health', () => {
  it('sums each install’s records in the window, once under its current name, and no other tenant’s', async () => {
    const { report, install } = await tenantOf('health-use');
    const kyc = await install('kyc');
    await install('idle');
    for (let i = 1; i <= 18; i++) await kyc.record('success', i * 10, 30);
    const failedAt = await kyc.record('error', 400, 20);
    const timedOutAt = await kyc.record('timeout', 1000, 3);
    await kyc.record('timeout', 9000, 61); // before the window
    await platform.database.db.update(appInstalls).set({ name: 'kyc-2' }).where(eq(appInstalls.id, kyc.id));
    const stranger = await tenantOf('health-stranger');
    await (await stranger.install('kyc-2')).record('error', 1, 1);

    const health = await report();
    expect(health).toMatchObject({ windowMinutes: 60 });
    expect(Date.parse(health.to) - Date.parse(health.from)).toBe(60 * 60_000);
    expect(health.installs).toEqual([
      {
        installId: expect.any(String),
        name: 'idle',
        appName: 'echo',
        version: expect.stringMatching(/^1\.0\.0-/),
        enabled: true,
        calls: 0,
        failures: 0,
        timeouts: 0,
        p95Ms: null,
        lastCallAt: null,
        lastFailureAt: null,
      },
      {
        installId: kyc.id,
        name: 'kyc-2',
        appName: 'echo',
        version: expect.stringMatching(/^1\.0\.0-/),
        enabled: true,
        calls: 20,
        failures: 2,
        timeouts: 1,
        // percentile_cont over 10…180, 400, 1000: the 95th lies between 400 and 1000 (0.05 of the way).
        p95Ms: 430,
        lastCallAt: timedOutAt,
        lastFailureAt: timedOutAt,
      },
    ]);
    expect(health.circuits).toEqual([]);
    expect(health.blocked).toEqual([]);

    // A five-minute window holds only the timeout; the failure 20 minutes ago is outside it.
    const recent = await report('?windowMinutes=5');
    expect(recent.installs[1]).toMatchObject({ calls: 1, failures: 1, timeouts: 1, p95Ms: 1000 });
    const day = await report('?windowMinutes=1440');
    expect(day.installs[1]).toMatchObject({ calls: 21, failures: 3, timeouts: 2, lastFailureAt: timedOutAt });
    expect(failedAt < timedOutAt).toBe(true);
  });

  it('lists open and half-open circuits with the settings in force and when calls may next try', async () => {
    const { tenantId, report, install } = await tenantOf('health-circuits');
    const open = await install('open');
    const half = await install('half');
    const counting = await install('counting');
    await platform.database.db
      .update(appInstalls)
      .set({ circuitFailureThreshold: 3, circuitOpenSeconds: 5 })
      .where(eq(appInstalls.id, half.id));
    const circuit = (installId: string, over: Record<string, unknown>) => ({
      installId,
      tenantId,
      state: 'open' as const,
      failures: 5,
      since: sql`now()`,
      openedAt: sql`now()`,
      ...over,
    });
    const rows = await platform.database.db
      .insert(appInstallCircuits)
      .values([
        circuit(open.id, {}),
        circuit(half.id, {
          failures: 3,
          since: sql`now() - interval '1 hour'`,
          openedAt: sql`now() - interval '1 hour'`,
        }),
        circuit(counting.id, { state: 'closed', failures: 2, openedAt: null }),
      ])
      .returning();
    const openedAt = (id: string) => rows.find((r) => r.installId === id)?.openedAt as Date;

    const health = await report();
    expect(health.circuits).toEqual([
      {
        installId: half.id,
        name: 'half',
        appName: 'echo',
        version: expect.any(String),
        state: 'half_open',
        failures: 3,
        since: new Date(openedAt(half.id).getTime() + 5_000).toISOString(),
        retryAt: null,
        failureThreshold: 3,
        openSeconds: 5,
      },
      {
        installId: open.id,
        name: 'open',
        appName: 'echo',
        version: expect.any(String),
        state: 'open',
        failures: 5,
        since: openedAt(open.id).toISOString(),
        retryAt: new Date(openedAt(open.id).getTime() + 30_000).toISOString(),
        failureThreshold: 5,
        openSeconds: 30,
      },
    ]);
  });

  it('lists the installs on a blocked app with the reason and when, and not after the block is lifted', async () => {
    const { tenantId, report, install } = await tenantOf('health-blocks');
    const blockedInstall = await install('recalled');
    const block = {
      appName: 'echo',
      publisher: 'tenant' as const,
      publisherTenantId: tenantId,
      createdBy: 'op',
    };
    await platform.database.db
      .insert(appBlocks)
      .values({ ...block, reason: 'lifted long ago', liftedAt: new Date(), liftedBy: 'op' });
    expect((await report()).blocked).toEqual([]);
    const [active] = await platform.database.db
      .insert(appBlocks)
      .values({ ...block, reason: 'leaks applicant data' })
      .returning();
    expect((await report()).blocked).toEqual([
      {
        installId: blockedInstall.id,
        name: 'recalled',
        appName: 'echo',
        version: expect.any(String),
        sha256: '0'.repeat(64),
        reason: 'leaks applicant data',
        blockedAt: active?.createdAt.toISOString(),
      },
    ]);
    // Another tenant's installs of its own echo app are not under this tenant's block.
    const other = await tenantOf('health-unblocked');
    await other.install('echo');
    expect((await other.report()).blocked).toEqual([]);
  });

  it('lists an install whose module is blocked by its hash, and not the tenant’s installs of other modules', async () => {
    const { report, install } = await tenantOf('health-module-block');
    const recalled = await install('recalled-module');
    await install('other-module');
    const sha256 = randomBytes(32).toString('hex');
    await platform.database.db
      .update(appVersions)
      .set({ sha256 })
      .where(eq(appVersions.id, recalled.versionId));
    const [block] = await platform.database.db
      .insert(appBlocks)
      .values({ sha256, reason: 'unsafe host call', createdBy: 'op' })
      .returning();
    expect((await report()).blocked).toEqual([
      {
        installId: recalled.id,
        name: 'recalled-module',
        appName: 'echo',
        version: expect.any(String),
        sha256,
        reason: 'unsafe host call',
        blockedAt: block?.createdAt.toISOString(),
      },
    ]);
  });

  it('refuses a window out of range or not a whole number, an unknown parameter, no token and no apps:read', async () => {
    const admin = await platform.token({ tenant: 'health-refusals' });
    for (const query of [
      'windowMinutes=4',
      'windowMinutes=1441',
      'windowMinutes=abc',
      'windowMinutes=60.5',
    ]) {
      const error = await errorOf(await platform.fetch(`/apps/health?${query}`, { token: admin }), 400);
      expect(error.code, query).toBe('validation_error');
      expect(error.details, query).toMatchObject({ issues: [{ path: 'query.windowMinutes' }] });
    }
    const unknown = await errorOf(await platform.fetch('/apps/health?window=60', { token: admin }), 400);
    expect(unknown).toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: 'query.window' }] },
    });
    const anonymous = await errorOf(await platform.fetch('/apps/health', { token: null }), 401);
    expect(anonymous.code).toBe('unauthorized');
    const token = await platform.token({ tenant: 'health-refusals', roles: [], permissions: ['apps:write'] });
    const forbidden = await errorOf(await platform.fetch('/apps/health', { token }), 403);
    expect(forbidden).toMatchObject({ code: 'forbidden', details: { permission: 'apps:read' } });
  });
});
