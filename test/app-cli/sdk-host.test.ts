// The SDK's host function wrappers, through the real host functions: http_request (loopback vendor),
// hmac and hmac_verify, log, cache, document_read (a stand-in for the api's internal listener) and ai
// (a model double), with secrets filled from placeholders and redacted from answers.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSdkApp, type SdkApp, startServer } from './sdk-harness.ts';

const API_KEY = 'sk-live-0123456789';
const MODEL_KEY = 'model-key-abcdef';
let app: SdkApp;
let vendor: Awaited<ReturnType<typeof startServer>>;
let api: Awaited<ReturnType<typeof startServer>>;
let base: string;
let hosts: string[];

beforeAll(async () => {
  vendor = await startServer((request) => {
    if (request.url.startsWith('/echo')) {
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) };
    }
    if (request.url === '/binary') return { body: Buffer.from([0xff, 0xfe, 0x00, 0x41]) };
    if (request.url === '/v1/chat/completions') {
      const asked = JSON.parse(request.body) as { messages: { content: string }[] };
      const content = JSON.stringify({ risk: 'low', prompt: asked.messages.at(-1)?.content });
      return {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          choices: [{ message: { content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 5 },
        }),
      };
    }
    return { status: 503, body: 'down' };
  });
  api = await startServer((request) => {
    const match = /^\/internal\/app-calls\/[^/]+\/documents\/(.+)$/.exec(request.url);
    if (request.headers.authorization !== 'Bearer doc-token') return { status: 401, body: '' };
    if (match?.[1] !== 'doc-1') return { status: 404, body: '' };
    return {
      headers: { 'content-type': 'text/plain', 'x-document-name': 'passport.txt' },
      body: 'document body ✓',
    };
  });
  base = `http://vendor.test:${vendor.port}`;
  hosts = [`vendor.test:${vendor.port}`];
  app = await loadSdkApp(`http://127.0.0.1:${api.port}`);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await vendor?.close();
  await api?.close();
});

const secrets = { API_KEY, WEBHOOK_SECRET: 'whsec-0123456789', MODEL_KEY };

async function output(action: string, input: unknown, options: Parameters<SdkApp['invoke']>[2] = {}) {
  const outcome = await app.invoke(action, input, { secrets, hosts, ...options });
  const answer = outcome.answer as { status: string; output: Record<string, unknown> };
  expect(answer.status).toBe('ok');
  return { output: answer.output, outcome };
}

describe('http_request', () => {
  it('sends a JSON body with headers and a bearer secret; the secret never comes back', async () => {
    const { output: out, outcome } = await output('http', {
      method: 'POST',
      url: `${base}/echo?q=1`,
      headers: { 'x-trace': 'abc' },
      json: { hello: 'wörld' },
      bearerSecret: true,
    });
    const received = vendor.seen.at(-1);
    expect(received).toMatchObject({ method: 'POST', url: '/echo?q=1', body: '{"hello":"wörld"}' });
    expect(received?.headers).toMatchObject({
      'x-trace': 'abc',
      'content-type': 'application/json',
      authorization: `Bearer ${API_KEY}`,
    });
    expect(out).toMatchObject({ status: 200, ok: true, failed: false, contentType: 'application/json' });
    expect((out.json as { body: string }).body).toBe('{"hello":"wörld"}');
    expect(JSON.stringify(out)).not.toContain(API_KEY);
    expect(JSON.stringify(out)).toContain('[auth:bearer]');
    expect(outcome.usage.httpRequests).toBe(1);
  });

  it('sends basic auth and reads a body that is not UTF-8 as bytes', async () => {
    await output('http', { url: `${base}/echo`, basicUser: 'user' });
    const expected = Buffer.from(`user:${API_KEY}`).toString('base64');
    expect(vendor.seen.at(-1)?.headers.authorization).toBe(`Basic ${expected}`);
    const { output: binary } = await output('http', { url: `${base}/binary` });
    expect(binary).toMatchObject({ status: 200, body: '', bytes: 4 });
  });

  it('reports vendor errors, refusals and failures to send', async () => {
    expect((await output('http', { url: `${base}/missing` })).output).toMatchObject({
      status: 503,
      ok: false,
      body: 'down',
      failed: false,
    });
    const refused = await output('http', { url: `http://elsewhere.test:${vendor.port}/echo` });
    expect(refused.output).toMatchObject({ status: 0, failed: true, refused: true, notSent: false });
    const notSent = await output('http', { url: 'http://nowhere.test/echo' }, { hosts: ['nowhere.test'] });
    expect(notSent.output).toMatchObject({
      failed: true,
      refused: false,
      notSent: true,
      network: 'not_sent',
    });
  });
});

describe('hmac and hmac_verify', () => {
  it('signs with a plain key as node does, and verifies', async () => {
    const { output: out } = await output('hmac', { key: 'k3y', message: 'payload ✓', encoding: 'base64' });
    const expected = createHmac('sha256', 'k3y').update('payload ✓').digest('base64');
    expect(out).toEqual({ signature: expected, error: null, valid: true, verifyError: null });
    const wrong = await output('hmac', { key: 'k3y', message: 'payload', signature: expected });
    expect(wrong.output.valid).toBe(false);
  });

  it('signs with a secret placeholder; the signature is redacted from the answer', async () => {
    const { output: out } = await output('hmac', {
      secret: 'WEBHOOK_SECRET',
      message: 'm',
      algorithm: 'sha512',
    });
    expect(out).toMatchObject({ signature: '[auth:hmac]', valid: true });
    const missing = await output('hmac', { secret: 'NOT_STORED', message: 'm' });
    expect(missing.output.error).toMatch(/secret NOT_STORED is not available/);
    expect(missing.output.valid).toBe(false);
  });
});

describe('log', () => {
  it('keeps lines with their level, redacted, and refuses a bad level', async () => {
    const { output: out, outcome } = await output('log', {
      lines: [
        { message: 'plain' },
        { level: 'warn', message: `key is ${API_KEY}` },
        { level: 'loud', message: 'x' },
      ],
    });
    expect(out.accepted).toEqual([true, true, false]);
    expect(outcome.logs).toEqual([
      { level: 'info', message: 'plain' },
      { level: 'warn', message: 'key is [secret:API_KEY]' },
    ]);
  });
});

describe('cache', () => {
  it('gets, sets and deletes; cached values are redacted from the answer', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const { output: out, outcome } = await output(
      'cache',
      {
        ops: [
          { op: 'get', name: 'token' },
          { op: 'get', name: 'absent' },
          { op: 'set', name: 'fresh', value: 'new-value-123', ttlSeconds: 60 },
          { op: 'set', name: 'short', value: 'tiny' },
          { op: 'delete', name: 'token' },
          { op: 'get', name: 'token' },
        ],
      },
      { cache: [{ name: 'token', value: 'cached-token-1', expiresAt }] },
    );
    expect(out.results).toEqual([
      { value: '[cache:token]', error: null },
      { value: null, error: null },
      { value: null, error: null },
      { value: null, error: 'cache: value must be 8 characters to 8 KiB' },
      { value: null, error: null },
      { value: null, error: null },
    ]);
    expect(outcome.cacheChanges).toEqual([
      { op: 'set', name: 'fresh', value: 'new-value-123', ttlSeconds: 60 },
      { op: 'delete', name: 'token', readValue: 'cached-token-1' },
    ]);
  });
});

describe('document_read', () => {
  it('reads a document with the call token, and says when there is none', async () => {
    const documents = { token: 'doc-token' };
    const { output: out, outcome } = await output('document', { id: 'doc-1' }, { documents });
    expect(out).toEqual({
      id: 'doc-1',
      name: 'passport.txt',
      contentType: 'text/plain',
      text: 'document body ✓',
      notFound: false,
      error: null,
    });
    expect(outcome.usage.documentReads).toBe(1);
    const missing = await output('document', { id: 'doc-2' }, { documents });
    expect(missing.output).toMatchObject({ notFound: true, error: 'document doc-2 does not exist' });
    const refused = await output('document', { id: 'doc-1' });
    expect(refused.output.error).toBe('document_read: this call may not read documents');
  });
});

describe('ai', () => {
  it('asks the model with the credential filled from its secret and reads the answer', async () => {
    const { output: out, outcome } = await output('ai', {
      url: `${base}/v1/chat/completions`,
      prompt: 'summarise',
    });
    const sent = vendor.seen.at(-1);
    expect(sent?.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({
      model: 'test-model',
      max_tokens: 100,
      temperature: 0,
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: 'summarise' },
      ],
    });
    expect(out).toEqual({
      content: '{"risk":"low","prompt":"summarise"}',
      stopReason: 'stop',
      inputTokens: 12,
      outputTokens: 5,
      json: { risk: 'low', prompt: 'summarise' },
    });
    expect(outcome.usage.ai).toEqual({ requests: 1, inputTokens: 12, outputTokens: 5 });
  });

  it('answers a retryable error when the model vendor fails', async () => {
    const outcome = await app.invoke('ai', { url: `${base}/down`, prompt: 'x' }, { secrets, hosts });
    expect(outcome.answer).toEqual({
      status: 'error',
      message: 'ai: the model vendor answered 503',
      retryable: true,
    });
  });
});
