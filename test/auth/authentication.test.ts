// Bearer authentication and route permissions on the real api (docs/auth.md).
import { randomUUID } from 'node:crypto';
import { generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  LOCAL_KEY_ID,
  readOrCreateLocalSecrets,
} from '../../src/auth/local-keys.ts';
import { expectError, linesOf } from '../http/expect.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { signToken } from './sign.ts';

let platform: TestPlatform;
let localKey: JWK;
let acme: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  // The same DATA_DIR secrets the api verifies with, to sign tokens the harness's minter would not.
  localKey = (await readOrCreateLocalSecrets(platform.config.dataDir)).signingKey.privateJwk;
  acme = await platform.tenantId('acme');
});
afterAll(async () => platform?.close());

const claims = (extra: JWTPayload = {}): JWTPayload => ({
  tenant: acme,
  sub: 'user:ada',
  name: 'ada',
  kind: 'human',
  roles: ['admin'],
  ...extra,
});
const localToken = (payload: JWTPayload, expiresAt?: number | null, issuedAt?: number) =>
  signToken(localKey, payload, {
    kid: LOCAL_KEY_ID,
    issuer: LOCAL_ISSUER,
    audience: LOCAL_AUDIENCE,
    expiresAt,
    issuedAt,
  });
const nowSeconds = () => Math.floor(Date.now() / 1000);

const withHeader = (authorization: string) =>
  platform.fetch('/tenants/me', { token: null, headers: { authorization } });

describe('a request without a usable token is 401 unauthorized', () => {
  it('no Authorization header', async () => {
    const error = await expectError(
      await platform.fetch('/tenants/me', { token: null }),
      401,
      'unauthorized',
    );
    expect(error.message).toMatch(/bearer token/);
  });

  it('malformed Authorization headers', async () => {
    const token = await platform.token();
    for (const header of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      `Token ${token}`,
      `Bearer ${token} extra`,
      token,
    ]) {
      await expectError(await withHeader(header), 401, 'unauthorized');
    }
  });

  it('a header that is well formed but not a JWT', async () => {
    const error = await expectError(await withHeader('Bearer not.a.jwt'), 401, 'unauthorized');
    expect(error.message).toBe('bearer token is invalid or expired');
  });

  it('the scheme is case-insensitive for a good token', async () => {
    const response = await withHeader(`bearer ${await platform.token()}`);
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(acme);
  });

  it('a token signed by another key, even under the trusted kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await signToken(privateKey, claims(), {
      kid: LOCAL_KEY_ID,
      issuer: LOCAL_ISSUER,
      audience: LOCAL_AUDIENCE,
    });
    const error = await expectError(await withHeader(`Bearer ${token}`), 401, 'unauthorized');
    expect(error.message).toBe('bearer token is invalid or expired');
  });

  it('a token whose payload was changed after signing', async () => {
    const [head, payload, signature] = (await platform.token({ roles: ['analyst'] })).split('.');
    const signed = JSON.parse(Buffer.from(String(payload), 'base64url').toString('utf8'));
    expect(signed.roles).toEqual(['analyst']);
    const forged = Buffer.from(JSON.stringify({ ...signed, roles: ['admin'] })).toString('base64url');
    const response = await withHeader(`Bearer ${head}.${forged}.${signature}`);
    await expectError(response, 401, 'unauthorized');
  });

  it('an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 120;
    const error = await expectError(
      await withHeader(`Bearer ${await localToken(claims(), past)}`),
      401,
      'unauthorized',
    );
    expect(error.message).toBe('bearer token is invalid or expired');
  });

  it('the same token in date is accepted (so the expiry is what refused it)', async () => {
    const response = await withHeader(`Bearer ${await localToken(claims())}`);
    expect(response.status).toBe(200);
    expect((await response.json()).name).toBe('acme');
  });

  it('a token without exp (it would never expire)', async () => {
    const error = await expectError(
      await withHeader(`Bearer ${await localToken(claims(), null)}`),
      401,
      'unauthorized',
    );
    expect(error.message).toBe('bearer token is invalid or expired');
  });

  it('a token issued in the future beyond the 60 s clock tolerance (here a year)', async () => {
    const year = 365 * 24 * 3600;
    for (const issuedAt of [nowSeconds() + year, nowSeconds() + 600]) {
      const token = await localToken(claims(), issuedAt + 3600, issuedAt);
      const error = await expectError(await withHeader(`Bearer ${token}`), 401, 'unauthorized');
      expect(error.message).toBe('bearer token is invalid or expired');
    }
  });

  it('a token issued a few seconds ahead of this clock is accepted (within the tolerance)', async () => {
    const issuedAt = nowSeconds() + 20;
    const response = await withHeader(`Bearer ${await localToken(claims(), issuedAt + 3600, issuedAt)}`);
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(acme);
  });

  it('a token with the wrong issuer or audience', async () => {
    const { kid, issuer, audience } = { kid: LOCAL_KEY_ID, issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE };
    const wrongIssuer = await signToken(localKey, claims(), { kid, issuer: 'someone-else', audience });
    const wrongAudience = await signToken(localKey, claims(), { kid, issuer, audience: 'another-api' });
    await expectError(await withHeader(`Bearer ${wrongIssuer}`), 401, 'unauthorized');
    await expectError(await withHeader(`Bearer ${wrongAudience}`), 401, 'unauthorized');
  });

  it('a token for a tenant this deployment does not have', async () => {
    const token = await localToken(claims({ tenant: randomUUID() }));
    const error = await expectError(await withHeader(`Bearer ${token}`), 401, 'unauthorized');
    expect(error.message).toBe('bearer token names an unknown tenant');
  });

  it('unusable claims, saying which', async () => {
    const cases: [JWTPayload, RegExp][] = [
      [{ kind: 'robot' }, /kind/],
      [{ kind: 7 }, /kind/],
      [{ tenant: 'acme' }, /tenant/],
      [{ tenant: undefined }, /tenant/],
      [{ sub: undefined }, /sub/],
      [{ sub: '' }, /sub/],
      [{ roles: 'admin' }, /roles/],
      [{ permissions: ['tenants:settings', 3] }, /permissions/],
    ];
    for (const [extra, problem] of cases) {
      const payload = claims(extra);
      for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
      const response = await withHeader(`Bearer ${await localToken(payload)}`);
      const error = await expectError(response, 401, 'unauthorized');
      expect(error.message, JSON.stringify(extra)).toMatch(/^bearer token is not usable: /);
      expect(error.message, JSON.stringify(extra)).toMatch(problem);
    }
  });

  it('logs the 401 once, without tenant or principal and without the token', async () => {
    const token = await localToken(claims({ tenant: randomUUID() }));
    const response = await platform.fetch('/tenants/me', {
      token,
      headers: { 'x-request-id': 'refused-401' },
    });
    await expectError(response, 401, 'unauthorized');
    const lines = await linesOf(platform.logs, 'refused-401');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ statusCode: 401, code: 'unauthorized' });
    expect(lines[0]).not.toHaveProperty('tenantId');
    expect(lines[0]).not.toHaveProperty('principalKind');
    expect(JSON.stringify(platform.logs)).not.toContain(token);
  });
});

describe('public routes need no token', () => {
  it('health, readiness and the API description', async () => {
    for (const path of ['/health', '/health/ready', '/openapi.json']) {
      const response = await platform.fetch(path, { token: null });
      expect(response.status, path).toBe(200);
      await response.text();
    }
  });

  it('and a bad token on them is ignored', async () => {
    const response = await platform.fetch('/health', { token: 'garbage' });
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });
});

describe('permissions', () => {
  it('an analyst reads its tenant (no permission needed)', async () => {
    const response = await platform.fetch('/tenants/me', {
      token: await platform.token({ roles: ['analyst'] }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(acme);
  });

  it('an analyst on GET /tenants/me/settings is 403 forbidden naming the permission', async () => {
    const token = await platform.token({ roles: ['analyst'] });
    const error = await expectError(
      await platform.fetch('/tenants/me/settings', { token }),
      403,
      'forbidden',
    );
    expect(error.details).toEqual({ permission: 'tenants:settings' });
    expect(error.message).toContain('tenants:settings');
  });

  it('an analyst may not save settings, and nothing changes', async () => {
    const before = await (await platform.fetch('/tenants/me/settings')).json();
    const token = await platform.token({ roles: ['analyst'] });
    const changed = { ...before, approvals: { ...before.approvals, required: !before.approvals.required } };
    const response = await platform.fetch('/tenants/me/settings', { token, method: 'PUT', json: changed });
    await expectError(response, 403, 'forbidden');
    expect(await (await platform.fetch('/tenants/me/settings')).json()).toEqual(before);
  });

  it('an analyst granted tenants:settings by name is let in', async () => {
    const token = await platform.token({ roles: ['analyst'], permissions: ['tenants:settings'] });
    const response = await platform.fetch('/tenants/me/settings', { token });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      approvals: expect.any(Object),
      collection: expect.any(Object),
    });
  });

  it('a grant of an unknown permission name grants nothing', async () => {
    const token = await platform.token({
      roles: ['analyst'],
      permissions: ['tenants:*', 'TENANTS:SETTINGS'],
    });
    await expectError(await platform.fetch('/tenants/me/settings', { token }), 403, 'forbidden');
  });

  it('an unknown role grants nothing and is not an error', async () => {
    const token = await platform.token({ roles: ['superuser', 'constructor', 'toString'] });
    await expectError(await platform.fetch('/tenants/me/settings', { token }), 403, 'forbidden');
    const me = await platform.fetch('/tenants/me', { token });
    expect(me.status).toBe(200);
    await me.text();
  });

  it('an admin reads the settings and the audit trail', async () => {
    const token = await platform.token({ roles: ['admin'] });
    const settings = await platform.fetch('/tenants/me/settings', { token });
    expect(settings.status).toBe(200);
    expect(await settings.json()).toHaveProperty('approvals');
    const audit = await platform.fetch('/audit-events', { token });
    expect(audit.status).toBe(200);
    expect(await audit.json()).toMatchObject({ items: expect.any(Array), total: expect.any(Number) });
  });

  it('an analyst may not read the audit trail', async () => {
    const token = await platform.token({ roles: ['analyst'] });
    const error = await expectError(await platform.fetch('/audit-events', { token }), 403, 'forbidden');
    expect(error.details).toEqual({ permission: 'audit:read' });
  });

  it('logs the 403 with the tenant and principal kind', async () => {
    const token = await platform.token({ roles: ['analyst'], kind: 'machine' });
    const response = await platform.fetch('/tenants/me/settings', {
      token,
      headers: { 'x-request-id': 'refused-403' },
    });
    await expectError(response, 403, 'forbidden');
    const lines = await linesOf(platform.logs, 'refused-403');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      statusCode: 403,
      code: 'forbidden',
      tenantId: acme,
      principalKind: 'machine',
    });
  });
});
