// `ops platform publish` through the real command on the platform's database and module storage
// (docs/operations.md "ops platform publish"): a module file, standard input, --new-app, and every refusal
// with its exit code and code; the api then serves the stored module to runners as any other.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { keylessPolicy, startLocalSigstore, TEST_ISSUER } from '../support/sigstore.ts';
import { auditOf, type BuiltModule, builtModule, opsOn, platformRow } from './platform-support.ts';

let platform: TestPlatform;
const ops = opsOn(() => platform);
let kyc: BuiltModule;
let kycNext: BuiltModule;
let dir: string;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  [kyc, kycNext] = await Promise.all([
    builtModule('kyc-vendor', '1.0.0'),
    builtModule('kyc-vendor', '1.1.0'),
  ]);
  dir = path.join(platform.config.dataDir, 'modules-to-publish');
  await fs.mkdir(dir, { recursive: true });
}, 120_000);
afterAll(async () => platform?.close());

/** Writes a module to a file the command reads. */
async function file(bytes: Uint8Array, name = `${randomUUID()}.wasm`): Promise<string> {
  const at = path.join(dir, name);
  await fs.writeFile(at, bytes);
  return at;
}

/** The module runners fetch from the api's internal listener (published or still running, not blocked). */
const served = (sha256: string) =>
  fetch(`${platform.internalUrl}/internal/app-modules/${sha256}`, {
    headers: { authorization: `Bearer ${RUNNER_TOKEN}` },
  });

/** Expects exit 1 with that code first on standard error, and no new platform version. */
async function refused(
  argv: string[],
  code: string,
  options: { stdin?: Buffer; env?: Record<string, string> } = {},
) {
  const before = await platform.database.db.select().from(appVersions);
  const result = await ops.run(argv, options);
  expect(result.stdout).toBe('');
  expect(result.stderr.split(':')[0], result.stderr).toBe(code);
  expect(result.code).toBe(1);
  expect(await platform.database.db.select().from(appVersions)).toEqual(before);
  return result;
}

describe('ops platform publish', () => {
  it('publishes a new app with --new-app: source operator, published, stored, audited, served', async () => {
    const result = await ops.json<{ version: Record<string, unknown> }>([
      'platform',
      'publish',
      await file(kyc.bytes),
      '--new-app',
      '--by',
      'grace',
    ]);
    expect(result.version).toEqual({
      id: expect.any(String),
      name: 'kyc-vendor',
      version: '1.0.0',
      platformSource: 'operator',
      status: 'published',
      withdrawnByOperator: false,
      sha256: kyc.sha256,
      sizeBytes: kyc.bytes.byteLength,
      memoryMiB: kyc.manifest.memoryMiB,
      createdAt: expect.any(String),
      publishedAt: expect.any(String),
      withdrawnAt: null,
      installs: 0,
    });
    const row = await platformRow(platform.database, 'kyc-vendor', '1.0.0');
    expect(row).toMatchObject({
      publisher: 'platform',
      tenantId: null,
      manifest: kyc.manifest,
      uploadedBy: 'grace',
    });
    expect(await auditOf(platform.database, row?.id as string)).toEqual([
      {
        tenantId: null,
        action: 'app.published',
        actor: { type: 'operator', id: 'grace', name: 'grace' },
        data: {
          name: 'kyc-vendor',
          version: '1.0.0',
          sha256: kyc.sha256,
          sizeBytes: kyc.bytes.byteLength,
          platformSource: 'operator',
          via: 'operator',
          newApp: true,
        },
      },
    ]);
    // In the deployment's module storage, as the api stores an upload: runners get it from the api.
    const response = await served(kyc.sha256);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(kyc.bytes);
  });

  it('reads the module from standard input with -, and a next version needs no --new-app', async () => {
    const result = await ops.run(['platform', 'publish', '-', '--by', 'grace'], {
      stdin: Buffer.from(kycNext.bytes),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^published kyc-vendor@1\.1\.0\n/);
    expect(result.stdout).toContain(`sha256    ${kycNext.sha256}\n`);
    expect(await platformRow(platform.database, 'kyc-vendor', '1.1.0')).toMatchObject({
      status: 'published',
      platformSource: 'operator',
    });
  });

  it('refuses a name the platform does not have without --new-app (404 not_found): a typo creates nothing', async () => {
    const typo = await builtModule('kyc-vendr', '1.0.0');
    const result = await refused(
      ['platform', 'publish', await file(typo.bytes), '--by', 'grace'],
      'not_found',
    );
    expect(result.stderr).toContain('give --new-app to create it');
  });

  it('refuses --new-app for an app the platform has (409 conflict)', async () => {
    const next = await builtModule('kyc-vendor', '2.0.0');
    const result = await refused(
      ['platform', 'publish', await file(next.bytes), '--new-app', '--by', 'grace'],
      'conflict',
    );
    expect(result.stderr).toContain('publish without --new-app');
  });

  it('refuses a version that exists in any status (409 conflict, with details in --json)', async () => {
    const again = await ops.run(['platform', 'publish', await file(kyc.bytes), '--by', 'grace', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toEqual({
      error: {
        code: 'conflict',
        message: 'kyc-vendor@1.0.0 already exists (published): raise the version',
        details: { name: 'kyc-vendor', version: '1.0.0', status: 'published' },
      },
    });
    // Withdrawn, the version still exists: versions are immutable.
    await platform.database.db
      .update(appVersions)
      .set({ status: 'withdrawn' })
      .where(eq(appVersions.sha256, kyc.sha256));
    await refused(['platform', 'publish', await file(kyc.bytes), '--by', 'grace'], 'conflict');
  });

  it('refuses a new app under a name a tenant’s own app has (409 conflict)', async () => {
    const tenantId = await platform.tenantId('has-screening');
    await platform.database.db.insert(appVersions).values({
      publisher: 'tenant',
      tenantId,
      name: 'screening',
      version: '0.1.0',
      status: 'uploaded',
      sha256: '1'.repeat(64),
      sizeBytes: 1,
      manifest: kyc.manifest,
    });
    const screening = await builtModule('screening', '1.0.0');
    const result = await refused(
      ['platform', 'publish', await file(screening.bytes), '--new-app', '--by', 'grace'],
      'conflict',
    );
    expect(result.stderr).toContain('1 tenant(s) have an app of their own named screening');
  });

  it('refuses a blocked module or app (409 app_blocked)', async () => {
    const blocked = await builtModule('blocked-app', '1.0.0');
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: blocked.sha256, reason: 'exfiltrates', createdBy: 'olga' });
    await refused(
      ['platform', 'publish', await file(blocked.bytes), '--new-app', '--by', 'grace'],
      'app_blocked',
    );
    const json = await ops.run([
      'platform',
      'publish',
      await file(blocked.bytes),
      '--new-app',
      '--by',
      'grace',
      '--json',
    ]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'app_blocked',
      details: { sha256: blocked.sha256, reason: 'exfiltrates' },
    });
    // A block of the platform's app by name covers every module of it.
    await platform.database.db
      .insert(appBlocks)
      .values({ publisher: 'platform', appName: 'kyc-vendor', reason: 'vendor gone', createdBy: 'olga' });
    const next = await builtModule('kyc-vendor', '1.2.0');
    await refused(['platform', 'publish', await file(next.bytes), '--by', 'grace'], 'app_blocked');
  });

  it('refuses a module without its manifest’s memory maximum, and bytes that are no module (validation_error)', async () => {
    const other = await builtModule('uncapped-app', '1.0.0');
    const result = await refused(
      ['platform', 'publish', await file(other.uncapped), '--new-app', '--by', 'grace'],
      'validation_error',
    );
    expect(result.stderr).toContain(
      `does not carry the memory maximum its manifest names (memoryMiB ${other.manifest.memoryMiB})`,
    );
    const json = await ops.run(['platform', 'publish', '-', '--new-app', '--by', 'grace', '--json'], {
      stdin: Buffer.from('not a module'),
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'validation_error',
      details: { code: 'not_wasm' },
    });
  });

  it('--bundle: signatures_off while APP_SIGNATURES is off; else verified against the module and recorded', async () => {
    const sigstore = await startLocalSigstore();
    try {
      const next = await builtModule('signed-vendor', '1.0.0');
      const other = await builtModule('signed-vendor', '1.0.9');
      const signed = await file(
        new TextEncoder().encode(
          JSON.stringify(await sigstore.keyless(next.bytes, { identity: 'ops@acme.test' })),
        ),
        'bundle.json',
      );
      const moduleFile = await file(next.bytes);
      const argv = ['platform', 'publish', moduleFile, '--new-app', '--bundle', signed, '--by', 'grace'];
      await refused(argv, 'signatures_off');
      const env = {
        APP_SIGNATURES: 'required',
        APP_TRANSPARENCY_TRUSTED_ROOTS: sigstore.rootPath,
        APP_TRUSTED_SIGNERS: keylessPolicy('platform-ops', 'ops@acme.test'),
      };
      const otherFile = await file(other.bytes);
      const mismatchArgv = [
        'platform',
        'publish',
        otherFile,
        '--new-app',
        '--bundle',
        signed,
        '--by',
        'grace',
      ];
      const noRoot = { ...env, APP_TRANSPARENCY_TRUSTED_ROOTS: path.join(dir, 'no-such-root.json') };
      // Another module's bundle is refused as such, with or without a loadable root: it needs none.
      for (const runEnv of [env, noRoot]) {
        const mismatch = await ops.run([...mismatchArgv, '--json'], { env: runEnv });
        expect(mismatch.code).toBe(1);
        expect(JSON.parse(mismatch.stderr).error).toMatchObject({
          code: 'provenance_invalid',
          details: { reason: 'digest_mismatch' },
        });
      }
      expect(await platformRow(platform.database, 'signed-vendor', '1.0.9')).toBeUndefined();
      await refused(argv, 'provenance_unavailable', { env: noRoot });
      const published = await ops.json<{ version: { id: string }; provenance: Record<string, unknown> }>(
        argv,
        {
          env,
        },
      );
      expect(published.provenance).toMatchObject({
        kind: 'signature',
        signer: { kind: 'keyless', issuer: TEST_ISSUER, identity: 'ops@acme.test' },
        trusted: true,
        trustedSigner: 'platform-ops',
      });
      const row = await platformRow(platform.database, 'signed-vendor', '1.0.0');
      expect(row?.provenance).toMatchObject({ kind: 'signature', signer: { identity: 'ops@acme.test' } });
    } finally {
      await sigstore.close();
    }
  });

  it('refuses when the deployment has no module storage (apps_unavailable)', async () => {
    const next = await file((await builtModule('kyc-vendor', '3.0.1')).bytes);
    await refused(['platform', 'publish', next, '--by', 'grace'], 'apps_unavailable', {
      env: { MODULE_STORAGE: 'off' },
    });
  });

  it.each([
    ['no --by', ['platform', 'publish', 'x.wasm'], /required option '--by <name>' not specified/],
    [
      'a file that is not there',
      ['platform', 'publish', '/nonexistent/x.wasm', '--by', 'grace'],
      /no such file or directory/,
    ],
    [
      'a directory that is no app',
      ['platform', 'publish', '/tmp', '--by', 'grace'],
      /is not an app directory: it has no assembly\/index\.ts/,
    ],
    ['an empty standard input', ['platform', 'publish', '-', '--by', 'grace'], /standard input was empty/],
  ])('%s is a usage error: exit 2', async (_case, argv, message) => {
    const result = await ops.run(argv, { stdin: Buffer.alloc(0) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});
