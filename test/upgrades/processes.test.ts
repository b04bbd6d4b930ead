// Two api processes of one deployment starting at once with a release that adds http-connector 1.0.1
// (docs/upgrades.md "Two processes"): both reconcile the catalogue and sweep opted-in installs at start-up,
// and every install moves once — one app.install.upgraded each, whichever process moved it. (sweeps.test.ts
// forces the closer interleaving, both sweepers deciding before either takes the row's lock, in one process.)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, count, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changeCalls } from '../installs/changes-support.ts';
import { SECRET_KEY_HEX } from '../installs/support.ts';
import { startApiProcess } from '../runs/worker-process.ts';
import { freePort } from '../support/free-port.ts';
import { cleanUpProcesses, removeTempDirs, tempDir } from '../support/processes.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { optIn, withLabel, writeReleaseIndex } from './support.ts';

const BUILD = path.resolve(import.meta.dirname, '../../apps/build');
const CONNECTOR = 'http-connector';
const INSTALLS = ['p-one', 'p-two', 'p-three', 'p-four', 'p-five', 'p-six'];

let releaseDir: string;
let platform: CataloguePlatform;
let api: ChangeCalls;
const indexes = { v1: '', v2: '' };

beforeAll(async () => {
  releaseDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-upgrade-processes-'));
  const manifest = JSON.parse(
    await fs.readFile(path.join(BUILD, `${CONNECTOR}-1.0.0.manifest.json`), 'utf8'),
  );
  const bytes = new Uint8Array(await fs.readFile(path.join(BUILD, `${CONNECTOR}-1.0.0.wasm`)));
  const v100 = { manifest, bytes };
  const v101 = { manifest: { ...manifest, version: '1.0.1' }, bytes: withLabel(bytes, '1.0.1') };
  indexes.v1 = await writeReleaseIndex(path.join(releaseDir, 'v1'), [v100]);
  indexes.v2 = await writeReleaseIndex(path.join(releaseDir, 'v2'), [v100, v101]);
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    RELEASE_INDEX: indexes.v1,
    APP_RUNNER_TOKEN: RUNNER_TOKEN,
  });
  api = changeCalls(platform);
}, 120_000);
afterEach(cleanUpProcesses);
afterAll(async () => {
  await platform?.close();
  await removeTempDirs();
  if (releaseDir) await fs.rm(releaseDir, { recursive: true, force: true });
});

/** Another api process of the deployment: production settings on its database, the release `index`. */
async function apiProcess(index: string) {
  return startApiProcess(
    {
      DATABASE_URL: platform.config.databaseUrl as string,
      APP_RUNNER_URL: platform.runnerUrl,
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      SECRET_STORE_KEY: SECRET_KEY_HEX,
      APP_CALL_TOKEN_SECRET: 'call-token-secret-for-the-upgrade-processes-test',
      DATA_DIR: await tempDir('apps-platform-upgrade-api-'),
      RELEASE_INDEX: index,
      AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
      AUTH_ISSUER: 'upgrade-processes-test',
      AUTH_AUDIENCE: 'apps-platform',
    },
    await freePort(),
  );
}

describe('two api processes sweeping at start-up', () => {
  it('move each opted-in install once', async () => {
    const admin = await api.admin('processes');
    const [v100] = await platform.database.db
      .select({ id: appVersions.id })
      .from(appVersions)
      .where(and(eq(appVersions.name, CONNECTOR), eq(appVersions.version, '1.0.0')));
    const ids: string[] = [];
    for (const name of INSTALLS) {
      const installed = await optIn(api, admin, name, v100?.id as string, {
        config: { baseUrl: 'https://api.vendor.example' },
        approveHosts: ['api.vendor.example'],
      });
      ids.push(installed.id);
    }

    // Both start together; each answers /health only after its start-up sweep.
    await Promise.all([apiProcess(indexes.v2), apiProcess(indexes.v2)]);

    const [v101] = await platform.database.db
      .select({ id: appVersions.id })
      .from(appVersions)
      .where(and(eq(appVersions.name, CONNECTOR), eq(appVersions.version, '1.0.1')));
    const installs = await platform.database.db
      .select({ versionId: appInstalls.versionId, upgradedFrom: appInstalls.upgradedFromVersionId })
      .from(appInstalls)
      .where(inArray(appInstalls.id, ids));
    expect(installs).toEqual(ids.map(() => ({ versionId: v101?.id, upgradedFrom: v100?.id })));
    const moves = await platform.database.db
      .select({ installId: auditEvents.resourceId, n: count() })
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'app.install.upgraded'), inArray(auditEvents.resourceId, ids)))
      .groupBy(auditEvents.resourceId);
    expect(moves.map((m) => [m.installId, m.n]).sort()).toEqual(ids.map((id) => [id, 1]).sort());
  }, 240_000);
});
