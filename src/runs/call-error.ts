// How a failed app call reads wherever a run or a rule shows it — the run's error, the step's, the items
// of GET /workflow-runs, the workflow.run.failed audit record, an evaluated rule's error, a fallback's
// details.fallback (each names the install and action only, never what the vendor replied:
// docs/runs.md "A run's error"). Those are read without runs:context, so they carry the install, the action,
// the code and the reason, in the platform's words; what the vendor or the module said stays in the
// attempt's invocation record, readable with runs:context. Pure.
import type { AnyCode } from '../http/error-codes.ts';
import type { RunError } from './model.ts';

/** Which install (the name the call used) and action failed. */
export interface CalledAction {
  install: string;
  action: string;
}

/** What each reason of a failed attempt (outcome.ts; the runner's failure codes) means, in a sentence. */
const REASONS: Readonly<Record<string, string>> = {
  error: 'the app answered an error; its invocation record holds the reply',
  output: 'the app’s output does not match the action’s output schema',
  contract: 'the app answered what the action may not (pending when synchronous, ok when asynchronous)',
  external_id: 'another session of the install holds the external id the app answered',
  timeout: 'the call outlived its time',
  trapped: 'the module trapped',
  bad_output: 'the module answered something the module contract forbids',
  busy: 'the runner was at its concurrency limit',
  not_sent: 'no runner took the call',
  unreachable: 'the runner did not answer',
  module_unavailable: 'the runner could not fetch the module',
  module_not_found: 'the runner has no published module of that hash',
  internal: 'the runner failed',
};

/** A reason as the runner and outcome.ts spell them; anything else is not repeated. */
const REASON = /^[a-z_]{1,40}$/;

/** A failed attempt's result (an error answer, a timeout, a runner failure) as a run or rule shows it. */
export function failedCallError(called: CalledAction, failure: { code: AnyCode; reason: string }): RunError {
  const reason = REASON.test(failure.reason) ? failure.reason : 'unknown';
  const why = REASONS[reason] ?? 'the call failed';
  return {
    code: failure.code,
    message: `install ${called.install}, action ${called.action}: ${failure.code} (${reason}): ${why}`,
    details: { reason },
  };
}

/**
 * A refusal before the module ran (admission, circuit, quota: the platform's own error, whose message and
 * details are the platform's words) as a run or rule shows it, naming the install and action.
 */
export function refusedCallError(
  called: CalledAction,
  refusal: { code: AnyCode; message: string; details?: Record<string, unknown> },
): RunError {
  return {
    code: refusal.code,
    message: `install ${called.install}, action ${called.action}: ${refusal.code}: ${refusal.message}`,
    ...(refusal.details ? { details: refusal.details } : {}),
  };
}
