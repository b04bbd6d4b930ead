// A database blip never strands a run (docs/runs.md "How a run ends"): a run's row writes and an attempt's
// database work are tried again while PostgreSQL does not answer (db/errors.ts isUnavailable: refused,
// dropped, shutting down, starting up), for up to two minutes. An app call already sent is never sent
// again: an attempt whose work fails after its call went to the runner ends as UnrecordedCallError.
import { isUnavailable } from '../db/errors.ts';
import type { RunnerClient } from '../runner/client.ts';

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

/**
 * Work failed after an app call was sent (the database refused its record, say): the call's outcome may
 * not be recorded, and it must not be sent again. Matched by name: DBOS records and replays it as data.
 */
export class UnrecordedCallError extends Error {
  override readonly name = 'UnrecordedCallError';
  constructor() {
    super('the work failed after an app call was sent');
  }
}

export interface SendCount {
  /** The runner client to call through: it counts every invoke. */
  runner: RunnerClient;
  sent(): number;
}

/** Counts the calls sent to the runner through the client it answers. */
export function countSends(runner: RunnerClient): SendCount {
  let sent = 0;
  return {
    runner: {
      inspect: (bytes, tenantId) => runner.inspect(bytes, tenantId),
      invoke: (body) => {
        sent++;
        return runner.invoke(body);
      },
      handleWebhook: (body) => runner.handleWebhook(body),
      handoff: (body) => runner.handoff(body),
      close: () => runner.close(),
    },
    sent: () => sent,
  };
}

/**
 * Work that sends app calls (an attempt, a rule set's evaluation): tried again while the database does
 * not answer as long as nothing was sent; once a call was sent, any failure is an UnrecordedCallError.
 */
export function whileUnsent<T>(
  work: () => Promise<T>,
  sends: Pick<SendCount, 'sent'>,
  policy: OutagePolicy = OUTAGE_POLICY,
): Promise<T> {
  return whileDatabaseDown(async () => {
    const before = sends.sent();
    try {
      return await work();
    } catch (error) {
      if (sends.sent() > before) throw new UnrecordedCallError();
      throw error;
    }
  }, policy);
}
