// One error body whose requestId equals x-request-id, and Cache-Control no-store on every answer,
// on the real api.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf } from './expect.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

describe('the error body on every non-2xx', () => {
  it('401 without a token', async () => {
    const error = await expectError(
      await platform.fetch('/tenants/me', { token: null }),
      401,
      'unauthorized',
    );
    expect(error.details).toBeUndefined();
  });

  it('403 without the permission, naming it in details', async () => {
    const token = await platform.token({ roles: ['analyst'] });
    const error = await expectError(
      await platform.fetch('/tenants/me/settings', { token }),
      403,
      'forbidden',
    );
    expect(error.details).toEqual({ permission: 'tenants:settings' });
  });

  it('400 on invalid input, with details.issues', async () => {
    const error = await expectError(await platform.fetch('/audit-events?limit=abc'), 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: 'query.limit', message: expect.any(String) }] });
  });

  it('404 on an unknown route, with or without a token', async () => {
    const withToken = await expectError(await platform.fetch('/no/such/route?x=1'), 404, 'not_found');
    expect(withToken.message).toContain('GET /no/such/route');
    expect(withToken.message).not.toContain('x=1');
    // An unknown route is not_found even for a caller without a token, not unauthorized.
    await expectError(
      await platform.fetch('/no/such/route', { token: null, method: 'DELETE' }),
      404,
      'not_found',
    );
  });

  it('405 method_not_allowed on a known path with a method it does not have', async () => {
    const response = await platform.fetch('/tenants/me', { method: 'DELETE' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    await expectError(response, 405, 'method_not_allowed');
  });

  it('400 bad_request on a URL that cannot be decoded, with our headers and one log line', async () => {
    const response = await platform.fetch('/tenants/%zz', { headers: { 'x-request-id': 'bad-url-1' } });
    const error = await expectError(response, 400, 'bad_request');
    expect(error.requestId).toBe('bad-url-1');
    const lines = await linesOf(platform.logs, 'bad-url-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ statusCode: 400, code: 'bad_request', method: 'GET', level: 'info' });
  });

  it('a requestId that is the caller’s own when acceptable', async () => {
    const response = await platform.fetch('/tenants/me', {
      token: 'not-a-jwt',
      headers: { 'x-request-id': 'abc-123' },
    });
    const error = await expectError(response, 401, 'unauthorized');
    expect(error.requestId).toBe('abc-123');
  });
});

describe('Cache-Control', () => {
  it('is no-store on 2xx answers of routes that do not set their own', async () => {
    for (const path of ['/tenants/me', '/tenants/me/settings', '/audit-events']) {
      const response = await platform.fetch(path);
      await response.text();
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
    const health = await platform.fetch('/health', { token: null });
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(health.headers.get('cache-control')).toBe('no-store');
  });

  it('is the route’s own when it sets one (the docs assets)', async () => {
    const response = await platform.fetch('/docs/static/swagger-ui.css', { token: null });
    await response.text(); // an unread body would keep the connection busy at close
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).not.toBe('no-store');
    expect(response.headers.get('cache-control')).toMatch(/max-age/);
  });
});
