// The runner's failure codes and statuses (docs/module-contract.md). Callers map them to app_call_failed.
export const RUNNER_FAILURES = {
  unauthorized: 401,
  bad_request: 400,
  module_not_found: 404,
  invalid_module: 422,
  missing_export: 422,
  timeout: 504,
  trapped: 502,
  bad_output: 502,
  busy: 429,
  module_unavailable: 503,
  internal: 500,
} as const;

export type RunnerFailureCode = keyof typeof RUNNER_FAILURES;

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
