// `ops platform list`, `withdraw` and `restore` through the real command on a real database
// (docs/operations.md "ops platform …"): the listing with its filters and install counts, a withdrawal
// that installs outlive (audited in the instance trail and the trails of the tenants running it, then
// the install that upgrades automatically rolled back at once), and a restore as the release's version or the operator's.
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { reconcileRelease } from '../../src/catalogue/release.ts';
import { appBlocks } from '../../src/catalogue/tables.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import {
  auditOf,
  type BuiltModule,
  builtModule,
  installOn,
  opsOn,
  platformRow,
  writeRelease,
} from './platform-support.ts';

let platform: TestPlatform;
const ops = opsOn(() => platform);
const modules: Record<string, BuiltModule> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  const [kyc, kycNext, sanctions] = await Promise.all([
    builtModule('kyc-vendor', '1.0.0'),
    builtModule('kyc-vendor', '1.1.0'),
    builtModule('sanctions', '1.0.0'),
  ]);
  Object.assign(modules, { kyc, kycNext, sanctions });
  // sanctions@1.0.0 from the release, kyc-vendor from the operator.
  await reconcileRelease(
    platform.database,
    moduleStorageOf(platform),
    [sanctions],
    pino({ level: 'silent' }),
  );
  await ops.json(['platform', 'publish', '-', '--new-app', '--by', 'grace'], {
    stdin: Buffer.from(kyc.bytes),
  });
  await ops.json(['platform', 'publish', '-', '--by', 'grace'], { stdin: Buffer.from(kycNext.bytes) });
  for (const [key, name, version] of [
    ['kyc', 'kyc-vendor', '1.0.0'],
    ['kycNext', 'kyc-vendor', '1.1.0'],
    ['sanctions', 'sanctions', '1.0.0'],
  ] as const)
    ids[key] = (await platformRow(platform.database, name, version))?.id as string;
  const acme = await platform.tenantId('acme');
  const beta = await platform.tenantId('beta');
  await installOn(platform.database, acme, ids.kycNext as string, 'kyc', 'kyc-vendor');
  const upgrading = await installOn(platform.database, acme, ids.kycNext as string, 'kyc-eu', 'kyc-vendor');
  await platform.database.db
    .update(appInstalls)
    .set({ autoUpgrade: 'compatible' })
    .where(eq(appInstalls.id, upgrading.id));
  await installOn(platform.database, beta, ids.kycNext as string, 'identity', 'kyc-vendor');
  await installOn(platform.database, beta, ids.sanctions as string, 'screening', 'sanctions');
}, 120_000);
afterAll(async () => platform?.close());

const served = (sha256: string) =>
  fetch(`${platform.internalUrl}/internal/app-modules/${sha256}`, {
    headers: { authorization: `Bearer ${RUNNER_TOKEN}` },
  });
const OPERATOR = { type: 'operator', id: 'grace', name: 'grace' };

describe('ops platform list', () => {
  it('lists release and operator versions by name, highest first, with installs; as an aligned table', async () => {
    const { items } = await ops.json<{ items: Record<string, unknown>[] }>(['platform', 'list']);
    expect(
      items.map((v) => [v.name, v.version, v.platformSource, v.status, v.withdrawnByOperator, v.installs]),
    ).toEqual([
      ['kyc-vendor', '1.1.0', 'operator', 'published', false, 3],
      ['kyc-vendor', '1.0.0', 'operator', 'published', false, 0],
      ['sanctions', '1.0.0', 'release', 'published', false, 1],
    ]);
    expect(items[0]).toMatchObject({ id: ids.kycNext, sha256: modules.kycNext?.sha256 });
    const human = await ops.run(['platform', 'list']);
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('NAME        VERSION  SOURCE    STATUS     BY_OPERATOR  INSTALLS  SHA256');
    expect(lines[1]).toBe(
      `kyc-vendor  1.1.0    operator  published  -            3         ${modules.kycNext?.sha256}`,
    );
    expect(lines).toHaveLength(4);
  });

  it('filters by --app, --status and --source; another value is a usage error', async () => {
    const list = async (...argv: string[]) =>
      (
        await ops.json<{ items: { name: string; version: string }[] }>(['platform', 'list', ...argv])
      ).items.map((v) => `${v.name}@${v.version}`);
    expect(await list('--app', 'sanctions')).toEqual(['sanctions@1.0.0']);
    expect(await list('--source', 'operator')).toEqual(['kyc-vendor@1.1.0', 'kyc-vendor@1.0.0']);
    expect(await list('--status', 'withdrawn')).toEqual([]);
    expect(await list('--app', 'nothing-here')).toEqual([]);
    const bad = await ops.run(['platform', 'list', '--status', 'uploaded']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are published, withdrawn/);
  });
});

describe('ops platform withdraw', () => {
  it('withdraws, marks it withdrawn by the operator, audits both trails; installs keep running it', async () => {
    const result = await ops.json<Record<string, unknown>>([
      'platform',
      'withdraw',
      'kyc-vendor@1.1.0',
      '--reason',
      'answers the wrong schema',
      '--by',
      'grace',
    ]);
    expect(result.version).toMatchObject({
      id: ids.kycNext,
      status: 'withdrawn',
      withdrawnByOperator: true,
      withdrawnAt: expect.any(String),
      installs: 3,
    });
    const acme = await platform.tenantId('acme');
    const beta = await platform.tenantId('beta');
    // By tenant, then name.
    expect(result.installs).toHaveLength(3);
    expect(result.installs).toEqual(
      expect.arrayContaining([
        { installId: expect.any(String), tenantId: acme, installName: 'kyc', autoUpgrade: 'off' },
        { installId: expect.any(String), tenantId: acme, installName: 'kyc-eu', autoUpgrade: 'compatible' },
        { installId: expect.any(String), tenantId: beta, installName: 'identity', autoUpgrade: 'off' },
      ]),
    );
    // The install that upgrades automatically is swept at once (docs/upgrades.md "Rollback"): its move
    // back to 1.0.0 waits for the secret it lacks, and it keeps running the withdrawn version meanwhile.
    const kycEu = (result.installs as { installId: string; installName: string }[]).find(
      (i) => i.installName === 'kyc-eu',
    )?.installId;
    expect(result.rollback).toEqual({
      upgraded: [],
      rolledBack: [],
      held: [],
      waiting: [
        {
          installId: kycEu,
          tenantId: acme,
          name: 'kyc-eu',
          appName: 'kyc-vendor',
          fromVersion: '1.1.0',
          toVersion: '1.0.0',
          rollback: true,
          waitingFor: 'secrets',
        },
      ],
      failed: [],
    });
    const [kept] = await platform.database.db
      .select()
      .from(appInstalls)
      .where(eq(appInstalls.id, kycEu as string));
    expect(kept).toMatchObject({ versionId: ids.kycNext });

    const common = {
      name: 'kyc-vendor',
      version: '1.1.0',
      sha256: modules.kycNext?.sha256,
      via: 'operator',
      platformSource: 'operator',
      reason: 'answers the wrong schema',
    };
    const withdrawals = (await auditOf(platform.database, ids.kycNext as string)).filter(
      (e) => e.action === 'app.withdrawn',
    );
    expect(withdrawals).toEqual(
      expect.arrayContaining([
        { tenantId: null, action: 'app.withdrawn', actor: OPERATOR, data: { ...common, installs: 3 } },
        {
          tenantId: acme,
          action: 'app.withdrawn',
          actor: OPERATOR,
          data: { ...common, installs: ['kyc', 'kyc-eu'] },
        },
        {
          tenantId: beta,
          action: 'app.withdrawn',
          actor: OPERATOR,
          data: { ...common, installs: ['identity'] },
        },
      ]),
    );
    expect(withdrawals).toHaveLength(3);
    // Runners still fetch it for the installs that run it.
    expect((await served(modules.kycNext?.sha256 as string)).status).toBe(200);
  });

  it('refuses a version not published (409 conflict) or unknown (404 not_found); a bad argument is exit 2', async () => {
    const again = await ops.run(['platform', 'withdraw', 'kyc-vendor@1.1.0', '--by', 'grace']);
    expect([again.code, again.stderr]).toEqual([1, 'conflict: the version is withdrawn, not published\n']);
    const unknown = await ops.run(['platform', 'withdraw', 'kyc-vendor@9.9.9', '--by', 'grace', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: { code: 'not_found', message: 'the platform has no version kyc-vendor@9.9.9' },
    });
    for (const argument of ['kyc-vendor', 'kyc-vendor@1.0', 'Kyc@1.0.0', 'kyc-vendor@1.0.0+build']) {
      const bad = await ops.run(['platform', 'withdraw', argument, '--by', 'grace']);
      expect(bad.code, argument).toBe(2);
      expect(bad.stderr).toMatch(/^ops: /);
    }
    const noBy = await ops.run(['platform', 'withdraw', 'kyc-vendor@1.0.0']);
    expect(noBy.code).toBe(2);
  });

  it('prints what it withdrew for a terminal', async () => {
    const result = await ops.run(['platform', 'withdraw', 'kyc-vendor@1.0.0', '--by', 'grace']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^withdrawn kyc-vendor@1\.0\.0; no release start-up republishes it\n/);
    expect(result.stdout).toContain('status                 withdrawn\n');
    expect(result.stdout).toContain('withdrawn by operator  true\n');
  });
});

describe('ops platform restore', () => {
  it('restores as the operator’s version when the running release does not carry it', async () => {
    const result = await ops.json<{ version: Record<string, unknown> }>([
      'platform',
      'restore',
      'kyc-vendor@1.1.0',
      '--by',
      'grace',
    ]);
    expect(result.version).toMatchObject({
      id: ids.kycNext,
      status: 'published',
      platformSource: 'operator',
      withdrawnByOperator: false,
      withdrawnAt: null,
      installs: 3,
    });
    const restored = (await auditOf(platform.database, ids.kycNext as string)).filter(
      (e) => e.action === 'app.published' && e.data.restored === true,
    );
    expect(
      restored.map((e) => [e.tenantId === null ? 'instance' : 'tenant', e.actor, e.data.platformSource]),
    ).toEqual([
      ['instance', OPERATOR, 'operator'],
      ['tenant', OPERATOR, 'operator'],
      ['tenant', OPERATOR, 'operator'],
    ]);
    const again = await ops.run(['platform', 'restore', 'kyc-vendor@1.1.0', '--by', 'grace']);
    expect([again.code, again.stderr]).toEqual([1, 'conflict: the version is published, not withdrawn\n']);
  });

  it('restores as the release’s version when the running release carries the same manifest', async () => {
    await ops.json(['platform', 'withdraw', 'sanctions@1.0.0', '--by', 'grace']);
    // The running release carries sanctions@1.0.0 with another manifest: the operator's.
    const other = await builtModule('sanctions', '1.0.0', 'other.vendor.test');
    await writeRelease(platform.config.releaseIndex, [other]);
    const asOperator = await ops.json<{ version: { platformSource: string } }>([
      'platform',
      'restore',
      'sanctions@1.0.0',
      '--by',
      'grace',
    ]);
    expect(asOperator.version.platformSource).toBe('operator');
    // With the same manifest: the release's again.
    await ops.json(['platform', 'withdraw', 'sanctions@1.0.0', '--by', 'grace']);
    await writeRelease(platform.config.releaseIndex, [modules.sanctions as BuiltModule]);
    const asRelease = await ops.run(['platform', 'restore', 'sanctions@1.0.0', '--by', 'grace']);
    expect(asRelease.code, asRelease.stderr).toBe(0);
    expect(asRelease.stdout).toMatch(/^restored sanctions@1\.0\.0\n/);
    expect(asRelease.stdout).toContain('source    release\n');
  });

  it('refuses a blocked version (409 app_blocked) and an unknown one (404 not_found)', async () => {
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: modules.kyc?.sha256 as string, reason: 'leaks', createdBy: 'olga' });
    const blocked = await ops.run(['platform', 'restore', 'kyc-vendor@1.0.0', '--by', 'grace']);
    expect([blocked.code, blocked.stderr]).toEqual([
      1,
      'app_blocked: this module is blocked by the operator\n',
    ]);
    expect((await platformRow(platform.database, 'kyc-vendor', '1.0.0'))?.status).toBe('withdrawn');
    const unknown = await ops.run(['platform', 'restore', 'nothing@1.0.0', '--by', 'grace']);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'not_found: the platform has no version nothing@1.0.0\n',
    ]);
  });
});
