// The release catalogue's start-up reconciliation beside versions the operator made with `ops platform`
// (docs/catalogue.md "Release catalogue", docs/operations.md "ops platform publish"): a release never
// withdraws an operator version nor republishes one the operator withdrew; a release with the same
// manifest adopts the operator's version, with another manifest the release's build is skipped, logged
// at error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import { RELEASE_PROVENANCE } from '../../src/provenance/index.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type BuiltModule, builtModule, opsOn, platformRow } from './platform-support.ts';

let platform: TestPlatform;
const ops = opsOn(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: 'x' });
}, 120_000);
afterAll(async () => platform?.close());

/** The start-up's reconciliation of a release, with what it logged at error. */
async function start(release: readonly BuiltModule[]) {
  const errors: { details: object; message: string }[] = [];
  const logger = {
    info: () => {},
    error: (details: object, message: string) => errors.push({ details, message }),
  };
  const modules: ReleaseModule[] = release.map(({ manifest, bytes, sha256 }) => ({
    manifest,
    bytes,
    sha256,
  }));
  const report = await reconcileRelease(platform.database, moduleStorageOf(platform), modules, logger);
  return { report, errors };
}

const publish = (module: BuiltModule, ...flags: string[]) =>
  ops.json(['platform', 'publish', '-', ...flags, '--by', 'grace'], { stdin: Buffer.from(module.bytes) });

describe('a release start-up beside the operator’s versions', () => {
  it('never withdraws an operator version the release does not carry', async () => {
    await publish(await builtModule('operator-only', '1.0.0'), '--new-app');
    const { report } = await start([await builtModule('in-release', '1.0.0')]);
    expect(report).toEqual({ published: ['in-release@1.0.0'], adopted: [], withdrawn: [], skipped: [] });
    expect(await platformRow(platform.database, 'operator-only', '1.0.0')).toMatchObject({
      status: 'published',
      platformSource: 'operator',
    });
  });

  it('never republishes a release version the operator withdrew; the operator may restore it', async () => {
    await ops.json(['platform', 'withdraw', 'in-release@1.0.0', '--by', 'grace']);
    const { report } = await start([await builtModule('in-release', '1.0.0')]);
    expect(report.published).toEqual([]);
    expect(await platformRow(platform.database, 'in-release', '1.0.0')).toMatchObject({
      status: 'withdrawn',
      withdrawnByOperator: true,
      platformSource: 'release',
    });
    // RELEASE_INDEX names no release here: restored, it is the operator's, which no release withdraws.
    await ops.json(['platform', 'restore', 'in-release@1.0.0', '--by', 'grace']);
    expect(await platformRow(platform.database, 'in-release', '1.0.0')).toMatchObject({
      status: 'published',
      withdrawnByOperator: false,
      platformSource: 'operator',
    });
    expect((await start([])).report.withdrawn).toEqual([]);
  });

  it('adopts the operator’s version when the release carries it with the same manifest', async () => {
    const module = await builtModule('adopted', '1.0.0');
    await publish(module, '--new-app');
    const before = await platformRow(platform.database, 'adopted', '1.0.0');
    const { report, errors } = await start([module]);
    expect(report.adopted).toEqual(['adopted@1.0.0']);
    expect(errors).toEqual([]);
    // The operator published it unsigned: adopted, it is the release's, and says so (kind release).
    expect(before?.provenance).toBeNull();
    expect(await platformRow(platform.database, 'adopted', '1.0.0')).toEqual({
      ...before,
      platformSource: 'release',
      provenance: RELEASE_PROVENANCE,
    });
  });

  it('skips the release’s build, logged at error, when the operator published that version with another manifest', async () => {
    await publish(await builtModule('diverged', '1.0.0'), '--new-app');
    const before = await platformRow(platform.database, 'diverged', '1.0.0');
    const { report, errors } = await start([await builtModule('diverged', '1.0.0', 'other.vendor.test')]);
    expect(report.skipped).toEqual(['diverged@1.0.0']);
    expect(errors).toEqual([
      {
        details: { app: 'diverged@1.0.0' },
        message: 'release build skipped: the operator published this version with another manifest',
      },
    ]);
    expect(await platformRow(platform.database, 'diverged', '1.0.0')).toEqual(before);
  });

  it('adopts an operator version the operator withdrew without publishing it again', async () => {
    const module = await builtModule('withdrawn-op', '1.0.0');
    await publish(module, '--new-app');
    await ops.json(['platform', 'withdraw', 'withdrawn-op@1.0.0', '--by', 'grace']);
    const { report } = await start([module]);
    expect(report.adopted).toEqual(['withdrawn-op@1.0.0']);
    expect(report.published).toEqual([]);
    expect(await start([module]).then((again) => again.report.published)).toEqual([]);
    expect(await platformRow(platform.database, 'withdrawn-op', '1.0.0')).toMatchObject({
      status: 'withdrawn',
      withdrawnByOperator: true,
      platformSource: 'release',
    });
  });
});
