// The time one attempt of a step's or rule's call gets, and the waits for a runner's capacity (no attempt
// is started that could not end before the step's or rule's deadline;
// docs/calls.md "Time of an attempt"). Pure: the clock and the random draw are arguments.
import { ApiError } from '../http/errors.ts';

/**
 * The least time worth starting an attempt with (chosen): one second, or the action's whole timeoutMs when
 * that is shorter. Less than a second rarely lets a module reach a vendor and hear back, and an attempt
 * cut that short only ends `timeout` with a record and a health failure that say nothing of the vendor.
 * Never below the runner's own floor (100 ms, the smallest timeoutMs a manifest may declare).
 */
export const MIN_USEFUL_ATTEMPT_MS = 1_000;

export const minimumAttemptMs = (actionTimeoutMs: number): number =>
  Math.min(actionTimeoutMs, MIN_USEFUL_ATTEMPT_MS);

/**
 * The time an attempt gets: its action's timeoutMs cut to what the deadline leaves; null when that is
 * less than the minimum (no attempt is started). Without a deadline (a test call) the action's own time.
 */
export function attemptTimeMs(
  actionTimeoutMs: number,
  deadline: number | undefined,
  now: number,
): number | null {
  if (deadline === undefined) return actionTimeoutMs;
  const time = Math.min(actionTimeoutMs, deadline - now);
  return time >= minimumAttemptMs(actionTimeoutMs) ? time : null;
}

/** The refusal of an attempt the deadline leaves too little time for: nothing is sent or recorded. */
export const deadlineReached = (install: string, action: string, actionTimeoutMs: number): ApiError =>
  new ApiError(
    'app_call_failed',
    `the deadline left less than ${minimumAttemptMs(actionTimeoutMs)} ms for another attempt of ${install} ${action}; none was started`,
    { reason: 'deadline' },
  );

/** The first wait for a runner's capacity, doubling with each wait up to CAPACITY_WAIT_MAX_MS. */
export const CAPACITY_WAIT_FIRST_MS = 100;
export const CAPACITY_WAIT_MAX_MS = 2_000;

export interface CapacityWaitInput {
  /** Waits already made for this attempt. */
  waits: number;
  /** A draw in [0, 1): the wait is between half and all of its step (so waiters spread out). */
  random: number;
  now: number;
  deadline: number;
  /** The least time the attempt needs once the wait is over (minimumAttemptMs of its action). */
  minimumMs: number;
}

/**
 * How long a call no runner took (busy, not_sent) waits before it is sent again, or null when the wait
 * and the shortest useful attempt after it would not end by the deadline.
 */
export function capacityWaitMs(input: CapacityWaitInput): number | null {
  const step = Math.min(CAPACITY_WAIT_FIRST_MS * 2 ** input.waits, CAPACITY_WAIT_MAX_MS);
  const waitMs = Math.round(step / 2 + (step / 2) * input.random);
  return input.now + waitMs + input.minimumMs > input.deadline ? null : waitMs;
}
