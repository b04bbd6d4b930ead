// The refused-token limit (API_AUTH_FAILURE_LIMIT_PER_MINUTE) and the client address it counts against
// (TRUST_PROXY). A flood of bad tokens from an address is answered 429 before any of them is verified,
// while a token this instance has verified keeps answering: an authentication fuzzer, or one caller
// behind the same proxy, cannot lock every tenant out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf } from './expect.ts';

/** A token signed by another key: it never verifies. */
const forged = (good: string) => `${good.slice(0, good.lastIndexOf('.'))}.${'A'.repeat(86)}`;

async function refuseTimes(platform: TestPlatform, times: number, token: string, headers = {}) {
  for (let i = 0; i < times; i += 1) {
    await expectError(await platform.fetch('/tenants/me', { token, headers }), 401, 'unauthorized');
  }
}

describe('with the default limit (60 refused tokens a minute)', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  it('after 61 bad tokens from one address, a token verified before still answers, while a bad one waits', async () => {
    const good = await platform.token({ user: 'gina' });
    const before = await platform.fetch('/tenants/me', { token: good });
    expect((await before.json()).name).toBe('acme');

    await refuseTimes(platform, 60, forged(good));
    const flood = await platform.fetch('/tenants/me', { token: forged(good) });
    const error = await expectError(flood, 429, 'rate_limited');
    expect(error.message).toBe('too many refused tokens from this address: 60 a minute');

    const after = await platform.fetch('/tenants/me', { token: good, headers: { 'x-request-id': 'known' } });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ name: 'acme' });
    const [line] = await linesOf(platform.logs, 'known');
    expect(line).toMatchObject({ statusCode: 200, principalKind: 'human' });
    // Still held back: bad tokens, and a token this instance never verified (it cannot be told from a
    // bad one without spending the verification the limit saves).
    await expectError(await platform.fetch('/tenants/me', { token: forged(good) }), 429, 'rate_limited');
    const fresh = await platform.token({ user: 'hugo' });
    await expectError(await platform.fetch('/audit-events', { token: fresh }), 429, 'rate_limited');
  });

  it('answers a request without a token 401, never counting it: it costs no verification', async () => {
    // A fresh platform's address has no refusals yet; 70 requests without a token stay 401.
    const other = await startTestPlatform();
    try {
      for (let i = 0; i < 70; i += 1) {
        const error = await expectError(
          await other.fetch('/tenants/me', { token: null }),
          401,
          'unauthorized',
        );
        expect(error.message).toBe('a valid bearer token is required');
      }
      const fresh = await other.fetch('/tenants/me', { token: await other.token({ user: 'ivy' }) });
      expect(await fresh.json()).toMatchObject({ name: 'acme' });
    } finally {
      await other.close();
    }
  });
});

describe('with API_AUTH_FAILURE_LIMIT_PER_MINUTE 3', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ API_AUTH_FAILURE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => platform?.close());

  it('answers an address 429 rate_limited with Retry-After after 3 refused tokens, before verifying any', async () => {
    const good = await platform.token({ user: 'gina' });
    // Requests that pass authentication count for nothing here.
    for (let i = 0; i < 4; i += 1) await (await platform.fetch('/tenants/me', { token: good })).text();
    await refuseTimes(platform, 3, `${good}x`);
    const refused = await platform.fetch('/tenants/me', {
      token: `${good}x`,
      headers: { 'x-request-id': 'flood' },
    });
    const retryAfter = refused.headers.get('retry-after');
    const error = await expectError(refused, 429, 'rate_limited');
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(error.details).toEqual({ retryAfterSeconds: Number(retryAfter) });
    expect(error.message).toBe('too many refused tokens from this address: 3 a minute');
    const lines = await linesOf(platform.logs, 'flood');
    expect(lines).toEqual([expect.objectContaining({ statusCode: 429, code: 'rate_limited' })]);
    expect(lines[0]).not.toHaveProperty('tenantId');
    // The good token, verified before the flood, is not held back.
    const known = await platform.fetch('/audit-events', { token: good });
    expect(known.status).toBe(200);
    expect((await known.json()).items).toEqual(expect.any(Array));
  });

  it('never holds back public routes', async () => {
    const health = await platform.fetch('/health', { token: 'not-a-jwt' });
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});

describe('the client address', () => {
  const bad = 'not.a.token';

  it('is the X-Forwarded-For client with TRUST_PROXY naming the proxy', async () => {
    const platform = await startTestPlatform({
      API_AUTH_FAILURE_LIMIT_PER_MINUTE: '3',
      TRUST_PROXY: '127.0.0.1',
    });
    try {
      const flooder = { 'x-forwarded-for': '203.0.113.7' };
      await refuseTimes(platform, 3, bad, flooder);
      await expectError(
        await platform.fetch('/tenants/me', { token: bad, headers: flooder }),
        429,
        'rate_limited',
      );
      // Another client behind the same proxy, with a token never verified before, is not held back.
      const other = await platform.fetch('/tenants/me', {
        token: await platform.token({ user: 'jo' }),
        headers: { 'x-forwarded-for': '203.0.113.8' },
      });
      expect(other.status).toBe(200);
      expect(await other.json()).toMatchObject({ name: 'acme' });
      // A client saying it is another one, through the proxy, is still the one the proxy saw.
      const spoofed = { 'x-forwarded-for': '203.0.113.9, 203.0.113.7' };
      await expectError(
        await platform.fetch('/tenants/me', { token: bad, headers: spoofed }),
        429,
        'rate_limited',
      );
    } finally {
      await platform.close();
    }
  });

  it('is the connection’s peer without TRUST_PROXY: X-Forwarded-For is ignored', async () => {
    const platform = await startTestPlatform({ API_AUTH_FAILURE_LIMIT_PER_MINUTE: '3' });
    try {
      await refuseTimes(platform, 3, bad, { 'x-forwarded-for': '203.0.113.7' });
      const other = await platform.fetch('/tenants/me', {
        token: await platform.token({ user: 'jo' }),
        headers: { 'x-forwarded-for': '203.0.113.8' },
      });
      await expectError(other, 429, 'rate_limited');
    } finally {
      await platform.close();
    }
  });
});
