// STAND-IN (runs-r worktree): the real retry decision (spec part 1 §4.8 "Retries and idempotency") lands
// from another worktree; the lead keeps that one at merge. Only the signatures are relied on here.
import type { ActionDeclaration } from '../module/manifest-types.ts';
import type { RetryOverride } from '../runs/model.ts';
import type { AttemptResult } from './outcome.ts';

export interface RetryPolicy {
  maxAttempts: number;
  delayMsFor(finishedAttempts: number): number;
}

export function retryPolicyOf(action: ActionDeclaration, override?: RetryOverride): RetryPolicy {
  const maxAttempts = override?.maxAttempts ?? action.retry?.maxAttempts ?? 3;
  const backoffMs = override?.backoffMs ?? action.retry?.backoffMs ?? 2000;
  return { maxAttempts, delayMsFor: (n) => backoffMs * 2 ** Math.max(0, n - 1) };
}

export type AttemptEnd = { kind: 'refused'; code: string } | { kind: 'result'; result: AttemptResult };

export function decideRetry(input: {
  end: AttemptEnd;
  idempotent: boolean;
  attempt: number;
  policy: RetryPolicy;
  now: number;
  deadline: number;
}): { retry: true; delayMs: number } | { retry: false; why: string } {
  const { end } = input;
  if (end.kind === 'refused') return { retry: false, why: end.code };
  if (end.result.status === 'success' || end.result.status === 'pending')
    return { retry: false, why: 'done' };
  if (input.attempt >= input.policy.maxAttempts) return { retry: false, why: 'attempts' };
  const reason = end.result.error?.reason;
  if (reason === 'error' && end.result.error?.retryable !== true)
    return { retry: false, why: 'not retryable' };
  if (reason !== 'error' && reason !== 'not_sent' && !input.idempotent)
    return { retry: false, why: 'not idempotent' };
  const delayMs = Math.max(
    input.policy.delayMsFor(input.attempt),
    Math.min(end.result.error?.retryAfterMs ?? 0, 600_000),
  );
  if (input.now + delayMs >= input.deadline) return { retry: false, why: 'deadline' };
  return { retry: true, delayMs };
}
