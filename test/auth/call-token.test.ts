import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { CALL_TOKEN_TTL_SECONDS, signCallToken, verifyCallToken } from '../../src/auth/call-token.ts';

const SECRET = 'call-token-secret-0123456789abcdef';
const claims = { tenantId: 'tenant-1', callId: 'call-1', subjectId: 'subject-1' };

describe('call tokens', () => {
  it('bind tenant, call and subject', async () => {
    const token = await signCallToken(SECRET, claims);
    expect(await verifyCallToken(SECRET, token)).toEqual({ ok: true, claims });
    expect(await verifyCallToken(SECRET, token, { callId: 'call-1' })).toEqual({ ok: true, claims });
    const withoutSubject = await signCallToken(SECRET, { tenantId: 'tenant-1', callId: 'call-2' });
    expect(await verifyCallToken(SECRET, withoutSubject)).toEqual({
      ok: true,
      claims: { tenantId: 'tenant-1', callId: 'call-2', subjectId: null },
    });
  });

  it('expire after five minutes', async () => {
    const issuedAt = new Date('2030-01-01T00:00:00Z');
    const token = await signCallToken(SECRET, claims, undefined, issuedAt);
    const at = (seconds: number) => new Date(issuedAt.getTime() + seconds * 1000);
    expect(
      await verifyCallToken(SECRET, token, { currentDate: at(CALL_TOKEN_TTL_SECONDS - 1) }),
    ).toMatchObject({
      ok: true,
    });
    expect(await verifyCallToken(SECRET, token, { currentDate: at(CALL_TOKEN_TTL_SECONDS) })).toEqual({
      ok: false,
      reason: 'expired',
    });
    const old = await signCallToken(SECRET, claims, 300, new Date(Date.now() - 301_000));
    expect(await verifyCallToken(SECRET, old)).toEqual({ ok: false, reason: 'expired' });
  });

  it('live at most five minutes', async () => {
    await expect(signCallToken(SECRET, claims, 301)).rejects.toThrow(RangeError);
    await expect(signCallToken(SECRET, claims, 0)).rejects.toThrow(RangeError);
    // A longer-lived token signed with the secret some other way is still refused.
    const long = await new SignJWT({ tid: 'tenant-1', cid: 'call-1' })
      .setProtectedHeader({ alg: 'HS256', typ: 'app-call+jwt' })
      .setIssuer('apps-platform')
      .setAudience('apps-platform:app-call')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    expect(await verifyCallToken(SECRET, long)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('are refused under another secret', async () => {
    const token = await signCallToken('another-secret-entirely-0123456789', claims);
    expect(await verifyCallToken(SECRET, token)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('are refused when tampered with', async () => {
    const token = await signCallToken(SECRET, claims);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), tid: 'tenant-2' }),
    ).toString('base64url');
    expect(await verifyCallToken(SECRET, `${header}.${forged}.${signature}`)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await verifyCallToken(SECRET, `${header}.${payload}.${flipped}`)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(await verifyCallToken(SECRET, 'not-a-token')).toEqual({ ok: false, reason: 'malformed' });
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'app-call+jwt' })).toString('base64url')}.${payload}.`;
    expect((await verifyCallToken(SECRET, unsigned)).ok).toBe(false);
  });

  it('are refused for another call', async () => {
    const token = await signCallToken(SECRET, claims);
    expect(await verifyCallToken(SECRET, token, { callId: 'call-2' })).toEqual({
      ok: false,
      reason: 'other_call',
    });
  });
});
