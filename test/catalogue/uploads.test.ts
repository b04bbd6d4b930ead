import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { wat, withTableLimits } from '../module/wat.ts';
import { startTestPlatform } from '../support/platform.ts';
import { appModule, type CataloguePlatform, startCataloguePlatform } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

const modulesDir = () => path.join(platform.config.dataDir, 'modules');

describe('POST /apps/uploads', () => {
  it('answers the uploaded version, stores the capped module under its hash and audits it', async () => {
    const bytes = await appModule('screen', '1.0.0');
    const response = await platform.upload(bytes);
    expect(response.status).toBe(201);
    const summary = await response.json();
    const capped = capMemory(bytes, 64);
    if (!capped.ok) throw new Error(capped.message);
    expect(summary).toMatchObject({
      publisher: 'tenant',
      platformSource: null,
      name: 'screen',
      version: '1.0.0',
      status: 'uploaded',
      sha256: sha256Hex(capped.bytes),
      sizeBytes: capped.bytes.byteLength,
      publishedAt: null,
      review: null,
      provenance: null,
      memoryMiB: 64,
      secrets: [{ name: 'API_KEY' }],
      handles: { webhook: true, handoff: true },
    });
    expect(summary.actions[0]).toMatchObject({
      name: 'echo',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
    });
    const stored = await fs.readFile(path.join(modulesDir(), `${summary.sha256}.wasm`));
    expect(sha256Hex(new Uint8Array(stored))).toBe(summary.sha256);
    const audit = await (await platform.fetch('/audit-events?action=app.uploaded')).json();
    expect(audit.items[0]).toMatchObject({
      resource: { type: 'app_version', id: summary.id },
      data: { name: 'screen', version: '1.0.0' },
    });
  });

  it('refuses a name and version the tenant already has (409 conflict)', async () => {
    const bytes = await appModule('dupe', '1.0.0');
    expect((await platform.upload(bytes)).status).toBe(201);
    const again = await platform.upload(bytes);
    expect(again.status).toBe(409);
    expect((await again.json()).error).toMatchObject({
      code: 'conflict',
      details: { name: 'dupe', version: '1.0.0' },
    });
  });

  it('lets one of two concurrent uploads of a name and version win; storage keeps only its module', async () => {
    const [a, b] = await Promise.all([
      appModule('race', '1.0.0', 'a.vendor.test'),
      appModule('race', '1.0.0', 'b.vendor.test'),
    ]);
    const before = new Set(await fs.readdir(modulesDir()));
    const responses = await Promise.all([platform.upload(a), platform.upload(b)]);
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
    const added = (await fs.readdir(modulesDir())).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const winner = await (responses.find((r) => r.status === 201) as Response).json();
    expect(added[0]).toBe(`${winner.sha256}.wasm`);
    await (responses.find((r) => r.status === 409) as Response).text();
  });

  it('gives another tenant the same name and version freely', async () => {
    const bytes = await appModule('shared-name', '1.0.0');
    expect((await platform.upload(bytes)).status).toBe(201);
    expect((await platform.upload(bytes, await platform.token({ tenant: 'other-co' }))).status).toBe(201);
  });

  it.each([
    ['random bytes', () => Promise.resolve(new Uint8Array(randomBytes(64))), 'not_wasm'],
    [
      'an unknown manifest field',
      () => appModule('bad', '1.0.0').then(() => buildUnknownField()),
      'invalid_module',
    ],
  ])('refuses %s with 400 validation_error and details.code', async (_what, make, code) => {
    const response = await platform.upload(await make());
    expect(response.status).toBe(400);
    const error = (await response.json()).error;
    expect(error).toMatchObject({ code: 'validation_error', details: { code } });
  });

  it('names the manifest path of a refused field', async () => {
    const response = await platform.upload(await buildUnknownField());
    const error = (await response.json()).error;
    expect(error.message).toMatch(/^manifest: colour: unknown field/);
    expect(error.details.issues).toEqual([{ path: 'manifest.colour', message: error.message }]);
  });

  it('refuses a module declaring a table of 10,000,000 entries (table_too_large), storing nothing', async () => {
    const bytes = withTableLimits(await appModule('big-table', '1.0.0'), '10000000');
    expect(bytes.byteLength).toBeLessThan(64 * 1024);
    const response = await platform.upload(bytes);
    expect(response.status).toBe(400);
    const error = (await response.json()).error;
    expect(error).toMatchObject({
      code: 'validation_error',
      message: expect.stringMatching(/table without a maximum/),
      details: { code: 'table_too_large', issues: [{ path: '/' }] },
    });
    const rows = await platform.database.db
      .select()
      .from(appVersions)
      .where(eq(appVersions.name, 'big-table'));
    expect(rows).toEqual([]);
  });

  it('names what the manifest export trapped on, and refuses a module without manifest as missing_export', async () => {
    const invoke = '(func (export "invoke") (result i32) i32.const 0)';
    const cases = [
      [
        '(func (export "manifest") (result i32) unreachable)',
        'invalid_module',
        'the manifest export trapped: unreachable',
      ],
      ['', 'missing_export', 'module does not export the function manifest'],
    ] as const;
    for (const [manifest, code, message] of cases) {
      const bytes = wat(`(module (memory (export "memory") 1) ${invoke} ${manifest})`);
      const response = await platform.upload(bytes);
      expect(response.status).toBe(400);
      expect((await response.json()).error).toMatchObject({
        code: 'validation_error',
        message,
        details: { code, issues: [{ path: '/', message }] },
      });
    }
  });

  it('answers 413 payload_too_large over 32 MiB', async () => {
    const response = await platform.upload(new Uint8Array(32 * 1024 * 1024 + 1));
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('payload_too_large');
  });

  it('answers 415 for a body that is not application/wasm, naming it', async () => {
    const json = await platform.fetch('/apps/uploads', { method: 'POST', json: { module: 'no' } });
    const text = await platform.fetch('/apps/uploads', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'no',
    });
    for (const response of [json, text]) {
      expect(response.status).toBe(415);
      expect((await response.json()).error).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringMatching(/send .*application\/wasm$/),
      });
    }
  });

  it('needs apps:publish', async () => {
    const response = await platform.upload(
      await appModule('nope', '1.0.0'),
      await platform.token({ roles: ['analyst'] }),
    );
    expect(response.status).toBe(403);
    expect((await response.json()).error).toMatchObject({
      code: 'forbidden',
      details: { permission: 'apps:publish' },
    });
    const rows = await platform.database.db.select().from(appVersions).where(eq(appVersions.name, 'nope'));
    expect(rows).toEqual([]);
  });

  it('refuses a blocked module and a blocked app with 409 app_blocked, storing nothing', async () => {
    const bytes = await appModule('blocked-by-hash', '1.0.0');
    const capped = capMemory(bytes, 64);
    if (!capped.ok) throw new Error(capped.message);
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: sha256Hex(capped.bytes), reason: 'malware', createdBy: 'op' });
    const byHash = await platform.upload(bytes);
    expect(byHash.status).toBe(409);
    expect((await byHash.json()).error).toMatchObject({
      code: 'app_blocked',
      details: { sha256: sha256Hex(capped.bytes), reason: 'malware' },
    });
    expect(await fs.readdir(modulesDir())).not.toContain(`${sha256Hex(capped.bytes)}.wasm`);

    const tenantId = await platform.tenantId('acme');
    await platform.database.db.insert(appBlocks).values({
      publisher: 'tenant',
      publisherTenantId: tenantId,
      appName: 'blocked-app',
      reason: 'abuse',
      createdBy: 'op',
    });
    const byApp = await platform.upload(await appModule('blocked-app', '2.0.0'));
    expect(byApp.status).toBe(409);
    expect((await byApp.json()).error.code).toBe('app_blocked');
  });

  it('refuses a platform app’s name with 409 conflict', async () => {
    const bytes = await appModule('platform-owned', '1.0.0');
    await platform.database.db.insert(appVersions).values({
      publisher: 'platform',
      platformSource: 'release',
      name: 'platform-owned',
      version: '1.0.0',
      status: 'published',
      sha256: 'f'.repeat(64),
      sizeBytes: 1,
      manifest: {} as never,
    });
    const response = await platform.upload(bytes);
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('conflict');
  });
});

describe('without a runner', () => {
  it('answers 502 runner_not_sent when the runner cannot be reached', async () => {
    const orphan = await startTestPlatform({ APP_RUNNER_TOKEN: 'x', APP_RUNNER_URL: 'http://127.0.0.1:9' });
    try {
      const response = await orphan.fetch('/apps/uploads', {
        method: 'POST',
        headers: { 'content-type': 'application/wasm' },
        body: await appModule('lonely', '1.0.0'),
      });
      expect(response.status).toBe(502);
      expect((await response.json()).error.code).toBe('runner_not_sent');
    } finally {
      await orphan.close();
    }
  });

  it('answers 503 apps_unavailable on /apps when the deployment has no runner', async () => {
    const none = await startTestPlatform({ APP_RUNNER_TOKEN: 'x', APP_RUNNER_URL: 'off' });
    try {
      for (const route of ['/apps', '/apps/approvals', '/apps/anything']) {
        const response = await none.fetch(route);
        expect(response.status, route).toBe(503);
        expect((await response.json()).error.code).toBe('apps_unavailable');
      }
    } finally {
      await none.close();
    }
  });
});

function buildUnknownField(): Promise<Uint8Array> {
  return import('../support/assemblyscript.ts').then(({ buildFixture }) =>
    buildFixture('echo', { '"interface":2,': '"interface":2,"colour":"red",' }),
  );
}
