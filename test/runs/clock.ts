// A clock the test moves, for calls whose waits and deadlines would make a test slow or whose time must be
// exact: a wait advances it at once (and is kept, so a test reads the waits asked for), and a vendor
// double's answer may move it ("the vendor took 58 s"). Handed to a rule evaluation as its CallDriver's
// clock and sleep, and to the attempt as the clock its deadline is read against, so the whole call
// reads one time while the runner and the vendor run for real.
import type { AttemptDeps } from '../../src/calls/attempt.ts';
import { type Evaluation, type EvaluationRequest, evaluateRuleSet } from '../../src/runs/evaluation.ts';
import type { RunsStack } from './stack.ts';

export interface ManualClock {
  now(): number;
  /** Resolves at once, having moved the clock by `ms`. */
  sleep(ms: number): Promise<void>;
  /** Moves the clock to `at` (never back). */
  moveTo(at: number): void;
  /** Every wait asked for, in order. */
  readonly slept: number[];
}

export function manualClock(start = Date.now()): ManualClock {
  let time = start;
  const slept: number[] = [];
  return {
    now: () => time,
    sleep: async (ms) => {
      slept.push(ms);
      time += ms;
    },
    moveTo: (at) => {
      time = Math.max(time, at);
    },
    slept,
  };
}

/** The stack's attempt dependencies reading `clock`. */
export function attemptDepsOn(stack: RunsStack, clock: ManualClock): AttemptDeps {
  const { attempt } = stack.runtime;
  if (!attempt) throw new Error('the runs stack runs with apps on');
  return { ...attempt, now: clock.now };
}

/** Evaluates the tenant's published rule set `key` against `data` on `clock` (the real runner and vendors). */
export const evaluateOn = (
  stack: RunsStack,
  clock: ManualClock,
  request: Pick<EvaluationRequest, 'tenantId' | 'key'> & { data?: unknown },
): Promise<Evaluation> =>
  evaluateRuleSet(
    {
      database: stack.runtime.database,
      attempt: attemptDepsOn(stack, clock),
      now: clock.now,
      sleep: clock.sleep,
    },
    { data: {}, dryRun: false, subjectId: null, ...request },
  );
