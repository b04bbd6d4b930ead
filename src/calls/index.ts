// The calls' front door: what other layers use of app calls (an attempt's pipeline, its records, the
// invocation listing, test calls, metering and quotas). Files outside src/calls import this file rather
// than the files behind it, so the attempt's steps can move without breaking runs and vendor sessions.
// Each group's comment stands apart (a blank line under it) so that sorting the exports keeps the groups.
//
// Importers that stay direct: src/db/schema.ts (gathers tables.ts for Drizzle), and the ops commands'
// month report and tenant quotas (a command loads only its own code: scripts/cli-build.js).

// The api: the invocation listing, the apps' health, metering reports and test calls.

export { appsHealthRoutes } from './health-routes.ts';
export { meteringRoutes } from './metering-routes.ts';
export { invocationRoutes } from './routes.ts';
export { testCallRoutes } from './test-call-routes.ts';

// Runs' steps and rules: one attempt, its retries and fallback, its capacity and the time it may take.

export { type AttemptDeps, type AttemptOptions, attemptDepsOf } from './attempt.ts';
export type { PendingStart } from './attempt-contract.ts';
export { AttemptSlots } from './attempt-slots.ts';
export { capacityWaitMs, minimumAttemptMs } from './attempt-time.ts';
export { callResolved, resolveCall } from './call-install.ts';
export { type FallbackReason, fallbackReason } from './fallback-rules.ts';
export { type InvocationContext, REDACTED, storable } from './invocations.ts';
export { type AttemptError, mayHaveRun, runnerTook } from './outcome.ts';
export {
  type AttemptEnd,
  type CallerKind,
  decideRetry,
  MIN_ATTEMPT_MS,
  type RetryOverride,
  retryPolicyOf,
  SINGLE_ATTEMPT,
} from './retry-rules.ts';

// Installs: the metering rows an install's writes reach through their port (the api wires it in).

export { installMeteringRecords } from './metering.ts';

// Vendor sessions: a webhook's or a hand-off's export, admitted, checked and metered as calls are.

export { openRequiredSecrets, outputCheckOf } from './admission.ts';
export { meterApart } from './metering.ts';
