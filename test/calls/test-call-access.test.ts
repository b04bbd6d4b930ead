// What a test call may reach (docs/calls.md "Test call": documents, secrets and cached values):
// a document token only for a caller holding documents:read (the document uploaded through the documents
// route, checked, and read by the module through document_read), and without
// SECRET_STORE_KEY neither required secrets (503) nor cached values (every cache operation refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { checked, uploaded } from '../documents/support.ts';
import { errorOf, ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { servedReads, servedReadsOnce } from '../support/documents.ts';

let vendor: VendorDouble;
beforeAll(async () => {
  vendor = await startVendorDouble([]);
});
afterAll(async () => vendor?.close());

const call = (platform: CataloguePlatform, path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });

describe('documents of a test call', () => {
  let platform: CataloguePlatform;
  beforeAll(async () => {
    platform = await startCataloguePlatform({
      SECRET_STORE_KEY: SECRET_KEY_HEX,
      APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
      APP_CALL_TOKEN_SECRET: 'test-call-document-token-secret-1',
    });
  }, 120_000);
  afterAll(async () => platform?.close());

  it('mints a document token only for a caller holding documents:read', async () => {
    const admin = await platform.token({ tenant: 'docs' });
    const document = await checked(
      platform,
      await uploaded(platform, {
        subjectId: 'applicant-7',
        name: 'id card.txt',
        contentType: 'text/plain',
        bytes: new TextEncoder().encode('document body'),
        token: admin,
      }),
      admin,
    );
    expect(document.status).toBe('clean');
    const version = await published(platform, admin, buildFixture('vendor-app'));
    await ok(
      await call(platform, '/app-installs', admin, 'POST', {
        name: 'reader',
        versionId: version.id,
        enabled: false,
        config: { baseUrl: vendor.url },
        approveHosts: [vendor.host],
      }),
      201,
    );
    for (const secret of ['API_KEY', 'WEBHOOK_SECRET']) {
      await ok(
        await call(platform, `/app-installs/reader/secrets/${secret}`, admin, 'POST', {
          value: `value-of-${secret}`,
        }),
      );
    }
    // A test call has no subject: it reads any of its tenant's clean documents.
    const read = { action: 'read_document', input: { documentId: document.id } };

    const withDocuments = await ok<{
      output: { document: Record<string, unknown> };
      usage: { documentReads: number };
    }>(await call(platform, '/app-installs/reader/test', admin, 'POST', read));
    expect(withDocuments.output.document).toEqual({
      id: document.id,
      name: 'id card.txt',
      contentType: 'text/plain',
      bodyBase64: Buffer.from('document body').toString('base64'),
    });
    expect(withDocuments.usage.documentReads).toBe(1);

    const writer = await platform.token({
      tenant: 'docs',
      roles: [],
      permissions: ['apps:read', 'apps:write'],
    });
    // The first call's read, logged; the second call reads nothing more.
    const reads = (await servedReadsOnce(platform, 1)).length;
    const without = await ok<{ output: { document: Record<string, unknown> } }>(
      await call(platform, '/app-installs/reader/test', writer, 'POST', read),
    );
    expect(without.output.document).toMatchObject({ refused: true });
    expect(servedReads(platform).length).toBe(reads);
  });
});

describe('a test call without SECRET_STORE_KEY', () => {
  let platform: CataloguePlatform;
  beforeAll(async () => {
    platform = await startCataloguePlatform();
  }, 120_000);
  afterAll(async () => platform?.close());

  it('answers 503 secret_store_unavailable for an install with required secrets', async () => {
    const admin = await platform.token({ tenant: 'keyless' });
    const version = await published(platform, admin, buildFixture('vendor-app'));
    await ok(
      await call(platform, '/app-installs', admin, 'POST', {
        name: 'needs-keys',
        versionId: version.id,
        enabled: false,
        config: { baseUrl: 'https://api.vendor.test' },
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    const error = await errorOf(
      await call(platform, '/app-installs/needs-keys/test', admin, 'POST', { action: 'crash', input: {} }),
      503,
    );
    expect(error.code).toBe('secret_store_unavailable');
  });

  it('runs an install without secrets, every cache operation refused', async () => {
    const admin = await platform.token({ tenant: 'keyless' });
    const version = await published(
      platform,
      admin,
      buildFixture('echo', {
        '"name":"echo","version"': '"name":"echo-keyless","version"',
        '"secrets":[{"name":"API_KEY"}]': '"secrets":[]',
      }),
    );
    await ok(
      await call(platform, '/app-installs', admin, 'POST', {
        name: 'no-secrets',
        versionId: version.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    const answer = await ok<{ status: string; output: { answer: unknown } }>(
      await call(platform, '/app-installs/no-secrets/test', admin, 'POST', {
        action: 'echo',
        input: { hostCall: { fn: 'cache', request: { op: 'set', name: 'k', value: 'cached-value' } } },
      }),
    );
    expect(answer.status).toBe('success');
    expect(answer.output.answer).toEqual({
      error: 'cache: this deployment keeps no cached values (no secret store key)',
      refused: true,
    });
  });
});
