// Work tried again while PostgreSQL does not answer (errors.ts isUnavailable: refused, dropped, shutting
// down, starting up), with waits doubling to 2 s, for up to two minutes: a restart or a failover delays
// the work, never loses it. Only work that is safe to repeat after a failure goes through here.
import { isUnavailable } from './errors.ts';

export interface OutagePolicy {
  /** How long to keep trying, counted from the first try. */
  budgetMs: number;
  /** The first wait; each next one doubles, up to maxDelayMs. */
  firstDelayMs: number;
  maxDelayMs: number;
  sleep(ms: number): Promise<void>;
  now(): number;
}

/**
 * Two minutes: longer than a restart or a failover of PostgreSQL takes, short enough that a run whose
 * database stays away ends (and the sweep ends the rest). Waits of at most 2 s, so a run moves within
 * 2 s of the database's return.
 */
export const OUTAGE_POLICY: OutagePolicy = {
  budgetMs: 120_000,
  firstDelayMs: 100,
  maxDelayMs: 2_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: Date.now,
};

/** The wait after the `tries`-th failed try (from 1): doubling from firstDelayMs, at most maxDelayMs. */
export const outageDelay = (tries: number, policy: Pick<OutagePolicy, 'firstDelayMs' | 'maxDelayMs'>) =>
  Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(tries - 1, 30));

/** Runs `work`, again while it fails because the database does not answer, within the policy's budget. */
export async function whileDatabaseDown<T>(
  work: () => Promise<T>,
  policy: OutagePolicy = OUTAGE_POLICY,
): Promise<T> {
  const since = policy.now();
  for (let tries = 1; ; tries++) {
    try {
      return await work();
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      const delay = outageDelay(tries, policy);
      if (policy.now() + delay - since > policy.budgetMs) throw error;
      await policy.sleep(delay);
    }
  }
}
