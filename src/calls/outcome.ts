// What one attempt came to (a record's status; docs/calls.md, the order of an attempt): pure
// rules from the runner's result to success / pending / error / timeout, and whether the module ran.
import type { ErrorObject } from 'ajv';
import { issuesUnder } from '../http/errors.ts';
import type { ActionDeclaration } from '../module/index.ts';
import { noUsage, type RunnerFailureResult, type Usage } from '../runner/index.ts';

export type AttemptStatus = 'success' | 'pending' | 'error' | 'timeout';

export interface AttemptError {
  /** app_call_failed for a module's error answer and runner failures; validation_error for bad output. */
  code: 'app_call_failed' | 'validation_error';
  /**
   * Why: `error` (the module answered an error), `contract` (an answer the action may not give), or the
   * runner's failure code (timeout, trapped, bad_output, busy, not_sent, unreachable, internal, …).
   */
  reason: string;
  message: string;
  retryable?: boolean;
  retryAfterMs?: number;
  details?: Record<string, unknown>;
}

export interface AttemptResult {
  status: AttemptStatus;
  output?: unknown;
  externalId?: string;
  callbackTimeoutSeconds?: number;
  error?: AttemptError;
}

/** Failures after which the module may have run (and so the attempt is a call: metered). */
const MAY_HAVE_RUN: ReadonlySet<string> = new Set([
  'timeout',
  'trapped',
  'bad_output',
  'internal',
  'unreachable',
]);

/** Whether the module ran, or may have, for a runner failure code (not_sent, busy and the like: it did not). */
export const mayHaveRun = (failureCode: string): boolean => MAY_HAVE_RUN.has(failureCode);

/**
 * Failures of a call no runner took: the runner was at its concurrency limit (busy) or
 * was not reached before anything was sent (not_sent). Nothing ran: such a call is no call of its install
 * (not recorded, metered or counted by the circuit), and a step's or rule's call waits for capacity.
 */
const NOT_TAKEN: ReadonlySet<string> = new Set(['busy', 'not_sent']);

/** Whether a runner took the call, for a runner failure code (busy and not_sent: none did). */
export const runnerTook = (failureCode: string): boolean => !NOT_TAKEN.has(failureCode);

type OutputCheck = (output: unknown) => ErrorObject[] | null;

/**
 * The result of a module's checked answer for an action: ok → success (its output valid against the
 * action's output schema), pending → pending (only for an asynchronous action), error → error.
 */
export function resultOfAnswer(
  action: ActionDeclaration,
  answer: unknown,
  checkOutput: OutputCheck,
): AttemptResult {
  const a = answer as { status: string } & Record<string, unknown>;
  if (a.status === 'error') {
    return {
      status: 'error',
      error: {
        code: 'app_call_failed',
        reason: 'error',
        message: String(a.message),
        ...(typeof a.retryable === 'boolean' ? { retryable: a.retryable } : {}),
        ...(typeof a.retryAfterMs === 'number' ? { retryAfterMs: a.retryAfterMs } : {}),
      },
    };
  }
  if (a.status === 'pending') {
    if (!action.async)
      return contractError(`action ${action.name} is synchronous; it may not answer pending`);
    return {
      status: 'pending',
      externalId: String(a.externalId),
      // The answer may ask for a shorter wait, never a longer one than the action declares.
      callbackTimeoutSeconds:
        typeof a.callbackTimeoutSeconds === 'number'
          ? Math.min(a.callbackTimeoutSeconds, action.async.callbackTimeoutSeconds)
          : action.async.callbackTimeoutSeconds,
    };
  }
  if (action.async) return contractError(`action ${action.name} is asynchronous; it answers pending`);
  const errors = checkOutput(a.output);
  if (errors) {
    return {
      status: 'error',
      error: {
        code: 'validation_error',
        reason: 'output',
        message: `the output does not match action ${action.name}'s output schema`,
        details: { issues: issuesUnder('/output', errors) },
      },
    };
  }
  return { status: 'success', output: a.output };
}

const contractError = (message: string): AttemptResult => ({
  status: 'error',
  error: { code: 'app_call_failed', reason: 'contract', message },
});

/** The result of a runner failure: timeout, or an error naming the failure as its reason. */
export function resultOfFailure(failure: RunnerFailureResult): AttemptResult {
  return {
    status: failure.code === 'timeout' ? 'timeout' : 'error',
    error: { code: 'app_call_failed', reason: failure.code, message: failure.message },
  };
}

/** The usage a runner failure reports (details.usage), or none. */
export function usageOfFailure(failure: RunnerFailureResult): Usage {
  const details = 'details' in failure ? failure.details : undefined;
  const usage = details?.usage as Usage | undefined;
  return usage && typeof usage.httpRequests === 'number' ? usage : noUsage();
}

/** Whether the attempt is charged the action's price: it succeeded or started asynchronous work. */
export const charged = (result: AttemptResult): boolean =>
  result.status === 'success' || result.status === 'pending';
