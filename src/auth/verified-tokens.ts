// Tokens this instance has verified, so that the refused-token limit never holds a good one back (and a
// token used again is not verified again for a minute). Keyed by the token's sha256, never by the token:
// a heap dump holds no bearer token. Bounded in entries (least recently used leave first) and in time
// (an entry ends with its token's expiry). Pure apart from the map it keeps; time is given.
import { createHash } from 'node:crypto';
import type { Principal } from './claims.ts';

/** How long a verification holds before the signature is checked again (a key the provider dropped). */
export const REVERIFY_AFTER_MS = 60_000;
/** Entries kept; past it the least recently used leave first. */
export const MAX_VERIFIED_TOKENS = 10_000;

interface Entry {
  principal: Principal;
  verifiedAt: number;
  /** The token's exp, in ms. */
  expiresAt: number;
}

/**
 * What is known of a token: `fresh` (verified within REVERIFY_AFTER_MS: use it as is), `stale` (verified
 * before and not expired: verify again, but it is no stranger), or `unknown`.
 */
export type Knowledge = { kind: 'fresh'; principal: Principal } | { kind: 'stale' } | { kind: 'unknown' };

export const tokenKey = (token: string) => createHash('sha256').update(token).digest('base64url');

export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly max = MAX_VERIFIED_TOKENS) {}

  get size(): number {
    return this.entries.size;
  }

  lookup(token: string, now: number): Knowledge {
    const key = tokenKey(token);
    const entry = this.entries.get(key);
    if (!entry) return { kind: 'unknown' };
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return { kind: 'unknown' };
    }
    // Map order is insertion order: moved to the end, it is the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return now - entry.verifiedAt < REVERIFY_AFTER_MS
      ? { kind: 'fresh', principal: entry.principal }
      : { kind: 'stale' };
  }

  /** Remembers a verified token until its exp (seconds since the epoch); one without exp is not kept. */
  remember(token: string, principal: Principal, exp: number | undefined, now: number): void {
    if (typeof exp !== 'number' || exp * 1000 <= now) return;
    const key = tokenKey(token);
    this.entries.delete(key);
    this.entries.set(key, { principal, verifiedAt: now, expiresAt: exp * 1000 });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  forget(token: string): void {
    this.entries.delete(tokenKey(token));
  }
}
