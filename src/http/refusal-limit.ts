// The per-address limit of refused tokens (API_AUTH_FAILURE_LIMIT_PER_MINUTE): the per-caller limit runs
// after authentication, so a flood of bad tokens would never meet it. Each token that fails verification
// counts against the client address; past the limit, a token from that address that this instance has not
// verified is answered 429 rate_limited without being verified, until the minute is over. A token it has
// verified (VerifiedTokens) is never held back, and a request without a token costs no verification, so
// it is answered 401 and never counted.
import type { JWTPayload } from 'jose';
import { type Principal, principalFromClaims } from '../auth/claims.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import { VerifiedTokens } from '../auth/verified-tokens.ts';
import { ApiError, unauthorized } from './errors.ts';

const WINDOW_MS = 60_000;
/** Past this many addresses, those whose minute is over are dropped when the next one is counted. */
const SWEEP_AT = 10_000;

interface Window {
  count: number;
  resetAt: number;
}

/** Fixed one-minute windows of refusals per address. Pure apart from the map it keeps; time is given. */
export class RefusalWindows {
  private readonly windows = new Map<string, Window>();
  constructor(private readonly max: number) {}

  /** Seconds until the address may try again, or null when it is under the limit (or there is none). */
  retryAfterSeconds(address: string, now: number): number | null {
    const window = this.windows.get(address);
    if (this.max === 0 || !window || window.resetAt <= now || window.count < this.max) return null;
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  count(address: string, now: number): void {
    if (this.max === 0) return;
    const window = this.windows.get(address);
    if (window && window.resetAt > now) {
      window.count += 1;
      return;
    }
    if (this.windows.size >= SWEEP_AT) this.sweep(now);
    this.windows.set(address, { count: 1, resetAt: now + WINDOW_MS });
  }

  private sweep(now: number): void {
    for (const [address, window] of this.windows) if (window.resetAt <= now) this.windows.delete(address);
  }
}

/** A token's principal: from the verified tokens when known, else verified unless its address is over the limit. */
export class TokenGate {
  private readonly refusals: RefusalWindows;
  private readonly verified = new VerifiedTokens();

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly refusalsPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refusals = new RefusalWindows(refusalsPerMinute);
  }

  /** Throws 429 rate_limited (details.retryAfterSeconds) or 401 unauthorized, the latter counted. */
  async principal(token: string, address: string): Promise<Principal> {
    const known = this.verified.lookup(token, this.now());
    if (known.kind === 'fresh') return known.principal;
    // A token verified before is no flood: it is checked again whatever its address's count.
    if (known.kind === 'unknown') {
      const retryAfterSeconds = this.refusals.retryAfterSeconds(address, this.now());
      if (retryAfterSeconds !== null) {
        throw new ApiError(
          'rate_limited',
          `too many refused tokens from this address: ${this.refusalsPerMinute} a minute`,
          { retryAfterSeconds },
        );
      }
    }
    let claims: JWTPayload;
    try {
      claims = await this.verifier.verify(token);
    } catch {
      throw this.refuse(token, address, 'bearer token is invalid or expired');
    }
    const principal = principalFromClaims(claims);
    if ('problem' in principal)
      throw this.refuse(token, address, `bearer token is not usable: ${principal.problem}`);
    this.verified.remember(token, principal, claims.exp, this.now());
    return principal;
  }

  private refuse(token: string, address: string, message: string): ApiError {
    this.verified.forget(token);
    this.refusals.count(address, this.now());
    return unauthorized(message);
  }
}
