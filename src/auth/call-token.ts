// The document token of an app call: minted
// when a call is handed to the runner, it lets that call's module read the tenant's documents through the
// api's internal listener. It binds tenant, call and, for a call with a subject, that subject; it expires
// after five minutes; it is an HS256 JWT signed with APP_CALL_TOKEN_SECRET, which the runner never holds.
import { errors, jwtVerify, SignJWT } from 'jose';

export const CALL_TOKEN_TTL_SECONDS = 300;
const ISSUER = 'apps-platform';
const AUDIENCE = 'apps-platform:app-call';
const TYPE = 'app-call+jwt';

export interface CallTokenClaims {
  tenantId: string;
  callId: string;
  subjectId?: string | null;
}

export interface VerifiedCallToken {
  tenantId: string;
  callId: string;
  subjectId: string | null;
}

export type CallTokenRefusal = 'malformed' | 'expired' | 'invalid' | 'other_call';

const keyOf = (secret: string) => {
  if (secret === '') throw new Error('the call token secret is empty');
  return new TextEncoder().encode(secret);
};

/** Signs a call's document token, valid `ttlSeconds` from `issuedAt` (at most five minutes). */
export async function signCallToken(
  secret: string,
  claims: CallTokenClaims,
  ttlSeconds = CALL_TOKEN_TTL_SECONDS,
  issuedAt: Date = new Date(),
): Promise<string> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > CALL_TOKEN_TTL_SECONDS) {
    throw new RangeError(`a call token lives 1 to ${CALL_TOKEN_TTL_SECONDS} seconds`);
  }
  if (!claims.tenantId || !claims.callId) throw new Error('a call token needs a tenant and a call');
  const iat = Math.floor(issuedAt.getTime() / 1000);
  return new SignJWT({
    tid: claims.tenantId,
    cid: claims.callId,
    ...(claims.subjectId ? { sid: claims.subjectId } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: TYPE })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(keyOf(secret));
}

/**
 * Verifies a call token: signature, type, issuer, audience, expiry and claims, and, when given, that it
 * was minted for `options.callId`. Answers the bound claims, or why the token is refused.
 */
export async function verifyCallToken(
  secret: string,
  token: string,
  options: { callId?: string; currentDate?: Date } = {},
): Promise<{ ok: true; claims: VerifiedCallToken } | { ok: false; reason: CallTokenRefusal }> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      typ: TYPE,
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['exp', 'iat'],
      ...(options.currentDate ? { currentDate: options.currentDate } : {}),
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
    if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
      return { ok: false, reason: 'malformed' };
    }
    return { ok: false, reason: 'invalid' };
  }
  const { tid, cid, sid } = payload;
  if (typeof tid !== 'string' || typeof cid !== 'string' || (sid !== undefined && typeof sid !== 'string')) {
    return { ok: false, reason: 'invalid' };
  }
  // Nothing longer than five minutes is ever minted; a longer one was not minted here.
  if ((payload.exp as number) - (payload.iat as number) > CALL_TOKEN_TTL_SECONDS) {
    return { ok: false, reason: 'invalid' };
  }
  if (options.callId !== undefined && cid !== options.callId) return { ok: false, reason: 'other_call' };
  return { ok: true, claims: { tenantId: tid, callId: cid, subjectId: sid ?? null } };
}
