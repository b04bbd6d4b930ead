// A known path asked with a method it does not have answers 405 method_not_allowed with Allow; HEAD
// answers wherever GET does; OPTIONS names the methods of a known path. Unknown paths stay 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf } from './expect.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

describe('an unknown method on a known path', () => {
  it.each([
    ['PATCH', '/app-installs', 'GET, HEAD, POST'],
    ['DELETE', '/apps', 'GET, HEAD'],
    ['PATCH', '/app-installs/some-install', 'DELETE, GET, HEAD, PUT'],
    ['POST', '/tenants/me/settings', 'GET, HEAD, PUT'],
  ])('%s %s: 405 method_not_allowed, Allow: %s', async (method, path, allow) => {
    const response = await platform.fetch(path, { method });
    expect(response.headers.get('allow')).toBe(allow);
    const error = await expectError(response, 405, 'method_not_allowed');
    expect(error.message).toBe(`${method} is not allowed on ${path}: use ${allow}`);
  });

  it('answers the same without a token, and logs the code', async () => {
    const response = await platform.fetch('/apps', {
      method: 'PUT',
      token: null,
      headers: { 'x-request-id': 'put-apps' },
      json: {},
    });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    await expectError(response, 405, 'method_not_allowed');
    const [line] = await linesOf(platform.logs, 'put-apps');
    expect(line).toMatchObject({ statusCode: 405, code: 'method_not_allowed', level: 'info' });
  });

  it('an unknown path is still 404 not_found, with no Allow', async () => {
    const response = await platform.fetch('/nowhere', { method: 'PATCH' });
    expect(response.headers.get('allow')).toBeNull();
    await expectError(response, 404, 'not_found');
  });
});

describe('HEAD and OPTIONS', () => {
  it('HEAD answers as GET does, without a body', async () => {
    const response = await platform.fetch('/tenants/me/settings', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const refused = await platform.fetch('/tenants/me/settings', { method: 'HEAD', token: null });
    expect(refused.status).toBe(401);
  });

  it('OPTIONS on a known path: 204 with Allow, no token needed', async () => {
    const response = await platform.fetch('/app-installs/some-install', { method: 'OPTIONS', token: null });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(await response.text()).toBe('');
  });

  it('OPTIONS on an unknown path: 404 not_found', async () => {
    await expectError(await platform.fetch('/nowhere', { method: 'OPTIONS' }), 404, 'not_found');
  });
});
