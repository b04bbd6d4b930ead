// identity-verification through the real host: built from source, run by the test loader against a
// sessions API double on 127.0.0.1 (approved through the baseUrl hostsFromConfig field).
import { createHmac } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkConformance,
  type LoadedApp,
  type LoadOptions,
  loadApp,
  signedWebhook,
  type TestDocument,
} from '../../../packages/app-testing/src/index.ts';
import { buildApp } from '../../../src/app-cli/compile.ts';
import setup, {
  API_KEY,
  decisionWebhook,
  EXPIRES_AT,
  type IdvDouble,
  startIdvDouble,
  WEBHOOK_SECRET,
} from './conformance.ts';

const APP_DIR = path.resolve(import.meta.dirname, '..');
const CALLBACK_URL = 'https://platform.example/webhooks/app-installs/5b7d0c1e';
/** Bytes that are not UTF-8: they must reach the vendor exactly. */
const PASSPORT = new Uint8Array([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x80, 0xfe,
]);
const DOCUMENTS: Record<string, TestDocument> = {
  'doc-passport': {
    name: 'passport scan.jpg',
    contentType: 'image/jpeg',
    body: PASSPORT,
    subjectId: 'subj-1',
  },
  'doc-selfie': {
    name: 'selfie.png',
    contentType: 'image/png',
    body: 'not really a png',
    subjectId: 'subj-1',
  },
  'doc-other': { name: 'other.pdf', contentType: 'application/pdf', body: '%PDF-1.7', subjectId: 'subj-2' },
};

let tmp: string;
let modulePath: string;
let vendor: IdvDouble;
const opened: LoadedApp[] = [];

async function open(options: LoadOptions = {}): Promise<LoadedApp> {
  const app = await loadApp(modulePath, {
    config: { baseUrl: vendor.url, documentsEnabled: false },
    secrets: { API_KEY, WEBHOOK_SECRET },
    documents: DOCUMENTS,
    ...options,
  });
  opened.push(app);
  return app;
}

let app: LoadedApp;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'identity-verification-'));
  modulePath = (await buildApp(APP_DIR, path.join(tmp, 'identity-verification.wasm'))).path;
  vendor = await startIdvDouble();
  app = await open({ callbackUrl: CALLBACK_URL });
}, 120_000);

afterAll(async () => {
  for (const loaded of opened) await loaded.close();
  await vendor?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const ADA = {
  subjectId: 'subj-1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  country: 'GB',
};

function sessionRequests() {
  return vendor.requests.filter((r) => r.method === 'POST' && r.path === '/v1/sessions');
}

describe('identity-verification manifest', () => {
  it('declares the hosted flow: async action, webhook with the session id in the body, hand-off, documents switch', () => {
    const m = app.manifest;
    expect(m.name).toBe('identity-verification');
    expect(m.version).toBe('1.0.0');
    expect(m.needs).toEqual(['documents']);
    expect(m.documentsFromConfig).toBe('/documentsEnabled');
    expect(m.memoryMiB).toBe(128);
    expect(m.hostsFromConfig).toEqual(['/baseUrl', '/hostedPageUrl']);
    expect(m.handles).toEqual({ webhook: true, webhookExternalId: { json: '/sessionId' }, handoff: true });
    expect(m.secrets.map((s) => s.name)).toEqual(['API_KEY', 'WEBHOOK_SECRET']);
    const action = m.actions.find((a) => a.name === 'start_verification');
    expect(action?.async).toEqual({ callbackTimeoutSeconds: 604800 });
    expect(action?.idempotent).toBe(false);
  });
});

describe('start_verification', () => {
  it('opens a session with the key filled by the host and answers pending with the session id', async () => {
    vendor.reset();
    const { answer, usage } = await app.invoke('start_verification', ADA, {
      idempotencyKey: 'run-1:step-idv',
    });
    expect(answer).toEqual({
      status: 'pending',
      externalId: expect.stringMatching(/^sess_\d+$/),
      callbackTimeoutSeconds: 86400,
    });
    const [request] = sessionRequests();
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers['idempotency-key']).toBe('run-1:step-idv');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      reference: 'subj-1',
      applicant: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', country: 'GB' },
      callbackUrl: CALLBACK_URL,
    });
    expect(usage.httpRequests).toBe(1);
    expect(usage.documentReads).toBe(0);
  });

  it('reads no document while documents are switched off, whatever documentIds names', async () => {
    for (const config of [{ baseUrl: vendor.url, documentsEnabled: false }, { baseUrl: vendor.url }]) {
      const off = await open({ config });
      vendor.reset();
      const { answer, usage } = await off.invoke(
        'start_verification',
        { ...ADA, documentIds: ['doc-passport'] },
        { subjectId: 'subj-1' },
      );
      expect(answer.status).toBe('pending');
      expect(usage.documentReads).toBe(0);
      expect(JSON.parse(sessionRequests()[0]?.body ?? '')).not.toHaveProperty('documents');
    }
  });

  it('sends the documents read through document_read as base64 when documents are enabled', async () => {
    const on = await open({
      config: { baseUrl: vendor.url, documentsEnabled: true, callbackTimeoutSeconds: 3600 },
    });
    vendor.reset();
    const { answer, usage } = await on.invoke(
      'start_verification',
      { ...ADA, documentIds: ['doc-passport', 'doc-selfie'] },
      { subjectId: 'subj-1' },
    );
    expect(answer).toMatchObject({ status: 'pending', callbackTimeoutSeconds: 3600 });
    expect(usage.documentReads).toBe(2);
    const body = JSON.parse(sessionRequests()[0]?.body ?? '') as {
      documents: { id: string; name: string; contentType: string; contentBase64: string }[];
    };
    expect(body.documents.map(({ contentBase64: _, ...rest }) => rest)).toEqual([
      { id: 'doc-passport', name: 'passport scan.jpg', contentType: 'image/jpeg' },
      { id: 'doc-selfie', name: 'selfie.png', contentType: 'image/png' },
    ]);
    expect(new Uint8Array(Buffer.from(body.documents[0]?.contentBase64 ?? '', 'base64'))).toEqual(PASSPORT);
    expect(Buffer.from(body.documents[1]?.contentBase64 ?? '', 'base64').toString('utf8')).toBe(
      'not really a png',
    );
  });

  it("answers a final error for a missing document or another subject's, and opens no session", async () => {
    const on = await open({ config: { baseUrl: vendor.url, documentsEnabled: true } });
    for (const id of ['doc-missing', 'doc-other']) {
      vendor.reset();
      const { answer } = await on.invoke(
        'start_verification',
        { ...ADA, documentIds: [id] },
        { subjectId: 'subj-1' },
      );
      expect(answer).toEqual({ status: 'error', message: `document ${id} does not exist for this subject` });
      expect(sessionRequests()).toHaveLength(0);
    }
  });

  it('classifies vendor failures: 429 and 5xx retryable, 401 naming authentication, other 4xx final', async () => {
    vendor.failNext({ status: 429, headers: { 'retry-after': '30' }, json: { message: 'slow down' } });
    expect((await app.invoke('start_verification', ADA)).answer).toEqual({
      status: 'error',
      message: 'the verification API answered 429: slow down',
      retryable: true,
      retryAfterMs: 30000,
    });
    vendor.failNext({ status: 502, body: 'bad gateway' });
    expect((await app.invoke('start_verification', ADA)).answer).toEqual({
      status: 'error',
      message: 'the verification API answered 502: bad gateway',
      retryable: true,
    });
    vendor.failNext({ status: 401, json: { error: { message: `key ${API_KEY} is revoked` } } });
    const auth = (await app.invoke('start_verification', ADA)).answer;
    expect(auth).toEqual({
      status: 'error',
      message:
        'authentication failed: the verification API answered 401 (check the API_KEY secret): key [secret:API_KEY] is revoked',
    });
    vendor.failNext({ status: 422, json: { message: 'lastName is too long' } });
    expect((await app.invoke('start_verification', ADA)).answer).toEqual({
      status: 'error',
      message: 'the verification API answered 422: lastName is too long',
    });
    vendor.failNext({ status: 201, json: { url: 'https://x.example' } });
    expect((await app.invoke('start_verification', ADA)).answer).toEqual({
      status: 'error',
      message: 'the verification API answered 201 without a session id of 1 to 200 characters',
    });
  });

  it('answers an unreachable vendor as retryable (nothing was sent)', async () => {
    const gone = await startIdvDouble();
    const url = gone.url;
    await gone.close();
    const offline = await open({ config: { baseUrl: url } });
    const { answer } = await offline.invoke('start_verification', ADA);
    expect(answer).toMatchObject({ status: 'error', retryable: true });
    expect((answer as { message: string }).message).toMatch(/^the verification API could not be reached/);
  });
});

async function startSession(): Promise<string> {
  const { answer } = await app.invoke('start_verification', ADA);
  if (answer.status !== 'pending') throw new Error(`expected pending, got ${JSON.stringify(answer)}`);
  return answer.externalId;
}

/** The default event id (HMAC-SHA256 of external id, NUL, body), computed independently of the module. */
function defaultEventId(externalId: string, body: string): string {
  return createHmac('sha256', 'service-webhook-event-id')
    .update(Buffer.concat([Buffer.from(externalId, 'utf8'), Buffer.from([0]), Buffer.from(body, 'utf8')]))
    .digest('hex');
}

describe('handle_webhook', () => {
  it('completes an approved session with the decision, taking the vendor event id', async () => {
    const sessionId = await startSession();
    const { answer, usage } = await app.handleWebhook(
      decisionWebhook({
        sessionId,
        eventId: 'evt_123',
        status: 'approved',
        decision: 'approved',
        reasons: ['document_ok', { code: 'face_match', description: 'face matches the document' }],
      }),
    );
    expect(answer).toEqual({
      status: 'event',
      event: {
        externalId: sessionId,
        eventId: 'evt_123',
        status: 'completed',
        output: { decision: 'approved', reasons: ['document_ok', 'face matches the document'], sessionId },
      },
    });
    expect(usage.httpRequests).toBe(0);
  });

  it('gives a vendor event without an event id the default event id', async () => {
    const sessionId = await startSession();
    const request = decisionWebhook({ sessionId, status: 'declined', reasons: ['document_expired'] });
    const { answer } = await app.handleWebhook(request);
    expect(answer).toEqual({
      status: 'event',
      event: {
        externalId: sessionId,
        eventId: defaultEventId(sessionId, request.body as string),
        status: 'completed',
        output: { decision: 'declined', reasons: ['document_expired'], sessionId },
      },
    });
  });

  it('keeps the session pending on review and pending events, and fails it on a vendor error', async () => {
    const sessionId = await startSession();
    for (const status of ['review', 'pending']) {
      const { answer } = await app.handleWebhook(
        decisionWebhook({ sessionId, eventId: `evt_${status}`, status }),
      );
      expect(answer).toEqual({
        status: 'event',
        event: { externalId: sessionId, eventId: `evt_${status}`, status: 'pending' },
      });
    }
    const { answer } = await app.handleWebhook(
      decisionWebhook({ sessionId, eventId: 'evt_err', status: 'error', error: 'camera unavailable' }),
    );
    expect(answer).toEqual({
      status: 'event',
      event: {
        externalId: sessionId,
        eventId: 'evt_err',
        status: 'failed',
        error: 'the vendor reported error: camera unavailable',
      },
    });
  });

  it('ignores event types it does not act on', async () => {
    const { answer } = await app.handleWebhook(
      decisionWebhook({ sessionId: 'sess_1', eventId: 'e', status: 'started' }),
    );
    expect(answer).toEqual({ status: 'ignored' });
  });

  it('rejects a webhook with a bad, foreign or missing signature', async () => {
    const body = { sessionId: 'sess_1', eventId: 'evt_forged', status: 'approved', decision: 'approved' };
    const foreign = await app.handleWebhook(decisionWebhook(body, 'not-the-secret'));
    expect(foreign.answer).toMatchObject({ status: 'rejected' });

    const signed = decisionWebhook(body);
    const tampered = await app.handleWebhook({
      ...signed,
      body: JSON.stringify({ ...body, decision: 'declined' }),
    });
    expect(tampered.answer).toMatchObject({ status: 'rejected' });

    const unsigned = await app.handleWebhook({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(unsigned.answer).toEqual({
      status: 'rejected',
      message: 'bad signature: no x-idv-signature header',
    });

    // Signed under the default x-signature header rather than the vendor's.
    const wrongHeader = await app.handleWebhook(signedWebhook({ secret: WEBHOOK_SECRET, body }));
    expect(wrongHeader.answer).toMatchObject({ status: 'rejected' });
  });

  it('answers an error for a signed body that is not JSON', async () => {
    const { answer } = await app.handleWebhook(
      signedWebhook({ secret: WEBHOOK_SECRET, header: 'x-idv-signature', body: 'status=approved' }),
    );
    expect(answer).toEqual({ status: 'error', message: 'the signed webhook body is not a JSON object' });
  });
});

describe('handoff', () => {
  it("answers the session's hosted page, fetched fresh, with the return URL passed to the vendor", async () => {
    const sessionId = await startSession();
    vendor.reset();
    const { answer } = await app.handoff(sessionId, 'https://collect.example/flow/abc?step=2');
    expect(answer).toEqual({
      status: 'ok',
      handoff: {
        url: `${vendor.url}/hosted/${sessionId}?redirect=${encodeURIComponent('https://collect.example/flow/abc?step=2')}`,
        expiresAt: EXPIRES_AT,
      },
    });
    const [request] = vendor.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe(`/v1/sessions/${sessionId}`);
    expect(request?.query).toEqual({ redirectUrl: 'https://collect.example/flow/abc?step=2' });
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('answers no page for a settled session and an error for an unknown one', async () => {
    const sessionId = await startSession();
    const session = vendor.sessions.get(sessionId);
    if (session) session.status = 'approved';
    expect((await app.handoff(sessionId)).answer).toEqual({ status: 'ok', handoff: null });
    expect((await app.handoff('sess_unknown')).answer).toEqual({
      status: 'error',
      message: 'the verification API has no session sess_unknown',
    });
  });
});

describe('conformance', () => {
  it('passes with the samples of test/conformance.ts (pending, hand-off, webhook completion)', async () => {
    const options = await setup();
    try {
      const report = await checkConformance(modulePath, options);
      expect(report.checks.filter((c) => !c.passed)).toEqual([]);
      expect(report.passed).toBe(true);
      expect(report.checks.filter((c) => c.name.includes('completes through handle_webhook'))).toHaveLength(
        2,
      );
    } finally {
      await options.close?.();
    }
  });
});
