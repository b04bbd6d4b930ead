// Retries of step and rule calls (src/calls/retry-rules.ts): one row per retry rule this module
// decides (docs/runs.md "Idempotency keys, retries and the deadline") and per choice of its own. How the
// idempotency key is derived and carried, the app task queue and the 2.5 minute deadline (the `deadline`
// argument here) belong to the worker. The rules' numbers are written out here (2 s, ten minutes as
// 600000 ms), never read from the code's constants.
import { describe, expect, it } from 'vitest';
import { type AttemptResult, resultOfFailure } from '../../src/calls/outcome.ts';
import {
  type AttemptEnd,
  type CallerKind,
  DEFAULT_STEP_RETRY,
  decideRetry,
  type RetryPolicy,
  retryPolicyOf,
} from '../../src/calls/retry-rules.ts';
import type { ActionDeclaration } from '../../src/module/manifest-types.ts';
import type { RunnerFailureResult } from '../../src/runner/client.ts';
import type { RetryOverride } from '../../src/runs/model.ts';

const action = (fields: Partial<ActionDeclaration> = {}): ActionDeclaration => ({
  name: 'check',
  input: true,
  output: true,
  timeoutMs: 15_000,
  idempotent: false,
  ...fields,
});

/** The delays after attempts 1 to maxAttempts − 1. */
const delaysOf = (policy: RetryPolicy) =>
  Array.from({ length: policy.maxAttempts - 1 }, (_, i) => policy.delayMsFor(i + 1));

describe('retryPolicyOf: the step’s own retry, else the action’s, else the step default', () => {
  it.each<{
    name: string;
    declared?: ActionDeclaration['retry'];
    override?: RetryOverride;
    maxAttempts: number;
    delays: number[];
  }>([
    {
      name: 'default for steps and rules: 3 attempts, 2 s apart, doubling',
      maxAttempts: 3,
      delays: [2_000, 4_000],
    },
    {
      name: "the action's retry: the delay is backoffMs times the attempt number",
      declared: { maxAttempts: 4, backoffMs: 1_000 },
      maxAttempts: 4,
      delays: [1_000, 2_000, 3_000],
    },
    {
      name: "the step's own retry doubles: backoffMs × 2^(n−1)",
      override: { maxAttempts: 5, backoffMs: 500 },
      maxAttempts: 5,
      delays: [500, 1_000, 2_000, 4_000],
    },
    {
      name: "the step's own retry wins over the action's",
      declared: { maxAttempts: 5, backoffMs: 10_000 },
      override: { maxAttempts: 2, backoffMs: 100 },
      maxAttempts: 2,
      delays: [100],
    },
    {
      name: 'an override without backoffMs takes the default 2000 ms',
      declared: { maxAttempts: 5, backoffMs: 10_000 },
      override: { maxAttempts: 4 },
      maxAttempts: 4,
      delays: [2_000, 4_000, 8_000],
    },
    {
      name: 'an override without maxAttempts takes the default 3',
      override: { backoffMs: 300 },
      maxAttempts: 3,
      delays: [300, 600],
    },
    {
      name: "an override setting neither field is none: the action's retry applies",
      declared: { maxAttempts: 2, backoffMs: 700 },
      override: {},
      maxAttempts: 2,
      delays: [700],
    },
    { name: 'one attempt: no delay is ever asked', override: { maxAttempts: 1 }, maxAttempts: 1, delays: [] },
    {
      name: 'backoffMs 0: attempts follow at once',
      override: { maxAttempts: 3, backoffMs: 0 },
      maxAttempts: 3,
      delays: [0, 0],
    },
    {
      name: 'values past the limits are clamped (1 to 5 attempts, 0 to 60000 ms)',
      override: { maxAttempts: 9, backoffMs: 90_000 },
      maxAttempts: 5,
      delays: [60_000, 120_000, 240_000, 480_000],
    },
    {
      name: 'values below the limits are clamped',
      declared: { maxAttempts: 0, backoffMs: -5 },
      maxAttempts: 1,
      delays: [],
    },
  ])('$name', ({ declared, override, maxAttempts, delays }) => {
    const policy = retryPolicyOf(action(declared ? { retry: declared } : {}), 'step', override);
    expect(policy.maxAttempts).toBe(maxAttempts);
    expect(delaysOf(policy)).toEqual(delays);
  });

  it('the default is the one the spec names', () => {
    expect(DEFAULT_STEP_RETRY).toEqual({ maxAttempts: 3, backoffMs: 2_000 });
  });
});

describe('retryPolicyOf: an app rule’s call follows its action’s retry, one attempt without it', () => {
  it.each<{ name: string; declared?: ActionDeclaration['retry']; maxAttempts: number; delays: number[] }>([
    { name: 'an action without retry: one attempt (absent: one attempt)', maxAttempts: 1, delays: [] },
    {
      name: "the action's retry: backoffMs times the attempt number",
      declared: { maxAttempts: 3, backoffMs: 2_000 },
      maxAttempts: 3,
      delays: [2_000, 4_000],
    },
    {
      name: "the action's retry, clamped to its limits",
      declared: { maxAttempts: 9, backoffMs: 90_000 },
      maxAttempts: 5,
      delays: [60_000, 120_000, 180_000, 240_000],
    },
  ])('$name', ({ declared, maxAttempts, delays }) => {
    const policy = retryPolicyOf(action(declared ? { retry: declared } : {}), 'rule');
    expect(policy.maxAttempts).toBe(maxAttempts);
    expect(delaysOf(policy)).toEqual(delays);
  });
});

/** A runner failure as the attempt pipeline records it (src/calls/outcome.ts). */
const runnerFailure = (code: string): AttemptEnd => ({
  kind: 'result',
  result: resultOfFailure({ ok: false, code, status: 0, message: code } as unknown as RunnerFailureResult),
});
const errorAnswer = (fields: { retryable?: boolean; retryAfterMs?: number } = {}): AttemptEnd => ({
  kind: 'result',
  result: {
    status: 'error',
    error: { code: 'app_call_failed', reason: 'error', message: 'vendor said no', ...fields },
  },
});
const ended = (result: AttemptResult): AttemptEnd => ({ kind: 'result', result });
const refused = (code: string): AttemptEnd => ({ kind: 'refused', code });

const policy = retryPolicyOf(action(), 'step'); // 3 attempts, 2000 then 4000 ms
const FAR = 10 ** 12;
/** The least time an attempt needs after the wait (here: a second). */
const MINIMUM_MS = 1_000;
const decide = (
  fields: Pick<Parameters<typeof decideRetry>[0], 'end' | 'idempotent' | 'attempt'> &
    Partial<Parameters<typeof decideRetry>[0]>,
) => decideRetry({ policy, now: 0, deadline: FAR, minimumMs: MINIMUM_MS, caller: 'step', ...fields });

describe('decideRetry: only failures another attempt may fix', () => {
  it.each<{ name: string; end: AttemptEnd; idempotent: boolean; retry: boolean; why?: RegExp }>([
    {
      name: 'every step and rule call carries a key: a non-idempotent action is retried too',
      end: errorAnswer({ retryable: true }),
      idempotent: false,
      retry: true,
    },
    {
      name: 'an error answer with retryable true',
      end: errorAnswer({ retryable: true }),
      idempotent: true,
      retry: true,
    },
    {
      name: 'a module that caught a transit failure and threw retryable is resent: the module judged it safe',
      end: errorAnswer({ retryable: true }),
      idempotent: false,
      retry: true,
    },
    {
      name: 'an error the app did not call retryable ends the step',
      end: errorAnswer({ retryable: false }),
      idempotent: true,
      retry: false,
      why: /did not call its error retryable/,
    },
    {
      name: 'an error answer without retryable is not retryable',
      end: errorAnswer(),
      idempotent: true,
      retry: false,
      why: /did not call its error retryable/,
    },
    {
      name: 'a timeout of an idempotent action',
      end: runnerFailure('timeout'),
      idempotent: true,
      retry: true,
    },
    {
      name: 'a timeout of a non-idempotent action ends the step (its requests may have gone out)',
      end: runnerFailure('timeout'),
      idempotent: false,
      retry: false,
      why: /timed out and the action is not idempotent/,
    },
    {
      name: 'an unreachable runner, idempotent action',
      end: runnerFailure('unreachable'),
      idempotent: true,
      retry: true,
    },
    {
      name: 'an unreachable runner, non-idempotent action ends the step',
      end: runnerFailure('unreachable'),
      idempotent: false,
      retry: false,
      why: /did not answer and the action is not idempotent/,
    },
    {
      name: 'the runner failing on its own (internal), idempotent',
      end: runnerFailure('internal'),
      idempotent: true,
      retry: true,
    },
    {
      name: 'the runner failing on its own (internal), non-idempotent ends the step',
      end: runnerFailure('internal'),
      idempotent: false,
      retry: false,
      why: /runner failed and the action is not idempotent/,
    },
    {
      name: 'a busy runner ran nothing: resent always',
      end: runnerFailure('busy'),
      idempotent: false,
      retry: true,
    },
    {
      name: 'a call no runner took (not_sent) ran nothing: resent always',
      end: runnerFailure('not_sent'),
      idempotent: false,
      retry: true,
    },
    {
      name: 'a module the runner could not fetch (module_unavailable) ran nothing: retried',
      end: runnerFailure('module_unavailable'),
      idempotent: false,
      retry: true,
    },
    ...['trapped', 'bad_output', 'module_not_found', 'invalid_module', 'missing_export'].map((code) => ({
      name: `a ${code} runner failure ends the step, even for an idempotent action`,
      end: runnerFailure(code),
      idempotent: true,
      retry: false,
      why: new RegExp(`failed \\(${code}\\), which another attempt cannot fix`),
    })),
    {
      name: 'an answer outside the contract ends the step',
      end: ended({ status: 'error', error: { code: 'app_call_failed', reason: 'contract', message: 'm' } }),
      idempotent: true,
      retry: false,
      why: /\(contract\)/,
    },
    {
      name: 'an output the schema refuses ends the step',
      end: ended({ status: 'error', error: { code: 'validation_error', reason: 'output', message: 'm' } }),
      idempotent: true,
      retry: false,
      why: /\(output\)/,
    },
    {
      name: 'retryable on anything but an error answer is not read',
      end: ended({
        status: 'error',
        error: { code: 'app_call_failed', reason: 'trapped', message: 'm', retryable: true },
      }),
      idempotent: true,
      retry: false,
    },
    {
      name: 'an error without a reason ends the step',
      end: ended({ status: 'error' }),
      idempotent: true,
      retry: false,
      why: /no reason given/,
    },
    {
      name: 'a success is not retried',
      end: ended({ status: 'success', output: {} }),
      idempotent: true,
      retry: false,
      why: /succeeded/,
    },
    {
      name: 'a pending answer is not retried',
      end: ended({ status: 'pending', externalId: 'x' }),
      idempotent: true,
      retry: false,
      why: /pending/,
    },
    ...[
      'validation_error',
      'unmappable_input',
      'unknown_install',
      'install_disabled',
      'install_not_configured',
      'app_blocked',
      'apps_unavailable',
      'app_quota_exceeded',
      'circuit_open',
    ].map((code) => ({
      name: `a refusal before the runner (${code}) ends the step`,
      end: refused(code),
      idempotent: true,
      retry: false,
      why: new RegExp(`refused \\(${code}\\)`),
    })),
  ])('$name', ({ end, idempotent, retry, why }) => {
    const decision = decide({ end, idempotent, attempt: 1 });
    expect(decision.retry).toBe(retry);
    if (why) expect(decision).toMatchObject({ retry: false, why: expect.stringMatching(why) });
  });
});

describe("decideRetry: attempts, delays and the step's deadline", () => {
  const retryable = errorAnswer({ retryable: true });
  it.each<{
    name: string;
    end?: AttemptEnd;
    attempt?: number;
    now?: number;
    deadline?: number;
    caller?: CallerKind;
    delayMs?: number;
    extensionMs?: number;
    why?: RegExp;
  }>([
    { name: "after attempt 1 the policy's first delay", delayMs: 2_000 },
    { name: "after attempt 2 the policy's second delay", attempt: 2, delayMs: 4_000 },
    { name: "never past the policy's attempts", attempt: 3, why: /all 3 attempts were used/ },
    { name: 'never past them even when counted beyond', attempt: 7, why: /all 3 attempts were used/ },
    {
      name: "delay: the larger of the policy's backoff and retryAfterMs (policy larger)",
      end: errorAnswer({ retryable: true, retryAfterMs: 500 }),
      delayMs: 2_000,
    },
    {
      name: "delay: the larger of the policy's backoff and retryAfterMs (wait larger)",
      end: errorAnswer({ retryable: true, retryAfterMs: 9_000 }),
      delayMs: 9_000,
      extensionMs: 7_000,
    },
    {
      name: "a retryable wait longer than the policy's delays the next attempt up to ten minutes",
      end: errorAnswer({ retryable: true, retryAfterMs: 3_600_000 }),
      delayMs: 600_000,
      extensionMs: 598_000,
    },
    {
      name: "a step's 2.5 minute deadline honours a vendor's 5 minute wait: the wait past the policy's extends it",
      end: errorAnswer({ retryable: true, retryAfterMs: 300_000 }),
      now: 0,
      deadline: 150_000,
      delayMs: 300_000,
      extensionMs: 298_000,
    },
    {
      name: 'an hour asked is waited as ten minutes, which extend the deadline by that less the policy’s 2 s',
      end: errorAnswer({ retryable: true, retryAfterMs: 3_600_000 }),
      now: 100_000,
      deadline: 150_000,
      delayMs: 600_000,
      extensionMs: 598_000,
    },
    {
      name: 'the extension covers the wait, not an attempt the policy’s time no longer leaves room for',
      end: errorAnswer({ retryable: true, retryAfterMs: 300_000 }),
      now: 0,
      deadline: 2_000 + MINIMUM_MS - 1,
      why: /could not end before the deadline/,
    },
    {
      name: "a rule's evaluation minute is firm: a vendor's 5 minute wait starts no attempt",
      end: errorAnswer({ retryable: true, retryAfterMs: 300_000 }),
      caller: 'rule',
      now: 0,
      deadline: 60_000,
      why: /could not end before the deadline/,
    },
    {
      name: "a rule's wait within the minute is waited, extending nothing",
      end: errorAnswer({ retryable: true, retryAfterMs: 30_000 }),
      caller: 'rule',
      now: 0,
      deadline: 60_000,
      delayMs: 30_000,
    },
    {
      name: 'a negative retryAfterMs asks nothing',
      end: errorAnswer({ retryable: true, retryAfterMs: -1 }),
      delayMs: 2_000,
    },
    {
      name: 'a NaN retryAfterMs asks nothing',
      end: errorAnswer({ retryable: true, retryAfterMs: Number.NaN }),
      delayMs: 2_000,
    },
    {
      name: 'an attempt that can end before the deadline is started (exactly the shortest attempt left)',
      now: 1_000,
      deadline: 1_000 + 2_000 + MINIMUM_MS,
      delayMs: 2_000,
    },
    {
      name: "an attempt that cannot end before the step's deadline is not started",
      now: 1_000,
      deadline: 1_000 + 2_000 + MINIMUM_MS - 1,
      why: /could not end before the deadline/,
    },
    { name: 'a deadline already passed starts no attempt', now: 200_000, deadline: 150_000, why: /deadline/ },
    {
      name: 'a final failure says so even on the last attempt (cause before count)',
      end: errorAnswer({ retryable: false }),
      attempt: 3,
      why: /did not call its error retryable/,
    },
  ])('$name', ({ end = retryable, attempt = 1, now = 0, deadline = FAR, caller = 'step', ...expected }) => {
    const decision = decide({ end, idempotent: false, attempt, now, deadline, caller });
    if (expected.delayMs !== undefined) {
      expect(decision).toEqual({
        retry: true,
        delayMs: expected.delayMs,
        deadlineExtensionMs: expected.extensionMs ?? 0,
      });
    } else {
      expect(decision).toMatchObject({ retry: false, why: expect.stringMatching(expected.why as RegExp) });
    }
  });

  it("the action's linear policy gives the delay after each attempt", () => {
    const linear = retryPolicyOf(action({ retry: { maxAttempts: 5, backoffMs: 1_000 } }), 'step');
    const delays = [1, 2, 3, 4].map((attempt) =>
      decide({ end: runnerFailure('busy'), idempotent: false, attempt, policy: linear }),
    );
    expect(delays).toEqual(
      [1_000, 2_000, 3_000, 4_000].map((delayMs) => ({ retry: true, delayMs, deadlineExtensionMs: 0 })),
    );
  });
});
