// Production verification: remoteVerifier against a JWKS double (a real HTTP server on loopback),
// plugged into the real api.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteVerifier } from '../../src/auth/tokens.ts';
import { expectError } from '../http/expect.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { signToken } from './sign.ts';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'apps-platform-api';
const KID = 'idp-key-1';

let jwks: http.Server;
let jwksUrl: string;
let jwksRequests = 0;
let idpKey: CryptoKey;
let platform: TestPlatform;
let tenant: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  idpKey = pair.privateKey;
  const body = JSON.stringify({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' }],
  });
  jwks = http.createServer((request, response) => {
    jwksRequests += 1;
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
  platform = await startTestPlatform(
    {},
    { verifier: remoteVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE }) },
  );
  tenant = await platform.tenantId('acme');
});
afterAll(async () => {
  await platform?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

const claims = (): JWTPayload => ({ tenant, sub: 'user:grace', name: 'Grace', roles: ['admin'] });
const idpToken = (options: { issuer?: string; audience?: string; kid?: string } = {}) =>
  signToken(idpKey, claims(), { kid: KID, issuer: ISSUER, audience: AUDIENCE, ...options });

describe('remoteVerifier on the api', () => {
  it('lets in a token of the identity provider with the right issuer and audience', async () => {
    const response = await platform.fetch('/tenants/me/settings', { token: await idpToken() });
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty('approvals');
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it('refuses a wrong issuer', async () => {
    const token = await idpToken({ issuer: 'https://other-idp.example.test/' });
    await expectError(await platform.fetch('/tenants/me', { token }), 401, 'unauthorized');
  });

  it('refuses a wrong audience', async () => {
    const token = await idpToken({ audience: 'some-other-api' });
    await expectError(await platform.fetch('/tenants/me', { token }), 401, 'unauthorized');
  });

  it('refuses a token without issuer or audience', async () => {
    const noIssuer = await signToken(idpKey, claims(), { kid: KID, audience: AUDIENCE });
    const noAudience = await signToken(idpKey, claims(), { kid: KID, issuer: ISSUER });
    await expectError(await platform.fetch('/tenants/me', { token: noIssuer }), 401, 'unauthorized');
    await expectError(await platform.fetch('/tenants/me', { token: noAudience }), 401, 'unauthorized');
  });

  it('refuses a token signed by a key the key set does not hold', async () => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    const sameKid = await signToken(stranger, claims(), { kid: KID, issuer: ISSUER, audience: AUDIENCE });
    const otherKid = await signToken(stranger, claims(), {
      kid: 'idp-key-2',
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    await expectError(await platform.fetch('/tenants/me', { token: sameKid }), 401, 'unauthorized');
    await expectError(await platform.fetch('/tenants/me', { token: otherKid }), 401, 'unauthorized');
  });

  it('refuses the embedded local key’s tokens', async () => {
    await expectError(
      await platform.fetch('/tenants/me', { token: await platform.token() }),
      401,
      'unauthorized',
    );
  });

  it('refuses an expired token of the identity provider', async () => {
    const token = await signToken(idpKey, claims(), {
      kid: KID,
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresAt: Math.floor(Date.now() / 1000) - 120,
    });
    await expectError(await platform.fetch('/tenants/me', { token }), 401, 'unauthorized');
  });
});

describe('remoteVerifier settings', () => {
  it('needs the JWKS URL, issuer and audience', () => {
    const complete = { jwksUrl: 'http://127.0.0.1:1/jwks.json', issuer: ISSUER, audience: AUDIENCE };
    expect(() => remoteVerifier(complete)).not.toThrow();
    for (const missing of ['jwksUrl', 'issuer', 'audience'] as const) {
      expect(() => remoteVerifier({ ...complete, [missing]: null })).toThrow(/AUTH_JWKS_URL/);
    }
  });

  it('verifies directly, returning the payload', async () => {
    const verifier = remoteVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
    const payload = await verifier.verify(await idpToken());
    expect(payload).toMatchObject({ tenant, sub: 'user:grace', iss: ISSUER, aud: AUDIENCE });
    await expect(verifier.verify(await idpToken({ audience: 'x' }))).rejects.toThrow();
  });
});
