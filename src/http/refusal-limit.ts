// The per-address limit of refused authentication (API_AUTH_FAILURE_LIMIT_PER_MINUTE): the per-caller limit
// runs after authentication, so a flood of bad tokens would never meet it. Each 401 unauthorized counts
// against the client address; past the limit, that address's requests to routes that need a token are
// answered 429 rate_limited before any token is verified, until the minute is over.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

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

  /** Seconds until the address may try again, or null when it is under the limit. */
  retryAfterSeconds(address: string, now: number): number | null {
    const window = this.windows.get(address);
    if (!window || window.resetAt <= now || window.count < this.max) return null;
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  count(address: string, now: number): void {
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

/** Registered before authentication: its onRequest hook runs first. */
export function installRefusalLimit(app: FastifyInstance, perMinute: number): void {
  const windows = new RefusalWindows(perMinute);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public || !request.routeOptions.url) return;
    const retryAfterSeconds = windows.retryAfterSeconds(request.ip, Date.now());
    if (retryAfterSeconds === null) return;
    reply.header('retry-after', String(retryAfterSeconds));
    throw new ApiError(
      429,
      'rate_limited',
      `too many refused tokens from this address: ${perMinute} a minute`,
      { retryAfterSeconds },
    );
  });
  // Counted as the answer goes out, so the address's next request already sees it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && request.failure?.code === 'unauthorized')
      windows.count(request.ip, Date.now());
    return payload;
  });
}
