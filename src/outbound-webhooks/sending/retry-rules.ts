// The retry ladder of a delivery (docs/outbound-webhooks.md). Pure.

/** Five attempts: the first, then 1 minute, 5 minutes, 30 minutes and 2 hours after each failure. */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export type AfterFailure = { status: 'failed'; nextAttemptAt: Date } | { status: 'exhausted' };

/**
 * Where a delivery stands after its `attempts`-th attempt failed at `at`. A manual retry of an exhausted
 * delivery is one more attempt: failing again exhausts it again.
 */
export function afterFailure(attempts: number, at: Date): AfterFailure {
  if (attempts >= MAX_ATTEMPTS) return { status: 'exhausted' };
  const delay = RETRY_DELAYS_MS[attempts - 1] ?? RETRY_DELAYS_MS[0] ?? 60_000;
  return { status: 'failed', nextAttemptAt: new Date(at.getTime() + delay) };
}
