// Verifying bearer tokens (JWKS in production, the local key in embedded mode) and minting local ones.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  importJWK,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { AuthSettings } from '../config.ts';
import type { PlatformClaims } from './claims.ts';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalKeys } from './local-keys.ts';

export interface TokenVerifier {
  verify(token: string): Promise<JWTPayload>;
  /**
   * As verify, but a token whose exp has passed still verifies (every other check holds): only for the
   * one thing an expired applicant link may do, ask for a new link. Absent: lapsed tokens are refused.
   */
  verifyLapsed?(token: string): Promise<JWTPayload>;
}

/** How far the identity provider's clock may be from this host's, for exp, nbf and iat. */
export const CLOCK_TOLERANCE_SECONDS = 60;

/** A token must expire (exp), and may not claim to be issued later than now plus the tolerance. */
function verifierFor(keys: JWTVerifyGetKey, issuer: string, audience: string): TokenVerifier {
  const verifyAt = async (token: string, currentDate?: Date) => {
    const { payload } = await jwtVerify(token, keys, {
      issuer,
      audience,
      algorithms: ['ES256', 'RS256', 'EdDSA'],
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      ...(currentDate ? { currentDate } : {}),
    });
    if (issuedInTheFuture(payload, Date.now())) throw new Error('the token is issued in the future');
    return payload;
  };
  return {
    verify: (token) => verifyAt(token),
    // jose has no "ignore exp": its clock is set back to the token's own exp when that has passed (the
    // exp read unverified only sets the clock; the signature and every claim are then checked as usual).
    verifyLapsed: (token) => {
      const exp = decodeJwt(token).exp;
      const now = Date.now();
      return verifyAt(token, typeof exp === 'number' && exp * 1000 < now ? new Date(exp * 1000) : undefined);
    },
  };
}

/** jose checks iat against the clock only with a maximum token age, which the platform does not set. */
function issuedInTheFuture(payload: JWTPayload, nowMs: number): boolean {
  return typeof payload.iat === 'number' && payload.iat > nowMs / 1000 + CLOCK_TOLERANCE_SECONDS;
}

/** Production: the identity provider's JWKS (cached and refreshed by jose) with its issuer and audience. */
export function remoteVerifier(auth: AuthSettings): TokenVerifier {
  if (!auth.jwksUrl || !auth.issuer || !auth.audience) {
    throw new Error('AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE are required to verify tokens');
  }
  return verifierFor(createRemoteJWKSet(new URL(auth.jwksUrl)), auth.issuer, auth.audience);
}

export function localVerifier(keys: LocalKeys): TokenVerifier {
  return verifierFor(createLocalJWKSet({ keys: [keys.publicJwk] }), LOCAL_ISSUER, LOCAL_AUDIENCE);
}

export const DEFAULT_LOCAL_TOKEN_TTL = '12h';
/** The longest lifetime `platform token --expires-in` mints: 30 days. */
export const MAX_LOCAL_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

/** The positive part of the duration grammar jose's setExpirationTime reads. */
const LIFETIME =
  /^(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)$/i;
/** Seconds per unit, by the unit's first letter (jose's year is 365.25 days). */
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_557_600 };

/** The seconds of a lifetime such as 30m, 12h or 7d; null when the text is none or not positive. */
export function lifetimeSeconds(text: string): number | null {
  const match = LIFETIME.exec(text);
  const unit = UNIT_SECONDS[match?.[2]?.[0]?.toLowerCase() ?? ''];
  const seconds = match && unit ? Math.round(Number(match[1]) * unit) : 0;
  return seconds > 0 ? seconds : null;
}

export async function signLocalToken(
  privateJwk: JWK,
  claims: PlatformClaims,
  expiresIn: string | number = DEFAULT_LOCAL_TOKEN_TTL,
): Promise<string> {
  const key = await importJWK(privateJwk, 'ES256');
  const { sub, ...rest } = claims;
  return new SignJWT(rest as unknown as JWTPayload)
    .setProtectedHeader({ alg: 'ES256', kid: privateJwk.kid, typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}
