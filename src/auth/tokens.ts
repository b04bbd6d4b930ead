// Verifying bearer tokens (JWKS in production, the local key in embedded mode) and minting local ones.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
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
}

function verifierFor(keys: JWTVerifyGetKey, issuer: string, audience: string): TokenVerifier {
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: ['ES256', 'RS256', 'EdDSA'],
      });
      return payload;
    },
  };
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
