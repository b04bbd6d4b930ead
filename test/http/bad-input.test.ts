// Refused input on PUT /tenants/me/settings and GET /audit-events: the right code and issue paths,
// nothing changed, no audit record, and exactly one log line for the request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf } from './expect.ts';

let platform: TestPlatform;
const SAVED = {
  approvals: { required: true, requiredFor: ['apps'], fourEyes: false },
  collection: { flowUrl: 'https://flow.example.com' },
};

beforeAll(async () => {
  platform = await startTestPlatform();
  // A known state that is not the default, so "unchanged" cannot pass by accident.
  const response = await platform.fetch('/tenants/me/settings', { method: 'PUT', json: SAVED });
  expect(await response.json()).toEqual(SAVED);
});
afterAll(async () => platform?.close());

const auditCount = async () => {
  const { rows } = await platform.database.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM audit_events',
  );
  return rows[0]?.n ?? -1;
};

let auditBefore: number;
beforeEach(async () => {
  auditBefore = await auditCount();
});

/** Sends a refused request with its own request id and checks that it left nothing behind. */
async function refused(
  requestId: string,
  path: string,
  init: RequestInit & { json?: unknown },
  status: number,
  code: string,
) {
  const headers = new Headers(init.headers);
  headers.set('x-request-id', requestId);
  const error = await expectError(await platform.fetch(path, { ...init, headers }), status, code);
  expect(error.requestId).toBe(requestId);
  const settings = await platform.fetch('/tenants/me/settings');
  expect(await settings.json()).toEqual(SAVED);
  expect(await auditCount()).toBe(auditBefore);
  const lines = await linesOf(platform.logs, requestId);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ statusCode: status, code, level: 'info' });
  return error;
}

const put = (body: RequestInit['body'], contentType = 'application/json'): RequestInit => ({
  method: 'PUT',
  body,
  headers: { 'content-type': contentType },
});

describe('PUT /tenants/me/settings refuses', () => {
  it('malformed JSON: 400 validation_error', async () => {
    const error = await refused(
      'bad-json',
      '/tenants/me/settings',
      put('{"approvals": {"required": true,\n "fourEyes" true}}'),
      400,
      'validation_error',
    );
    // Where it goes wrong, never the body's text (it may hold a secret).
    const message = 'body is not valid JSON at line 2, column 13';
    expect(error).toMatchObject({ message, details: { issues: [{ path: '/', message }] } });
    const unfinished = await refused(
      'cut-json',
      '/tenants/me/settings',
      put('{"approvals": '),
      400,
      'validation_error',
    );
    expect(unfinished.message).toBe('body is not valid JSON at line 1, column 15, where it ends unfinished');
  });

  it('an empty JSON body: 400 validation_error', async () => {
    await refused('empty-json', '/tenants/me/settings', put(''), 400, 'validation_error');
  });

  it('a text/plain body: 415 unsupported_media_type, naming the type to send', async () => {
    const error = await refused(
      'text-plain',
      '/tenants/me/settings',
      put(JSON.stringify(SAVED), 'text/plain'),
      415,
      'unsupported_media_type',
    );
    expect(error.message).toBe('Content-Type text/plain is not accepted here: send application/json');
  });

  it('another content type: 415 unsupported_media_type', async () => {
    await refused(
      'form-body',
      '/tenants/me/settings',
      put('approvals=1', 'application/x-www-form-urlencoded'),
      415,
      'unsupported_media_type',
    );
  });

  it('a body over 1 MiB: 413 payload_too_large', async () => {
    const body = JSON.stringify({ ...SAVED, padding: 'x'.repeat(1024 * 1024) });
    const error = await refused('too-large', '/tenants/me/settings', put(body), 413, 'payload_too_large');
    expect(error.details).toBeUndefined();
  });

  it('unknown fields, each named by its path', async () => {
    const body = { ...SAVED, extra: 1, approvals: { ...SAVED.approvals, x: true } };
    const error = await refused(
      'unknown-fields',
      '/tenants/me/settings',
      put(JSON.stringify(body)),
      400,
      'validation_error',
    );
    const issues = (error.details as { issues: { path: string; message: string }[] }).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/approvals/x', message: 'unknown field' },
        { path: '/extra', message: 'unknown field' },
      ]),
    );
    expect(issues).toHaveLength(2);
  });

  it('a missing field, named by its path', async () => {
    const body = { approvals: { required: true, requiredFor: [] }, collection: SAVED.collection };
    const error = await refused(
      'missing-field',
      '/tenants/me/settings',
      put(JSON.stringify(body)),
      400,
      'validation_error',
    );
    expect(error.details).toEqual({ issues: [{ path: '/approvals/fourEyes', message: 'is required' }] });
  });

  it('a missing section and a wrong type together', async () => {
    const body = { approvals: { ...SAVED.approvals, required: 'yes' } };
    const error = await refused(
      'two-issues',
      '/tenants/me/settings',
      put(JSON.stringify(body)),
      400,
      'validation_error',
    );
    const issues = (error.details as { issues: { path: string; message: string }[] }).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/collection', message: 'is required' },
        { path: '/approvals/required', message: expect.any(String) },
      ]),
    );
  });

  it('text PostgreSQL cannot store: 400 validation_error at each place, never 500', async () => {
    // U+0000 in a value, a lone surrogate in a member name (written with U+FFFD in the path).
    const body =
      '{"approvals":{"required":true,"requiredFor":["app"],"fourEyes":false,"x\\ud800":1},' +
      '"collection":{"flowUrl":"https://flow.example.com/\\u0000"}}';
    const error = await refused('unstorable', '/tenants/me/settings', put(body), 400, 'validation_error');
    const message = 'holds U+0000 or an unpaired surrogate (\\ud800-\\udfff), which cannot be stored';
    expect(error).toMatchObject({
      message: 'request is not valid',
      details: {
        issues: [
          { path: '/approvals/x\ufffd', message },
          { path: '/collection/flowUrl', message },
        ],
      },
    });
  });

  it('a JSON body that is not an object', async () => {
    const error = await refused('array-body', '/tenants/me/settings', put('[1,2]'), 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: '/', message: expect.any(String) }] });
  });
});

describe('GET /audit-events refuses an invalid query parameter', () => {
  it('limit=0 names query.limit', async () => {
    const error = await refused('limit-zero', '/audit-events?limit=0', {}, 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: 'query.limit', message: expect.any(String) }] });
  });

  it('an unknown query parameter names itself', async () => {
    const error = await refused('unknown-query', '/audit-events?colour=red', {}, 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: 'query.colour', message: 'unknown field' }] });
  });

  it('U+0000 in a query parameter names it', async () => {
    const error = await refused(
      'unstorable-query',
      '/audit-events?action=app.%00',
      {},
      400,
      'validation_error',
    );
    expect(error.details).toEqual({
      issues: [{ path: 'query.action', message: expect.stringContaining('U+0000') }],
    });
  });

  it('from not before to names query.to', async () => {
    const query = 'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z';
    const error = await refused('from-after-to', `/audit-events?${query}`, {}, 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: 'query.to', message: expect.any(String) }] });
  });
});

describe('a valid save after the refusals', () => {
  it('still works and writes its one audit record', async () => {
    const next = { ...SAVED, collection: { flowUrl: null } };
    const response = await platform.fetch('/tenants/me/settings', { method: 'PUT', json: next });
    expect(await response.json()).toEqual(next);
    expect(await auditCount()).toBe(auditBefore + 1);
  });
});
