// Where the deployment runs no apps (no runner, or no module storage), the routes that read an install
// answer 503 apps_unavailable, but only once the request passed authentication, its permission and its
// validation; the invocation records and vendor sessions still answer from the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { errorOf } from './support.ts';

const UUID = '0f8e7a52-3c1d-4b7a-9e2f-5a6b7c8d9e0f';
const LIMITS = { currency: null, prices: {}, budgets: [] };

/** Every route that needs apps, with a request it would take: method, path, body. */
const ROUTES: [string, string, unknown?][] = [
  ['GET', '/app-installs'],
  ['GET', '/app-installs/x'],
  ['POST', '/app-installs', { name: 'x', versionId: UUID }],
  ['PUT', '/app-installs/x', { versionId: UUID }],
  ['DELETE', '/app-installs/x'],
  ['POST', '/app-installs/x/secrets/API_KEY', { value: 'v' }],
  ['DELETE', '/app-installs/x/secrets/API_KEY'],
  ['POST', '/app-installs/x/rename', { name: 'y' }],
  ['DELETE', '/app-installs/x/aliases/y'],
  ['GET', '/app-installs/x/usage'],
  ['PUT', '/app-installs/x/circuit', { failureThreshold: null, openSeconds: null }],
  ['POST', '/app-installs/x/circuit/reset'],
  ['GET', '/app-install-changes'],
  ['POST', `/app-installs/x/changes/${UUID}/approve`, {}],
  ['POST', `/app-installs/x/changes/${UUID}/reject`, {}],
  ['POST', `/app-installs/x/changes/${UUID}/withdraw`],
  ['GET', '/app-installs/x/limits'],
  ['PUT', '/app-installs/x/limits', LIMITS],
  ['GET', '/app-installs/x/cache'],
  ['DELETE', '/app-installs/x/cache'],
  ['POST', '/app-installs/x/test', { action: 'screen' }],
  ['GET', '/app-installs/metering'],
  ['GET', '/apps/metering'],
  ['GET', '/apps/health'],
];

describe('apps off', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  }, 120_000);
  afterAll(async () => platform?.close());

  const send = (method: string, path: string, json: unknown, token?: string | null) =>
    platform.fetch(path, { method, json, ...(token === undefined ? {} : { token }) });

  it('answers 503 apps_unavailable on every route that needs apps', async () => {
    for (const [method, path, json] of ROUTES) {
      const error = await errorOf(await send(method, path, json), 503);
      expect(error.code, `${method} ${path}`).toBe('apps_unavailable');
    }
  });

  it('refuses a bad token (401) and a missing permission (403) first', async () => {
    const none = await platform.token({ roles: [], permissions: [] });
    for (const [method, path, json] of ROUTES) {
      expect((await errorOf(await send(method, path, json, 'nope'), 401)).code).toBe('unauthorized');
      expect((await errorOf(await send(method, path, json, none), 403)).code).toBe('forbidden');
    }
  });

  it('refuses a request its schema refuses (400) before apps_unavailable', async () => {
    const invalid: [string, string, unknown?][] = [
      ['GET', '/app-installs?app=Not+A+Name'],
      ['GET', '/app-installs/Not_A_Name'],
      ['POST', '/app-installs', { name: 'x' }],
      ['PUT', '/app-installs/x/limits', { ...LIMITS, currency: 'euro' }],
      ['POST', '/app-installs/x/test', {}],
      ['POST', '/app-installs/x/changes/not-a-uuid/approve', {}],
      ['GET', '/app-installs/metering?from=yesterday'],
      ['GET', '/apps/health?windowMinutes=1'],
    ];
    for (const [method, path, json] of invalid) {
      const error = await errorOf(await send(method, path, json), 400);
      expect(error.code, `${method} ${path}`).toBe('validation_error');
    }
  });

  it('still answers the invocation records and the vendor sessions', async () => {
    expect((await send('GET', '/app-invocations', undefined)).status).toBe(200);
    expect((await send('GET', '/app-callbacks', undefined)).status).toBe(200);
    expect((await errorOf(await send('GET', `/app-invocations/${UUID}`, undefined), 404)).code).toBe(
      'not_found',
    );
  });
});
