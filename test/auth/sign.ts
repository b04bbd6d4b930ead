// Signs tokens the harness's minter cannot make: any claims, any key, issuer, audience or expiry.
import { type JWTPayload, type KeyInput, SignJWT } from 'jose';

export interface SignOptions {
  kid?: string;
  issuer?: string;
  audience?: string;
  /** Seconds since the epoch; defaults to an hour from now; null: no exp claim at all. */
  expiresAt?: number | null;
  /** Seconds since the epoch; defaults to now. */
  issuedAt?: number;
  alg?: string;
}

export async function signToken(
  key: KeyInput,
  claims: JWTPayload,
  options: SignOptions = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid, typ: 'JWT' })
    .setIssuedAt(options.issuedAt ?? now);
  if (options.expiresAt !== null) jwt = jwt.setExpirationTime(options.expiresAt ?? now + 3600);
  if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
  return jwt.sign(key);
}
