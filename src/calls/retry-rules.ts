// Whether a step's or app rule's call is attempted again, and after how long (docs/runs.md "Idempotency
// keys, retries and the deadline"). Pure: the clock is an argument. Every step and rule call carries an
// idempotency key, so the action's retry applies whether or not it is idempotent; idempotency only decides
// what may be resent after a failure the module may have run through. The circuit and fallbacks are
// decided elsewhere; a call no runner took waits for capacity without spending an attempt (app-call.ts).
import { type ActionDeclaration, MANIFEST_LIMITS } from '../module/index.ts';
import type { AttemptResult } from './outcome.ts';

/** The shortest attempt there is (the smallest action timeoutMs): less time left starts none. */
export const MIN_ATTEMPT_MS = MANIFEST_LIMITS.timeoutMs.min;
/** The longest wait an error's retryAfterMs can ask for (ten minutes). */
export const MAX_RETRY_AFTER_MS = 600_000;
/** A step's retry when neither it nor the action names one: 3 attempts, 2 s apart, doubling. */
export const DEFAULT_STEP_RETRY = { maxAttempts: 3, backoffMs: 2_000 } as const;

/**
 * Who calls: a workflow's call_app step (its own retry, else the action's, else DEFAULT_STEP_RETRY; a
 * vendor's longer wait extends its deadline) or an app rule (the action's retry, else one attempt; the
 * evaluation's minute is firm: an HTTP request waits on it).
 */
export type CallerKind = 'step' | 'rule';

export interface RetryPolicy {
  /** Attempts including the first. */
  maxAttempts: number;
  /** The policy's delay after attempt n (1-based) ended, before attempt n + 1. */
  delayMsFor(finishedAttempts: number): number;
}

const within = (value: number, range: { min: number; max: number }): number =>
  Math.min(Math.max(value, range.min), range.max);

/** A step's own retry: the delay doubles after each attempt (backoffMs, 2 × backoffMs, 4 × …). */
function doublingPolicy(maxAttempts: number, backoffMs: number): RetryPolicy {
  return {
    maxAttempts: within(maxAttempts, MANIFEST_LIMITS.maxAttempts),
    delayMsFor: (n) => within(backoffMs, MANIFEST_LIMITS.backoffMs) * 2 ** (Math.max(n, 1) - 1),
  };
}

/** The action's declared retry: the delay is backoffMs times the attempt number. */
function linearPolicy(maxAttempts: number, backoffMs: number): RetryPolicy {
  return {
    maxAttempts: within(maxAttempts, MANIFEST_LIMITS.maxAttempts),
    delayMsFor: (n) => within(backoffMs, MANIFEST_LIMITS.backoffMs) * Math.max(n, 1),
  };
}

/** A step's or rule's own retry, within the action's limits (attempts, first delay; the delay doubles). */
export interface RetryOverride {
  maxAttempts?: number;
  backoffMs?: number;
}

/** One attempt, no retry. */
export const SINGLE_ATTEMPT: RetryPolicy = { maxAttempts: 1, delayMsFor: () => 0 };

/**
 * The policy of a step's or rule's call: a step's own retry override (doubling) when it sets either field,
 * a field it leaves out taken from DEFAULT_STEP_RETRY; else the action's declared retry (linear); else, for
 * a step, DEFAULT_STEP_RETRY and, for a rule, one attempt (an action without retry makes one). Values outside
 * the manifest's limits (1 to 5 attempts, 0 to 60000 ms) are clamped.
 */
export function retryPolicyOf(
  action: ActionDeclaration,
  caller: CallerKind,
  override?: RetryOverride,
): RetryPolicy {
  if (override?.maxAttempts !== undefined || override?.backoffMs !== undefined) {
    return doublingPolicy(
      override.maxAttempts ?? DEFAULT_STEP_RETRY.maxAttempts,
      override.backoffMs ?? DEFAULT_STEP_RETRY.backoffMs,
    );
  }
  if (action.retry) return linearPolicy(action.retry.maxAttempts, action.retry.backoffMs);
  if (caller === 'rule') return SINGLE_ATTEMPT;
  return doublingPolicy(DEFAULT_STEP_RETRY.maxAttempts, DEFAULT_STEP_RETRY.backoffMs);
}

/** How an attempt ended: refused before the runner (an ApiError's code), or the runner's result. */
export type AttemptEnd = { kind: 'refused'; code: string } | { kind: 'result'; result: AttemptResult };

export interface RetryInput {
  end: AttemptEnd;
  idempotent: boolean;
  /** 1-based: the attempt that just ended. */
  attempt: number;
  policy: RetryPolicy;
  now: number;
  /** Epoch ms of the step's (or the rule evaluation's) deadline. */
  deadline: number;
  /** The least time the next attempt needs (attempt-time.ts minimumAttemptMs of its action). */
  minimumMs: number;
  /** A step's deadline stretches for a vendor's longer wait; a rule's does not. */
  caller: CallerKind;
}

/**
 * deadlineExtensionMs: how far the wait pushes the step's deadline — the part of a vendor's retryAfterMs
 * beyond the policy's delay (at most ten minutes a wait), 0 for a rule or when the policy's delay is longer.
 */
export type RetryDecision =
  | { retry: true; delayMs: number; deadlineExtensionMs: number }
  | { retry: false; why: string };

type Resendable = { resend: true; retryAfterMs?: number } | { resend: false; why: string };

/**
 * Runner failures another attempt may fix (the runner's busy, module_unavailable and internal among
 * them). After the first three the module may have run and its requests gone out, so only an
 * idempotent action is resent; busy, not_sent and module_unavailable ran nothing.
 */
const TRANSIENT_FAILURES: ReadonlyMap<string, { mayHaveRun: boolean; what: string }> = new Map([
  ['timeout', { mayHaveRun: true, what: 'the attempt timed out' }],
  ['unreachable', { mayHaveRun: true, what: 'the runner did not answer' }],
  ['internal', { mayHaveRun: true, what: 'the runner failed' }],
  ['busy', { mayHaveRun: false, what: 'the runner was busy' }],
  ['not_sent', { mayHaveRun: false, what: 'no runner took the call' }],
  ['module_unavailable', { mayHaveRun: false, what: 'the runner could not fetch the module' }],
]);

/** Whether the module's own error answer may be resent: only when the app called it retryable. */
function errorAnswerResendable(error: NonNullable<AttemptResult['error']>): Resendable {
  if (error.retryable !== true) return { resend: false, why: 'the app did not call its error retryable' };
  return error.retryAfterMs === undefined
    ? { resend: true }
    : { resend: true, retryAfterMs: error.retryAfterMs };
}

/** A failure other than an error answer: a transient runner failure may be resent; the rest never. */
function failureResendable(reason: string | undefined, idempotent: boolean): Resendable {
  const transient = reason === undefined ? undefined : TRANSIENT_FAILURES.get(reason);
  if (transient === undefined) {
    return {
      resend: false,
      why: `the attempt failed (${reason ?? 'no reason given'}), which another attempt cannot fix`,
    };
  }
  if (transient.mayHaveRun && !idempotent) {
    return { resend: false, why: `${transient.what} and the action is not idempotent, so it is not resent` };
  }
  return { resend: true };
}

/** Whether the failure behind the result is one another attempt may fix, for this action. */
function resultResendable(result: AttemptResult, idempotent: boolean): Resendable {
  if (result.status === 'success') return { resend: false, why: 'the attempt succeeded' };
  if (result.status === 'pending') return { resend: false, why: 'the action answered pending' };
  if (result.status === 'timeout') return failureResendable('timeout', idempotent);
  if (result.error?.reason === 'error') return errorAnswerResendable(result.error);
  return failureResendable(result.error?.reason, idempotent);
}

/** The wait an error asked for, at most ten minutes; nothing when it asked none or nonsense. */
function askedWaitMs(retryAfterMs: number | undefined): number {
  if (retryAfterMs === undefined || Number.isNaN(retryAfterMs)) return 0;
  return within(retryAfterMs, { min: 0, max: MAX_RETRY_AFTER_MS });
}

/**
 * Whether to attempt again and after what delay: only after a failure another attempt may fix, never
 * past the policy's attempts, waiting the larger of the policy's delay and the error's retryAfterMs, and
 * only when the shortest useful attempt started after the delay would still end by the deadline. A step's
 * deadline bounds its attempts and the policy's waits; a vendor's longer wait (up to ten minutes) extends
 * it by the difference, so the step honours the wait (a vendor's wait longer than the policy's delays the
 * next attempt by up to ten minutes). A rule's evaluation minute is never extended.
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { end, policy } = input;
  const resendable: Resendable =
    end.kind === 'refused'
      ? { resend: false, why: `the call was refused (${end.code}), which is not retried` }
      : resultResendable(end.result, input.idempotent);
  if (!resendable.resend) return { retry: false, why: resendable.why };
  if (input.attempt >= policy.maxAttempts) {
    return { retry: false, why: `all ${policy.maxAttempts} attempts were used` };
  }
  const policyDelayMs = policy.delayMsFor(input.attempt);
  const delayMs = Math.max(policyDelayMs, askedWaitMs(resendable.retryAfterMs));
  const deadlineExtensionMs = input.caller === 'step' ? delayMs - policyDelayMs : 0;
  if (input.now + delayMs + input.minimumMs > input.deadline + deadlineExtensionMs) {
    return { retry: false, why: 'another attempt could not end before the deadline' };
  }
  return { retry: true, delayMs, deadlineExtensionMs };
}
