import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * A constant-time check of presented secrets against the expected one (hashing evens out lengths); the
 * expected one is hashed once, not at every request.
 */
export function secretMatcher(expected: string): (presented: string) => boolean {
  const hashed = sha256(expected);
  return (presented) => timingSafeEqual(sha256(presented), hashed);
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}
