// The api over S3-compatible module storage: the release reconciliation at start-up stores the platform
// apps' modules in the bucket, and the internal listener serves runners the modules it holds. With
// MODULE_STORAGE=off the catalogue answers 503 apps_unavailable.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { S3ModuleStorage } from '../../src/storage/index.ts';
import { appModule } from '../catalogue/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertVersionRow } from '../support/runner.ts';
import { type S3Double, startS3Double } from './s3-double.ts';

const BUCKET = 'platform-modules';
const ACCESS_KEY_ID = 'AKIDPLATFORMAPI';
const RUNNER_TOKEN = 'storage-test-runner-token';

/** A release index holding one platform app, as the apps build writes it. */
async function writeRelease(dir: string): Promise<{ index: string; sha256: string; bytes: Uint8Array }> {
  const capped = capMemory(await appModule('storage-probe', '1.0.0'), 64);
  if (!capped.ok) throw new Error(capped.message);
  const sha256 = sha256Hex(capped.bytes);
  await fs.writeFile(path.join(dir, 'storage-probe.wasm'), capped.bytes);
  await fs.writeFile(
    path.join(dir, 'storage-probe.manifest.json'),
    JSON.stringify({
      interface: 2,
      name: 'storage-probe',
      version: '1.0.0',
      configSchema: { type: 'object' },
      secrets: [{ name: 'API_KEY' }],
      actions: [{ name: 'echo', input: { type: 'object' }, output: { type: 'object' } }],
      hosts: ['api.vendor.test'],
      handles: { webhook: true, handoff: true },
    }),
  );
  const index = path.join(dir, 'release.json');
  await fs.writeFile(index, JSON.stringify({ modules: [{ file: 'storage-probe.wasm', sha256 }] }));
  return { index, sha256, bytes: capped.bytes };
}

const fetchModule = (platform: TestPlatform, sha256: string, token: string | null = RUNNER_TOKEN) =>
  fetch(`${platform.internalUrl}/internal/app-modules/${sha256}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe('the api over S3-compatible module storage', () => {
  let double: S3Double;
  let platform: TestPlatform;
  let releaseDir: string;
  let release: Awaited<ReturnType<typeof writeRelease>>;

  beforeAll(async () => {
    double = await startS3Double([BUCKET]);
    releaseDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-release-'));
    release = await writeRelease(releaseDir);
    platform = await startTestPlatform({
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      RELEASE_INDEX: release.index,
      STORAGE_ENDPOINT: double.endpoint,
      STORAGE_BUCKET: BUCKET,
      STORAGE_ACCESS_KEY_ID: ACCESS_KEY_ID,
      STORAGE_SECRET_ACCESS_KEY: 'api-test-secret',
    });
  });
  afterAll(async () => {
    await platform?.close();
    await double?.close();
    if (releaseDir) await fs.rm(releaseDir, { recursive: true, force: true });
  });

  it('stores the release’s modules in the bucket at start-up, and nothing under DATA_DIR', async () => {
    const stored = double.buckets.get(BUCKET)?.get(`modules/${release.sha256}.wasm`);
    expect(stored?.bytes).toEqual(Buffer.from(release.bytes));
    expect(stored?.contentType).toBe('application/wasm');
    const writes = double.requests.filter((r) => r.method === 'PUT');
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) {
      expect(write.scheme).toBe('AWS4-HMAC-SHA256');
      expect(write.accessKeyId).toBe(ACCESS_KEY_ID);
      expect(write.region).toBe('us-east-1');
    }
    await expect(fs.stat(path.join(platform.config.dataDir, 'modules'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    const apps = await platform.fetch('/apps');
    expect(apps.status).toBe(200);
    expect((await apps.json()).items.map((a: { name: string }) => a.name)).toContain('storage-probe');
  });

  it('serves runners a module put through S3ModuleStorage on the internal listener', async () => {
    const storage = moduleStorageOf(platform);
    expect(storage).toBeInstanceOf(S3ModuleStorage);
    const bytes = await appModule('storage-served', '2.0.0');
    const sha256 = await storage.put(bytes);
    storage.close?.();
    await insertVersionRow(platform.database, sha256);
    expect(double.buckets.get(BUCKET)?.has(`modules/${sha256}.wasm`)).toBe(true);
    const reads = double.requests.length;
    const response = await fetchModule(platform, sha256);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/wasm');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(bytes));
    // It came from the bucket.
    expect(double.requests.slice(reads).map((r) => [r.method, r.key])).toEqual([
      ['GET', `modules/${sha256}.wasm`],
    ]);
    // And so does the release's module.
    const released = await fetchModule(platform, release.sha256);
    expect(Buffer.from(await released.arrayBuffer())).toEqual(Buffer.from(release.bytes));
  });

  it('answers 404 for a module the bucket does not hold, and 401 without the runner bearer', async () => {
    const missing = sha256Hex(new Uint8Array([1, 2, 3]));
    const response = await fetchModule(platform, missing);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
    expect((await fetchModule(platform, release.sha256, null)).status).toBe(401);
    expect((await fetchModule(platform, release.sha256, 'wrong-token')).status).toBe(401);
  });
});

describe('a store that fails', () => {
  let double: S3Double;
  let platform: TestPlatform;
  beforeAll(async () => {
    double = await startS3Double([BUCKET]);
    platform = await startTestPlatform({
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      RELEASE_INDEX: '/nonexistent/release.json',
      STORAGE_ENDPOINT: double.endpoint,
      STORAGE_BUCKET: 'no-such-bucket',
      STORAGE_ACCESS_KEY_ID: ACCESS_KEY_ID,
      STORAGE_SECRET_ACCESS_KEY: 'failing-store-secret',
    });
  });
  afterAll(async () => {
    await platform?.close();
    await double?.close();
  });

  it('answers 500 to the runner (not 404) and logs the failure without the secret', async () => {
    const sha256 = sha256Hex(new Uint8Array([7]));
    await insertVersionRow(platform.database, sha256);
    const response = await fetchModule(platform, sha256);
    expect(response.status).toBe(500);
    const failed = platform.logs.filter((line) => line.statusCode === 500);
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed[0])).toContain('in bucket no-such-bucket');
    expect(JSON.stringify(failed[0])).toContain('NoSuchBucket');
    expect(JSON.stringify(platform.logs)).not.toContain('failing-store-secret');
  });
});

describe('MODULE_STORAGE=off', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // A runner is configured: only the missing storage makes apps unavailable.
    platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN, MODULE_STORAGE: 'off' });
  });
  afterAll(async () => platform?.close());

  it('answers 503 apps_unavailable on /apps routes', async () => {
    for (const route of ['/apps', '/apps/approvals', '/apps/anything', '/apps/anything/versions']) {
      const response = await platform.fetch(route);
      expect(response.status, route).toBe(503);
      expect((await response.json()).error.code, route).toBe('apps_unavailable');
    }
    const upload = await platform.fetch('/apps/uploads', {
      method: 'POST',
      headers: { 'content-type': 'application/wasm' },
      body: new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]),
    });
    expect(upload.status).toBe(503);
    expect((await upload.json()).error.code).toBe('apps_unavailable');
  });

  it('still answers the routes that need no modules', async () => {
    expect((await platform.fetch('/tenants/me')).status).toBe(200);
    expect((await platform.fetch('/notifications')).status).toBe(200);
  });

  it('serves no modules to runners and has no store to hand out', async () => {
    expect((await fetchModule(platform, sha256Hex(new Uint8Array([1])))).status).toBe(404);
    expect(() => moduleStorageOf(platform)).toThrow(
      'this deployment has no module storage (MODULE_STORAGE=off)',
    );
  });
});
