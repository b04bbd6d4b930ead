// When installs move (docs/upgrades.md "When installs move", "Two processes"): the release scenario — an
// api started with a release carrying http-connector 1.0.0, an install opted in, an api started with a
// release adding 1.0.1 moves it at start-up, one with 1.1.0 adding a host opens a change with origin
// auto_upgrade, and `ops platform withdraw` of 1.0.1 rolls it back to 1.0.0 — the api's sweep every few moments (an interval a test may shorten), and two sweepers at
// once moving each install once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApi, startApi } from '../../src/api/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { readOrCreateLocalSecrets } from '../../src/auth/local-keys.ts';
import { localVerifier } from '../../src/auth/tokens.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { openDatabase } from '../../src/db/pool.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changeCalls } from '../installs/changes-support.ts';
import { ok, SECRET_KEY_HEX } from '../installs/support.ts';
import { until } from '../runs/worker-process.ts';
import { opsJson } from '../support/ops.ts';
import { recordingEngine } from '../vendor-sessions/support.ts';
import { type InstallView, optIn, platformRelease, sweep, withLabel, writeReleaseIndex } from './support.ts';

const BUILD = path.resolve(import.meta.dirname, '../../apps/build');
const CONNECTOR = 'http-connector';

let releaseDir: string;
let platform: CataloguePlatform;
let api: ChangeCalls;
let ada: string;
/** Release indexes: 1.0.0; 1.0.0 and 1.0.1; those and 1.1.0, which calls one more host. */
const indexes: Record<'v1' | 'v2' | 'v3', string> = { v1: '', v2: '', v3: '' };

beforeAll(async () => {
  releaseDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-upgrades-'));
  const manifest = JSON.parse(
    await fs.readFile(path.join(BUILD, `${CONNECTOR}-1.0.0.manifest.json`), 'utf8'),
  );
  const bytes = new Uint8Array(await fs.readFile(path.join(BUILD, `${CONNECTOR}-1.0.0.wasm`)));
  const v100 = { manifest, bytes };
  const v101 = { manifest: { ...manifest, version: '1.0.1' }, bytes: withLabel(bytes, '1.0.1') };
  const v110 = {
    manifest: { ...manifest, version: '1.1.0', hosts: ['status.vendor.example'] },
    bytes: withLabel(bytes, '1.1.0'),
  };
  indexes.v1 = await writeReleaseIndex(path.join(releaseDir, 'v1'), [v100]);
  indexes.v2 = await writeReleaseIndex(path.join(releaseDir, 'v2'), [v100, v101]);
  indexes.v3 = await writeReleaseIndex(path.join(releaseDir, 'v3'), [v100, v101, v110]);
  platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX, RELEASE_INDEX: indexes.v1 });
  api = changeCalls(platform);
  ada = await api.admin('sweeps');
}, 120_000);
afterAll(async () => {
  await platform?.close();
  if (releaseDir) await fs.rm(releaseDir, { recursive: true, force: true });
});

/** Another api process of the deployment, on its database, started with the release `index`. */
async function startAnotherApi(index: string, upgradeSweepIntervalMs?: number): Promise<RunningApi> {
  const local = await readOrCreateLocalSecrets(platform.config.dataDir);
  return startApi({
    config: { ...platform.config, releaseIndex: index, port: 0, internalPort: 0 },
    database: platform.database,
    verifier: localVerifier(local.signingKey),
    logger: pino({ level: 'silent' }),
    runs: recordingEngine().engine,
    ...(upgradeSweepIntervalMs ? { upgradeSweepIntervalMs } : {}),
  });
}

const view = async (name: string) => ok<InstallView>(await api.call(`/app-installs/${name}`, ada));
const connectorId = async (version: string) => {
  const [row] = await platform.database.db
    .select({ id: appVersions.id, sha256: appVersions.sha256 })
    .from(appVersions)
    .where(and(eq(appVersions.name, CONNECTOR), eq(appVersions.version, version)));
  if (!row) throw new Error(`no ${CONNECTOR} ${version}`);
  return row;
};
const upgradedRows = async (installId: string) => {
  const [row] = await platform.database.db
    .select({ n: count() })
    .from(auditEvents)
    .where(and(eq(auditEvents.action, 'app.install.upgraded'), eq(auditEvents.resourceId, installId)));
  return row?.n ?? 0;
};

describe('the release scenario', () => {
  it('moves an opted-in install at start-up to a release adding 1.0.1; a release adding a host opens a change', async () => {
    const v100 = await connectorId('1.0.0');
    const installed = await ok<InstallView>(
      await api.install(ada, {
        name: 'conn',
        versionId: v100.id,
        config: { baseUrl: 'https://api.vendor.example' },
        approveHosts: ['api.vendor.example'],
        autoUpgrade: 'compatible',
      }),
      201,
    );
    expect(installed.upgrade).toMatchObject({ target: null, waitingFor: null });

    const second = await startAnotherApi(indexes.v2);
    await second.close();
    const v101 = await connectorId('1.0.1');
    expect(await view('conn')).toMatchObject({
      versionId: v101.id,
      upgradedFromVersionId: v100.id,
      hosts: ['api.vendor.example'],
      pendingChange: null,
    });
    expect(await upgradedRows(installed.id)).toBe(1);

    const third = await startAnotherApi(indexes.v3);
    await third.close();
    const v110 = await connectorId('1.1.0');
    const held = await view('conn');
    expect(held.versionId).toBe(v101.id);
    expect(held.pendingChange).toMatchObject({
      origin: 'auto_upgrade',
      versionId: v110.id,
      hostsAdded: ['status.vendor.example'],
      requestedBy: 'system:auto-upgrade',
    });
    expect(held.upgrade).toMatchObject({ target: { id: v110.id, version: '1.1.0' }, waitingFor: 'approval' });
    expect(await upgradedRows(installed.id)).toBe(1);

    // The operator withdraws 1.0.1: the install rolls back to 1.0.0 at once, not waiting for someone to
    // approve 1.1.0 (whose change the move supersedes).
    const withdrawn = await opsJson<{ rollback: { rolledBack: { installId: string; toVersion: string }[] } }>(
      platform.config.databaseUrl as string,
      ['platform', 'withdraw', `${CONNECTOR}@1.0.1`, '--reason', 'bad build', '--by', 'grace'],
      { env: { DATA_DIR: platform.config.dataDir } },
    );
    expect(withdrawn.rollback.rolledBack).toEqual([
      expect.objectContaining({ installId: installed.id, toVersion: '1.0.0' }),
    ]);
    const back = await view('conn');
    expect(back).toMatchObject({
      versionId: v100.id,
      upgradedFromVersionId: v101.id,
      hosts: ['api.vendor.example'],
    });
    const [rolledBack] = await platform.database.db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'app.install.upgraded'), eq(auditEvents.resourceId, installed.id)))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    expect(rolledBack?.data).toMatchObject({
      fromVersion: '1.0.1',
      toVersion: '1.0.0',
      automatic: true,
      rollback: true,
      hostsRemoved: [],
    });
  });

  it('sweeps again every interval: a block of the version its change asks for withdraws that change', async () => {
    const ticking = await startAnotherApi(indexes.v3, 50);
    try {
      const v110 = await connectorId('1.1.0');
      const asked = (await view('conn')).pendingChange;
      expect(asked?.versionId).toBe(v110.id);
      await platform.database.db
        .insert(appBlocks)
        .values({ sha256: v110.sha256, reason: 'calls a host it should not', createdBy: 'operator' });
      const settled = await until('the sweep withdrawing the change', async () => {
        const now = await view('conn');
        return now.pendingChange === null ? now : null;
      });
      expect(settled.upgrade).toMatchObject({ target: null, waitingFor: null });
      const [change] = (await api.list(ada, '?status=decided&install=conn')).items;
      expect(change).toMatchObject({
        id: asked?.id,
        decision: 'withdrawn',
        decisionComment: 'superseded',
        decidedBy: 'system:auto-upgrade',
      });
    } finally {
      await ticking.close();
    }
  });
});

/**
 * Resolves once `sessions` sessions of this file's database wait on a lock: a state, not a timing. (The
 * second waiter on a row waits on the first one's claim, not on the holder, so both are counted here.)
 */
async function untilWaitingOnLocks(sessions: number): Promise<void> {
  await until(`${sessions} sessions waiting on a lock`, async () => {
    const waiting = await platform.database.db.execute(
      sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and cardinality(pg_blocking_pids(pid)) > 0`,
    );
    return (waiting.rows[0] as { n: number }).n >= sessions ? true : null;
  });
}

describe('two sweepers at once', () => {
  it('move each install once, also when both decided to move it before either took its lock', async () => {
    const release = platformRelease(() => platform);
    const first = await release.publish({ name: 'race-app', version: '1.0.0' });
    const installs: InstallView[] = [];
    for (const name of ['race-a', 'race-b', 'race-c', 'race-d'])
      installs.push(await optIn(api, ada, name, first['1.0.0'] as string));
    const next = await release.publish({ name: 'race-app', version: '1.0.1' });
    const url = platform.config.databaseUrl as string;
    const [one, two] = [openDatabase(url), openDatabase(url)];
    try {
      const [held, ...rest] = installs as [InstallView, ...InstallView[]];
      let both: Promise<Awaited<ReturnType<typeof sweep>>[]> = Promise.resolve([]);
      await platform.database.db.transaction(async (tx) => {
        await tx.select().from(appInstalls).where(eq(appInstalls.id, held.id)).for('update');
        const scope = { installIds: [held.id] };
        both = Promise.all([sweep(one, platform.config, scope), sweep(two, platform.config, scope)]);
        // Both read the plan unlocked, decided to move, and wait on the row this transaction holds.
        await untilWaitingOnLocks(2);
      });
      const reports = await both;
      expect(reports.flatMap((r) => r.upgraded).map((i) => i.installId)).toEqual([held.id]);
      expect(reports.flatMap((r) => r.failed)).toEqual([]);
      expect(await upgradedRows(held.id)).toBe(1);

      const swept = await Promise.all([
        sweep(one, platform.config, { appName: 'race-app' }),
        sweep(two, platform.config, { appName: 'race-app' }),
      ]);
      expect(
        swept
          .flatMap((r) => r.upgraded)
          .map((i) => i.installId)
          .sort(),
      ).toEqual(rest.map((i) => i.id).sort());
      for (const install of installs) {
        expect(await upgradedRows(install.id)).toBe(1);
        expect((await view(install.name as string)).versionId).toBe(next['1.0.1']);
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
