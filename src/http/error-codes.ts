// Every error code the platform answers, in one table: the API's answers, the runner's failures (which
// callers report as the reason of app_call_failed), and what a run's or a step's error may say. An error
// is built from a key of this table only (ApiError, RunError), so a typo is a type error rather than a
// new public code; docs/errors.md shows the same table, and test/http/error-codes.test.ts keeps the two
// and the routes' declared answers in step.

/**
 * Where a code is answered: by the API; by the runner to its callers; by the API's and worker's client
 * of the runner when no answer came (`transport`); in a run's or a step's error.
 */
export type Surface = 'api' | 'runner' | 'transport' | 'run';

export interface CodeEntry {
  /** The HTTP status it is answered with; null when no HTTP answer carries it (a run's error, a transport failure). */
  status: number | null;
  where: readonly Surface[];
  meaning: string;
}

const API = ['api'] as const;
const API_AND_RUN = ['api', 'run'] as const;
const RUNNER = ['runner'] as const;

export const ERROR_CODES = {
  validation_error: {
    status: 400,
    where: API_AND_RUN,
    meaning: 'the request (or a call’s input or output) is not valid; details.issues give each path at fault',
  },
  bad_request: {
    status: 400,
    where: ['api', 'runner'],
    meaning: 'the request could not be processed as sent (the runner: it does not match its contract)',
  },
  missing_external_id: {
    status: 400,
    where: API,
    meaning:
      'a vendor webhook carries no external id where the install reads it (?externalId=, or the source its version or config names)',
  },
  unauthorized: {
    status: 401,
    where: ['api', 'runner'],
    meaning: 'no valid bearer token',
  },
  webhook_rejected: {
    status: 401,
    where: API,
    meaning: 'the app refused the vendor webhook (its signature check), or the event names another session',
  },
  forbidden: { status: 403, where: API, meaning: 'the token lacks the permission the route needs' },
  four_eyes: {
    status: 403,
    where: API,
    meaning:
      'under four-eyes, the requester tried to approve their own request or change (or reject their own definition approval request)',
  },
  not_requester: {
    status: 403,
    where: API,
    meaning: 'withdrawing another person’s change or definition approval request needs tenants:settings',
  },
  not_found: { status: 404, where: API, meaning: 'no such resource for this tenant (or no such route)' },
  unknown_install: {
    status: 404,
    where: API_AND_RUN,
    meaning:
      'no install of that name (details.renamedTo names the install a former name moved to), or of the id in a webhook URL',
  },
  method_not_allowed: {
    status: 405,
    where: API,
    meaning: 'the path exists, not with this method; the Allow header lists those it takes',
  },
  conflict: {
    status: 409,
    where: API,
    meaning: 'the resource is not in the state the request needs (taken name and version, decided request…)',
  },
  idempotency_conflict: {
    status: 409,
    where: API,
    meaning: 'the Idempotency-Key started a run with another request within its window; send a new key',
  },
  definition_key_taken: {
    status: 409,
    where: API,
    meaning: 'a workflow definition or rule set with that key already exists',
  },
  install_name_taken: {
    status: 409,
    where: API,
    meaning: 'the name is another install’s or a former name one keeps (details.name, details.aliasOf)',
  },
  alias_limit_reached: {
    status: 409,
    where: API,
    meaning: 'the install already keeps its most former names (details.max)',
  },
  alias_in_use: {
    status: 409,
    where: API,
    meaning: 'definitions or runs still call the former name being removed (details.definitions, runs)',
  },
  install_limit_reached: {
    status: 409,
    where: API,
    meaning: 'the tenant has its most installs (details.max)',
  },
  install_not_configured: {
    status: 409,
    where: API_AND_RUN,
    meaning:
      'the install is disabled or a required secret has no value (details.missingSecrets); enabling it waits for them',
  },
  hosts_not_approved: {
    status: 409,
    where: API,
    meaning: 'a save adds hosts approveHosts does not list (details.added)',
  },
  install_changed: {
    status: 409,
    where: API,
    meaning: 'the install changed since the change being approved was asked (details.changeId)',
  },
  install_in_use: {
    status: 409,
    where: API,
    meaning: 'definitions or runs still call the install being renamed without an alias or removed',
  },
  app_blocked: {
    status: 409,
    where: API_AND_RUN,
    meaning: 'the module is blocked (details.sha256, details.reason; none on a vendor webhook)',
  },
  provenance_required: {
    status: 409,
    where: API,
    meaning:
      'APP_SIGNATURES is required and the version has no trusted signer (details.reason unsigned or untrusted); the operator’s review approve answers it too',
  },
  provenance_invalid: {
    status: 400,
    where: API,
    meaning:
      'the bundle does not prove the module (details.reason malformed, unsupported, digest_mismatch or signature)',
  },
  provenance_locked: {
    status: 409,
    where: API,
    meaning:
      'attaching a bundle to a published or withdrawn version, or one with an open publish request or review (details.reason)',
  },
  provenance_unavailable: {
    status: 503,
    where: API,
    meaning:
      'a trusted root (APP_TRANSPARENCY_TRUSTED_ROOTS, or the public-good root over TUF) could not be loaded',
  },
  signatures_off: {
    status: 404,
    where: API,
    meaning: 'attaching a bundle while APP_SIGNATURES is off',
  },
  handoff_unavailable: {
    status: 409,
    where: API,
    meaning:
      'the applicant cannot be handed off now: submission not sent, no eligible vendor session, apps off, or no return address',
  },
  payload_too_large: { status: 413, where: API, meaning: 'the body is larger than the route takes' },
  unsupported_media_type: {
    status: 415,
    where: API,
    meaning: 'the body is not of the type the route takes',
  },
  rate_limited: {
    status: 429,
    where: API,
    meaning: 'the caller is over its rate limit; Retry-After and details.retryAfterSeconds say when to retry',
  },
  app_quota_exceeded: {
    status: 429,
    where: API_AND_RUN,
    meaning: 'a quota or budget is used up (details.scope, metric, period, max, used, resetsAt…)',
  },
  internal: {
    status: 500,
    where: ['api', 'runner', 'run'],
    meaning:
      'an unexpected failure; the runner’s is retried; a run’s says why in details.reason, never with run data',
  },
  app_call_failed: {
    status: 502,
    where: API_AND_RUN,
    meaning:
      'the app answered an error or the runner failed; details.reason names which (the runner’s codes)',
  },
  handoff_failed: {
    status: 502,
    where: API,
    meaning:
      'the hand-off’s runner or module failed, a required secret has no value, or the page is not one applicants are sent to (details.reason)',
  },
  app_webhook_failed: {
    status: 502,
    where: API,
    meaning:
      'the app or the runner failed on a vendor webhook, or the app could not be run (apps off, its secrets missing or no secret store key); details.reason names which (the runner’s codes, error, output, apps_unavailable, missing_secrets, secret_store_unavailable)',
  },
  apps_unavailable: {
    status: 503,
    where: API_AND_RUN,
    meaning: 'the deployment has no app runner or no module storage',
  },
  documents_unavailable: {
    status: 503,
    where: API,
    meaning: 'the deployment has no object storage for documents (MODULE_STORAGE=off)',
  },
  app_circuit_open: {
    status: 503,
    where: API_AND_RUN,
    meaning:
      'the install’s circuit is open, or half-open with its trial out (details.install); nothing was sent',
  },
  secret_store_unavailable: {
    status: 503,
    where: API_AND_RUN,
    meaning: 'the deployment has no secret store key (SECRET_STORE_KEY)',
  },
  service_unavailable: {
    status: 503,
    where: API,
    meaning: 'the platform’s database is not answering; the request may succeed shortly',
  },
  module_not_found: {
    status: 404,
    where: RUNNER,
    meaning: 'the runner has no published module of that hash (or it is blocked)',
  },
  invalid_module: {
    status: 422,
    where: RUNNER,
    meaning: 'the bytes are not a runnable module, or its manifest is bad',
  },
  missing_export: { status: 422, where: RUNNER, meaning: 'the export is not declared or absent' },
  timeout: { status: 504, where: RUNNER, meaning: 'the call passed its deadline; its thread was ended' },
  trapped: { status: 502, where: RUNNER, meaning: 'the module trapped or threw' },
  bad_output: { status: 502, where: RUNNER, meaning: 'the module answered something the contract forbids' },
  busy: {
    status: 429,
    where: RUNNER,
    meaning: 'the runner or the tenant is at its concurrency limit; the call waits and is sent again',
  },
  module_unavailable: {
    status: 503,
    where: RUNNER,
    meaning: 'the runner could not fetch the module; retried',
  },
  not_sent: {
    status: null,
    where: ['transport'],
    meaning: 'no runner took the call: nothing was written to a connection; retried',
  },
  unreachable: {
    status: null,
    where: ['transport'],
    meaning: 'the call was on its way and the runner did not answer; only an idempotent action is retried',
  },
  run_cancelled: {
    status: null,
    where: ['run'],
    meaning: 'the run was cancelled (the message names by whom)',
  },
  output_too_large: {
    status: null,
    where: ['run'],
    meaning: 'a step’s output or the run’s context would pass its bound; the step fails, nothing is written',
  },
  AppCallbackFailed: {
    status: null,
    where: ['run'],
    meaning: 'the vendor’s webhook reported the session failed (the error names install and action only)',
  },
  CallbackTimeout: {
    status: null,
    where: ['run'],
    meaning: 'no webhook settled the vendor session within the run’s wait',
  },
  install_removed: {
    status: null,
    where: ['run'],
    meaning: 'the install was removed with force=true while the run waited on its vendor session',
  },
  orphaned: {
    status: null,
    where: ['run'],
    meaning: 'the retention sweep timed out a vendor session still pending eight days after it started',
  },
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]['status'];

/** The runner's failure codes, answered by the runner with their status; callers report them as reasons. */
export type RunnerFailureCode = {
  [C in ErrorCode]: 'runner' extends (typeof ERROR_CODES)[C]['where'][number] ? C : never;
}[ErrorCode];
export type RunnerTransportCode = {
  [C in ErrorCode]: 'transport' extends (typeof ERROR_CODES)[C]['where'][number] ? C : never;
}[ErrorCode];

/** The codes answered where any of `surfaces` says. */
const codesOf = (...surfaces: Surface[]): ErrorCode[] =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) =>
    (ERROR_CODES[code].where as readonly Surface[]).some((where) => surfaces.includes(where)),
  );

/** Each runner failure code and its status. */
export const RUNNER_FAILURES = Object.fromEntries(
  codesOf('runner').map((code) => [code, ERROR_CODES[code].status]),
) as { readonly [C in RunnerFailureCode]: StatusOf<C> };

/** An upload the runner failed to inspect answers 502 with the runner's code prefixed: runner_<code>. */
export type RunnerRelayCode = `runner_${RunnerFailureCode | RunnerTransportCode}`;
const RUNNER_RELAY_STATUS = 502;

/** Every runner_<code>, for the upload route's declaration. */
export const RUNNER_RELAY_CODES = codesOf('runner', 'transport').map(
  (code) => `runner_${code}` as RunnerRelayCode,
);

/** The codes an HTTP answer carries: those with a status of their own, and the runner_<code> family. */
export type ApiCode =
  | { [C in ErrorCode]: StatusOf<C> extends number ? C : never }[ErrorCode]
  | RunnerRelayCode;

/** Any code of the catalogue, the runner_<code> family included. */
export type AnyCode = ErrorCode | RunnerRelayCode;

export const isRunnerRelay = (code: string): code is RunnerRelayCode => code.startsWith('runner_');

export const statusOf = (code: ApiCode): number =>
  isRunnerRelay(code) ? RUNNER_RELAY_STATUS : ERROR_CODES[code].status;

export const meaningOf = (code: ApiCode): string =>
  isRunnerRelay(code) ? 'the runner failed while inspecting the upload' : ERROR_CODES[code].meaning;
