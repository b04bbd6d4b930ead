// The runner's failures: codes and statuses from the platform's one table of error codes
// (http/error-codes.ts). Callers report them as the reason of app_call_failed.
import { RUNNER_FAILURES, type RunnerFailureCode } from '../http/error-codes.ts';

export { RUNNER_FAILURES, type RunnerFailureCode };

export class RunnerFailure extends Error {
  readonly status: number;
  constructor(
    readonly code: RunnerFailureCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = RUNNER_FAILURES[code];
  }
}
