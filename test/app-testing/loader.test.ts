// The test loader, end to end: real modules through the real host functions, a vendor double on
// 127.0.0.1, the platform's envelopes, redaction, cache rules, documents and webhooks.
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppLogLine,
  AppRefusedError,
  type LoadedApp,
  loadApp,
  RunnerFailure,
  signedWebhook,
  startVendorDouble,
  type VendorDouble,
} from '../../packages/app-testing/src/index.ts';
import { buildFixture } from '../support/assemblyscript.ts';

const API_KEY = 'sk-test-abcdef123456';
const WEBHOOK_SECRET = 'whsec-test-0123456789';

let vendorApp: Uint8Array;
let vendor: VendorDouble;
let sessions = 0;

beforeAll(async () => {
  vendorApp = await buildFixture('vendor-app');
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/things/:id',
      respond: (request) => ({ json: { id: request.params.id, keySeen: request.headers['x-api-key'] } }),
    },
    {
      method: 'POST',
      path: '/sessions',
      respond: () => ({ status: 201, json: { sessionId: `sess_${++sessions}` } }),
    },
  ]);
}, 120_000);
afterAll(async () => {
  await vendor?.close();
});

const open = (options: Parameters<typeof loadApp>[1] = {}) =>
  loadApp(vendorApp, {
    config: { baseUrl: vendor.url },
    secrets: { API_KEY, WEBHOOK_SECRET },
    ...options,
  });

describe('loadApp', () => {
  let app: LoadedApp;
  const seen: AppLogLine[] = [];
  beforeAll(async () => {
    app = await open({ logger: (line) => seen.push(line) });
  });
  afterAll(() => app?.close());

  it('reads the manifest as the platform accepted it, and approves the hosts of hostsFromConfig URLs', () => {
    expect(app.manifest.name).toBe('vendor-app');
    expect(app.manifest.actions.find((a) => a.name === 'lookup')?.timeoutMs).toBe(15_000);
    expect(app.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(app.hosts).toEqual([vendor.host]);
  });

  it('fills the secret for the vendor and redacts it from the answer; logs reach app.logs and the logger', async () => {
    vendor.reset();
    const result = await app.invoke('lookup', { thingId: 'thing-1' }, { idempotencyKey: 'k-1' });
    expect(vendor.requests).toHaveLength(1);
    expect(vendor.requests[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(result.answer.status).toBe('ok');
    const output = (result.answer as { output: { vendor: { status: number; body: string } } }).output;
    expect(output.vendor.status).toBe(200);
    expect(JSON.parse(output.vendor.body)).toEqual({ id: 'thing-1', keySeen: '[secret:API_KEY]' });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(result.usage).toMatchObject({ httpRequests: 1, logLines: 1 });
    expect(result.logs).toEqual([{ level: 'info', message: 'looking up thing-1' }]);
    const line = {
      level: 'info',
      message: 'looking up thing-1',
      callId: result.callId,
      export: 'invoke',
      action: 'lookup',
    };
    expect(app.logs).toContainEqual(line);
    expect(seen).toContainEqual(line);
  });

  it('keeps cached values between calls as the platform applies each call’s changes', async () => {
    const first = await app.invoke('remember', { value: 'first-value-1' });
    expect(first.answer).toEqual({ status: 'ok', output: { cached: { value: null } } });
    expect(first.cacheChanges).toEqual([
      { op: 'set', name: 'last', value: 'first-value-1', ttlSeconds: 600 },
    ]);
    expect(app.cache).toEqual({ last: 'first-value-1' });
    // The next call reads the value; a cached value is redacted from answers.
    const second = await app.invoke('remember', { value: 'second-value-2' });
    expect(second.answer).toEqual({ status: 'ok', output: { cached: { value: '[cache:last]' } } });
    expect(app.cache).toEqual({ last: 'second-value-2' });
    await app.invoke('forget', {});
    expect(app.cache).toEqual({});
  });

  it('starts an asynchronous session, hands off to the vendor page and completes it by a signed webhook', async () => {
    const started = await app.invoke('start', { applicant: 'Ada' });
    expect(started.answer).toEqual({ status: 'pending', externalId: expect.stringMatching(/^sess_\d+$/) });
    const externalId = (started.answer as { externalId: string }).externalId;
    expect(JSON.parse(vendor.requests.at(-1)?.body ?? '')).toEqual({ applicant: 'Ada' });

    const handoff = await app.handoff(externalId);
    expect(handoff.answer).toEqual({
      status: 'ok',
      handoff: { url: `${vendor.url}/hosted/${externalId}`, expiresAt: '2030-01-01T00:00:00Z' },
    });

    const body = JSON.stringify({ session: externalId, decision: 'approved' });
    const completed = await app.handleWebhook(signedWebhook({ secret: WEBHOOK_SECRET, body }));
    // The default event id (HMAC-SHA256 of external id, NUL, body), computed here with node:crypto.
    const eventId = createHmac('sha256', 'service-webhook-event-id')
      .update(`${externalId}\0${body}`)
      .digest('hex');
    expect(completed.answer).toEqual({
      status: 'event',
      event: { externalId, eventId, status: 'completed', output: { decision: 'approved' } },
    });

    const forged = await app.handleWebhook(signedWebhook({ secret: 'not-the-secret', body }));
    expect(forged.answer).toEqual({ status: 'rejected', message: 'bad signature' });
  });

  it('refuses a webhook body over the platform’s 256 KiB', async () => {
    await expect(app.handleWebhook({ headers: {}, body: 'x'.repeat(256 * 1024 + 1) })).rejects.toThrow(
      /256 KiB/,
    );
  });
});

describe('loader options', () => {
  it('starts with the cached values given', async () => {
    const app = await open({ cache: { last: 'preloaded-value' } });
    try {
      const result = await app.invoke('remember', { value: 'replacing-value' });
      expect(result.answer).toEqual({ status: 'ok', output: { cached: { value: '[cache:last]' } } });
      expect(app.cache).toEqual({ last: 'replacing-value' });
    } finally {
      await app.close();
    }
  });

  it('serves documents to document_read through the api’s internal route, per subject', async () => {
    const app = await open({
      documents: {
        passport: { name: 'Pass ✓ Prüfung.pdf', contentType: 'application/pdf', body: 'PDF-BYTES' },
        other: { name: 'b.txt', contentType: 'text/plain', body: 'theirs', subjectId: 'subject-b' },
      },
    });
    try {
      const read = await app.invoke('read_document', { documentId: 'passport' }, { subjectId: 'subject-a' });
      expect(read.answer).toEqual({
        status: 'ok',
        output: {
          document: {
            id: 'passport',
            name: 'Pass ✓ Prüfung.pdf',
            contentType: 'application/pdf',
            bodyBase64: Buffer.from('PDF-BYTES').toString('base64'),
          },
        },
      });
      expect(read.usage.documentReads).toBe(1);
      const missing = await app.invoke('read_document', { documentId: 'nope' });
      expect(missing.answer).toMatchObject({ output: { document: { notFound: true } } });
      const another = await app.invoke('read_document', { documentId: 'other' }, { subjectId: 'subject-a' });
      expect(another.answer).toMatchObject({ output: { document: { notFound: true } } });
      const own = await app.invoke('read_document', { documentId: 'other' }, { subjectId: 'subject-b' });
      expect(own.answer).toMatchObject({
        output: { document: { name: 'b.txt', contentType: 'text/plain' } },
      });
    } finally {
      await app.close();
    }
  });

  it('hands the module the envelope of the contract: tenant, callback URL, idempotency key, tagged config', async () => {
    const tenantId = randomUUID();
    const app = await loadApp(await buildFixture('echo'), {
      tenantId,
      callbackUrl: 'https://platform.example/webhooks/app-installs/1',
      config: { greeting: 'hello {{secret:API_KEY}}' },
      secrets: { API_KEY },
    });
    try {
      const { answer } = await app.invoke('echo', { n: 1 }, { idempotencyKey: 'key-7' });
      const envelope = (answer as { output: { envelope: Record<string, unknown> } }).output.envelope;
      expect(envelope).toEqual({
        call: {
          id: expect.any(String),
          tenantId,
          callbackUrl: 'https://platform.example/webhooks/app-installs/1',
          secretTag: '[tag]',
        },
        action: 'echo',
        idempotencyKey: 'key-7',
        config: { greeting: 'hello {{secret:API_KEY:[tag]}}' },
        input: { n: 1 },
      });
    } finally {
      await app.close();
    }
  });

  it('loads a module from a path', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'app-testing-'));
    try {
      const file = path.join(dir, 'vendor-app.wasm');
      await fs.writeFile(file, vendorApp);
      const app = await loadApp(file, { config: { baseUrl: vendor.url } });
      expect(app.manifest.name).toBe('vendor-app');
      await app.close();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses what an upload refuses, naming why', async () => {
    const refused = loadApp(new Uint8Array([1, 2, 3, 4]));
    await expect(refused).rejects.toBeInstanceOf(AppRefusedError);
    await expect(refused).rejects.toMatchObject({ code: 'not_wasm' });
  });

  it('throws the runner’s own failure when a call traps', async () => {
    const app = await open();
    try {
      const failure = app.invoke('crash', {});
      await expect(failure).rejects.toBeInstanceOf(RunnerFailure);
      await expect(failure).rejects.toMatchObject({
        code: 'trapped',
        message: 'the module trapped: unreachable',
      });
    } finally {
      await app.close();
    }
  });
});
