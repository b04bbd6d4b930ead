import { and, asc, eq, isNull } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { parseManifest } from '../../src/module/manifest.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { appModule } from './support.ts';

let platform: TestPlatform;
const logger = pino({ level: 'silent' });

async function releaseModule(name: string, version: string, extra = ''): Promise<ReleaseModule> {
  const capped = capMemory(await appModule(name, version, extra), 64);
  if (!capped.ok) throw new Error(capped.message);
  const manifest = parseManifest({
    interface: 2,
    name,
    version,
    configSchema: { type: 'object' },
    secrets: [{ name: 'API_KEY' }],
    actions: [{ name: 'echo', input: { type: 'object' }, output: { type: 'object' } }],
    hosts: ['api.vendor.test', ...(extra ? [extra] : [])],
    handles: { webhook: true, handoff: true },
  });
  if (!manifest.ok) throw new Error(manifest.message);
  return { manifest: manifest.manifest, bytes: capped.bytes, sha256: sha256Hex(capped.bytes) };
}

const platformRows = () =>
  platform.database.db.select().from(appVersions).where(isNull(appVersions.tenantId));
const reconcile = (release: ReleaseModule[]) =>
  reconcileRelease(platform.database, moduleStorageOf(platform), release, logger);

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: 'x' });
});
afterAll(async () => platform?.close());

describe('release catalogue reconciliation', () => {
  it('publishes the release’s versions as platformSource release and stores their modules', async () => {
    const one = await releaseModule('http-connector', '1.0.0');
    const report = await reconcile([one, await releaseModule('sanctions-screening', '1.0.0')]);
    expect(report.published.sort()).toEqual(['http-connector@1.0.0', 'sanctions-screening@1.0.0']);
    const rows = await platformRows();
    expect(rows.map((r) => [r.name, r.status, r.platformSource, r.publisher])).toEqual(
      expect.arrayContaining([
        ['http-connector', 'published', 'release', 'platform'],
        ['sanctions-screening', 'published', 'release', 'platform'],
      ]),
    );
    expect(await moduleStorageOf(platform).get(one.sha256)).not.toBeNull();
    // A second start with the same release changes nothing.
    expect(await reconcile([one, await releaseModule('sanctions-screening', '1.0.0')])).toEqual({
      published: [],
      adopted: [],
      withdrawn: [],
      skipped: [],
    });
  });

  it('shows release apps to every tenant', async () => {
    const apps = await (
      await platform.fetch('/apps', { token: await platform.token({ tenant: 'any', roles: ['analyst'] }) })
    ).json();
    expect(apps.items.map((a: { name: string; publisher: string }) => `${a.publisher}:${a.name}`)).toEqual([
      'platform:http-connector',
      'platform:sanctions-screening',
    ]);
    expect(apps.items[0].latest.platformSource).toBe('release');
  });

  it('withdraws release versions the release no longer carries, leaving operator versions alone', async () => {
    await platform.database.db.insert(appVersions).values({
      publisher: 'platform',
      platformSource: 'operator',
      name: 'operator-app',
      version: '1.0.0',
      status: 'published',
      sha256: 'e'.repeat(64),
      sizeBytes: 1,
      manifest: (await releaseModule('operator-app', '1.0.0')).manifest,
    });
    const report = await reconcile([await releaseModule('http-connector', '1.0.0')]);
    expect(report.withdrawn).toEqual(['sanctions-screening@1.0.0']);
    const rows = await platformRows();
    expect(rows.find((r) => r.name === 'sanctions-screening')?.status).toBe('withdrawn');
    expect(rows.find((r) => r.name === 'operator-app')?.status).toBe('published');
  });

  it('never republishes a version the operator withdrew, but brings back one a release dropped', async () => {
    await platform.database.db
      .update(appVersions)
      .set({ status: 'withdrawn', withdrawnByOperator: true })
      .where(and(eq(appVersions.name, 'http-connector'), isNull(appVersions.tenantId)));
    const report = await reconcile([
      await releaseModule('http-connector', '1.0.0'),
      await releaseModule('sanctions-screening', '1.0.0'),
    ]);
    expect(report.published).toEqual(['sanctions-screening@1.0.0']);
    const rows = await platformRows();
    expect(rows.find((r) => r.name === 'http-connector')?.status).toBe('withdrawn');
    const back = rows.find((r) => r.name === 'sanctions-screening');
    expect(back?.status).toBe('published');
    // The republish is audited in the instance trail, like the release's first publish.
    const audit = await platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, back?.id ?? ''), eq(auditEvents.action, 'app.published')))
      .orderBy(asc(auditEvents.id));
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({
      tenantId: null,
      actorType: 'system',
      actorId: 'release',
      data: {
        name: 'sanctions-screening',
        version: '1.0.0',
        sha256: back?.sha256,
        platformSource: 'release',
        reason: 'back in the release',
      },
    });
  });

  it('publishes a new version once when processes starting together reconcile at the same time', async () => {
    const release = [await releaseModule('racing-app', '1.0.0'), await releaseModule('racing-app', '1.1.0')];
    // Eight starts at once, each on a connection of its own: none fails on the unique index.
    const reports = await Promise.all(Array.from({ length: 8 }, () => reconcile(release)));
    expect(reports.map((r) => r.published.length).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 2]);
    const rows = (await platformRows()).filter((r) => r.name === 'racing-app');
    expect(rows.map((r) => [r.version, r.status]).sort()).toEqual([
      ['1.0.0', 'published'],
      ['1.1.0', 'published'],
    ]);
  });

  it('adopts an operator version with the same manifest, and skips one with another manifest', async () => {
    const same = await releaseModule('operator-app', '1.0.0');
    const other = await releaseModule('operator-app', '1.0.0', 'other.vendor.test');
    expect((await reconcile([other])).skipped).toEqual(['operator-app@1.0.0']);
    expect((await reconcile([same])).adopted).toEqual(['operator-app@1.0.0']);
    const rows = await platformRows();
    expect(rows.find((r) => r.name === 'operator-app')?.platformSource).toBe('release');
  });

  it('records provenance of kind release, shown trusted whatever the policy; kept from before, filled in', async () => {
    const release = await releaseModule('proven-app', '1.0.0');
    await reconcile([release]);
    const token = await platform.token({ tenant: 'any', roles: ['analyst'] });
    const versions = await (await platform.fetch('/apps/proven-app/versions', { token })).json();
    expect(versions.items[0].provenance).toEqual({
      kind: 'release',
      signer: { kind: 'release' },
      source: null,
      transparencyLog: null,
      signedAt: null,
      trusted: true,
      trustedSigner: null,
    });
    // A release version recorded before the kind existed is given it at the next start.
    const proven = eq(appVersions.name, 'proven-app');
    await platform.database.db.update(appVersions).set({ provenance: null }).where(proven);
    await reconcile([release]);
    const [row] = await platform.database.db.select().from(appVersions).where(proven);
    expect(row?.provenance).toMatchObject({ kind: 'release', signer: { kind: 'release' } });
  });
});
