// Rate limits (docs/api-conventions.md): API_RATE_LIMIT_PER_MINUTE per caller per instance, 429 rate_limited
// with Retry-After, health never counted, 0 turns it off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError } from './expect.ts';

const limits = (response: Response) => ({
  limit: response.headers.get('x-ratelimit-limit'),
  remaining: response.headers.get('x-ratelimit-remaining'),
  reset: response.headers.get('x-ratelimit-reset'),
});

describe('with a limit of 3 a minute', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ API_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => platform?.close());

  it('counts down in the headers, then answers 429 rate_limited with Retry-After', async () => {
    const token = await platform.token({ user: 'ada' });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await platform.fetch('/tenants/me', { token });
      expect(response.status).toBe(200);
      expect((await response.json()).name).toBe('acme');
      const headers = limits(response);
      expect(headers.limit).toBe('3');
      expect(Number(headers.reset)).toBeGreaterThan(0);
      expect(Number(headers.reset)).toBeLessThanOrEqual(60);
      remaining.push(headers.remaining);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const fourth = await platform.fetch('/tenants/me', { token });
    const retryAfter = fourth.headers.get('retry-after');
    expect(limits(fourth)).toMatchObject({ limit: '3', remaining: '0' });
    const error = await expectError(fourth, 429, 'rate_limited');
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(error.details).toEqual({ retryAfterSeconds: Number(retryAfter) });

    // Still refused, whatever route the same caller tries.
    await expectError(await platform.fetch('/audit-events', { token }), 429, 'rate_limited');
  });

  it('is per caller: another user of the same tenant, and another tenant, still get through', async () => {
    const bob = await platform.fetch('/tenants/me', { token: await platform.token({ user: 'bob' }) });
    expect(bob.status).toBe(200);
    expect(limits(bob)).toMatchObject({ limit: '3', remaining: '2' });
    expect((await bob.json()).name).toBe('acme');

    const other = await platform.fetch('/tenants/me', {
      token: await platform.token({ tenant: 'globex', user: 'ada' }),
    });
    expect(other.status).toBe(200);
    expect((await other.json()).name).toBe('globex');
  });

  it('never counts or limits GET /health', async () => {
    const token = await platform.token({ user: 'carol' });
    for (let i = 0; i < 5; i += 1) {
      const health = await platform.fetch('/health', { token });
      expect(await health.json()).toMatchObject({ status: 'ok' });
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // Carol's five health checks left her whole budget.
    const first = await platform.fetch('/tenants/me', { token });
    await first.text();
    expect(limits(first).remaining).toBe('2');
    const anonymous = await platform.fetch('/health', { token: null });
    expect(anonymous.status).toBe(200);
    await anonymous.text();
  });

  it('keeps answering health for a caller who is over the limit', async () => {
    const token = await platform.token({ user: 'dave' });
    for (let i = 0; i < 4; i += 1) await (await platform.fetch('/tenants/me', { token })).text();
    await expectError(await platform.fetch('/tenants/me', { token }), 429, 'rate_limited');
    const health = await platform.fetch('/health', { token });
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });

  it('counts refused input too, and says so in its headers', async () => {
    const token = await platform.token({ user: 'erin' });
    const invalid = await platform.fetch('/audit-events?limit=0', { token });
    expect(limits(invalid)).toMatchObject({ limit: '3', remaining: '2' });
    await expectError(invalid, 400, 'validation_error');
    const next = await platform.fetch('/tenants/me', { token });
    expect(limits(next).remaining).toBe('1');
    await next.text();
  });

  it('does not count requests refused before authentication against anyone', async () => {
    const token = await platform.token({ user: 'frank' });
    for (let i = 0; i < 4; i += 1) {
      await expectError(await platform.fetch('/tenants/me', { token: 'not-a-jwt' }), 401, 'unauthorized');
    }
    const response = await platform.fetch('/tenants/me', { token });
    expect(response.status).toBe(200);
    expect(limits(response).remaining).toBe('2');
    await response.text();
  });
});

describe('with API_RATE_LIMIT_PER_MINUTE 0', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ API_RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => platform?.close());

  it('limits nothing and sends no x-ratelimit headers', async () => {
    const token = await platform.token();
    for (let i = 0; i < 8; i += 1) {
      const response = await platform.fetch('/tenants/me', { token });
      expect(response.status).toBe(200);
      await response.text();
      expect(limits(response)).toEqual({ limit: null, remaining: null, reset: null });
      expect(response.headers.get('retry-after')).toBeNull();
    }
  });
});

describe('by default', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  it('allows 600 a minute', async () => {
    const response = await platform.fetch('/tenants/me');
    await response.text();
    expect(limits(response)).toMatchObject({ limit: '600', remaining: '599' });
  });
});
