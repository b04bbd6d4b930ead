// The verified-token cache and the gate in front of verification, on a clock the test moves: a token
// verified once is never held back by its address's refused-token limit, its verification is redone
// after a minute, and nothing is kept past the token's expiry or beyond the cache's size.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/claims.ts';
import { readOrCreateLocalSecrets } from '../../src/auth/local-keys.ts';
import { localVerifier, signLocalToken, type TokenVerifier } from '../../src/auth/tokens.ts';
import { REVERIFY_AFTER_MS, tokenKey, VerifiedTokens } from '../../src/auth/verified-tokens.ts';
import { TokenGate } from '../../src/http/refusal-limit.ts';

const principal = (subject: string) => ({ subject }) as unknown as Principal;
const T0 = 1_700_000_000_000;
const EXP = T0 / 1000 + 3600;

describe('VerifiedTokens', () => {
  it('knows a token as fresh for a minute, then stale until its exp, then not at all', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', principal('ada'), EXP, T0);
    const table: [number, string][] = [
      [T0, 'fresh'],
      [T0 + REVERIFY_AFTER_MS - 1, 'fresh'],
      [T0 + REVERIFY_AFTER_MS, 'stale'],
      [EXP * 1000 - 1, 'stale'],
      [EXP * 1000, 'unknown'],
    ];
    for (const [now, kind] of table) expect(tokens.lookup('a.b.c', now).kind, String(now - T0)).toBe(kind);
    // Past its exp it was dropped, not only hidden.
    expect(tokens.size).toBe(0);
  });

  it('keeps no token without an exp, or one already expired', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('no.exp.here', principal('ada'), undefined, T0);
    tokens.remember('gone.by.now', principal('ada'), T0 / 1000, T0);
    expect(tokens.size).toBe(0);
    expect(tokens.lookup('no.exp.here', T0)).toEqual({ kind: 'unknown' });
  });

  it('drops the least recently used past its size', () => {
    const tokens = new VerifiedTokens(2);
    tokens.remember('one', principal('one'), EXP, T0);
    tokens.remember('two', principal('two'), EXP, T0);
    expect(tokens.lookup('one', T0).kind).toBe('fresh'); // now "two" is the least recently used
    tokens.remember('three', principal('three'), EXP, T0);
    expect([
      tokens.lookup('one', T0).kind,
      tokens.lookup('two', T0).kind,
      tokens.lookup('three', T0).kind,
    ]).toEqual(['fresh', 'unknown', 'fresh']);
    expect(tokens.size).toBe(2);
  });

  it('forgets a token on request, and keys tokens by their hash, never the token', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('x.y.z', principal('ada'), EXP, T0);
    tokens.forget('x.y.z');
    expect(tokens.lookup('x.y.z', T0).kind).toBe('unknown');
    expect(tokenKey('x.y.z')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenKey('x.y.z')).not.toContain('x.y.z');
  });
});

describe('TokenGate', () => {
  let dir: string;
  let verifier: TokenVerifier;
  let verifications = 0;
  let sign: (user: string) => Promise<string>;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'token-gate-'));
    const { signingKey } = await readOrCreateLocalSecrets(dir);
    const local = localVerifier(signingKey);
    verifier = {
      verify: (token) => {
        verifications += 1;
        return local.verify(token);
      },
    };
    const tenant = '00000000-0000-4000-8000-000000000001';
    sign = (user) =>
      signLocalToken(signingKey.privateJwk, {
        tenant,
        sub: `user:${user}`,
        name: user,
        kind: 'human',
        roles: ['admin'],
        permissions: [],
      });
  });
  afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

  it('lets a token verified before through a limited address, verifying it again once a minute', async () => {
    let now = Date.now();
    const gate = new TokenGate(verifier, 2, () => now);
    const good = await sign('ada');
    verifications = 0;
    expect((await gate.principal(good, '198.51.100.1')).subject).toBe('user:ada');
    expect((await gate.principal(good, '198.51.100.1')).subject).toBe('user:ada');
    expect(verifications).toBe(1);

    now += 50_000;
    for (let i = 0; i < 2; i += 1) {
      await expect(gate.principal('bad.token.here', '198.51.100.1')).rejects.toMatchObject({
        statusCode: 401,
        code: 'unauthorized',
      });
    }
    verifications = 0;
    await expect(gate.principal('bad.token.here', '198.51.100.1')).rejects.toMatchObject({
      statusCode: 429,
      code: 'rate_limited',
      details: { retryAfterSeconds: 60 },
    });
    const stranger = await sign('bob');
    await expect(gate.principal(stranger, '198.51.100.1')).rejects.toMatchObject({ statusCode: 429 });
    expect(verifications).toBe(0);

    // Stale (verified 61 s ago) while the address is still limited: verified again, and let through.
    now += 11_000;
    expect((await gate.principal(good, '198.51.100.1')).subject).toBe('user:ada');
    expect(verifications).toBe(1);
    // Another address is not limited: the stranger is verified there.
    expect((await gate.principal(stranger, '198.51.100.2')).subject).toBe('user:bob');
  });

  it('counts nothing with a limit of 0, and still remembers what verified', async () => {
    const gate = new TokenGate(verifier, 0, () => Date.now());
    for (let i = 0; i < 5; i += 1) {
      await expect(gate.principal('bad.token.here', '198.51.100.3')).rejects.toMatchObject({
        statusCode: 401,
      });
    }
    const good = await sign('carol');
    verifications = 0;
    await gate.principal(good, '198.51.100.3');
    await gate.principal(good, '198.51.100.3');
    expect(verifications).toBe(1);
  });
});
