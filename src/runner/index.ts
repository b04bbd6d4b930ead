// The runner's front door: what other layers may use of the runner. Files outside src/runner import
// only this file, so the runner's inside (threads, host functions, egress) can change behind it. Each
// group's comment stands apart (a blank line under it) so that sorting the exports keeps the groups.

// The runner role, started from the deployment's settings (platform start, test and bench platforms).

export { startRunnerFromConfig } from './from-config.ts';

// The api's client of a runner, and what a call of a module answers besides its output.

export type {
  RunnerAnswer,
  RunnerClient,
  RunnerExportRequest,
  RunnerFailureResult,
  RunnerResult,
} from './client.ts';
export { RunnerFailure } from './errors.ts';
export { type CacheChange, type CacheEntry, type LogLine, noUsage, type Usage } from './host/call-state.ts';
export { createRunnerClient } from './runner-pool.ts';

// The check of an uploaded module (app build, the authors' test kit, bench).

export { type InspectionVerdict, inspectUpload } from './inspect.ts';

// What the runner enforces that an install's settings are checked against when they are saved: approved
// hosts, a secret's shortest redacted length, the limits of a cached value. The hand-off sends applicants
// only to pages the same host check passes (src/collections/handoff-rules.ts).

export { isIpLiteral } from '../net/addresses.ts';
export { checkTarget, isLocalhostName } from './egress/hosts.ts';
export { MAX_SETS_PER_CALL, MAX_TTL_SECONDS, MAX_VALUE_BYTES, MIN_VALUE_CHARS } from './host/cache.ts';
export { MIN_REDACTED_LENGTH } from './redaction.ts';

/**
 * The test-facing surface: packages/app-testing runs an author's module in the test process with these,
 * as the runner does: one export call at a time (executeExport) on a sandbox pool of its own, the real
 * host functions bound to each call's state, their requests sent through an agent pool, and a refusal
 * where a test switches a host function off.
 */

export type { EgressSettings } from './egress/context.ts';
export { AgentPool } from './egress/pool.ts';
export { type ExportRequest, executeExport, parsedOutcome } from './execute.ts';
export { aiFor } from './host/ai.ts';
export { bindHostFunctions } from './host/binding.ts';
export { httpRequestFor } from './host/http.ts';
export { refuse } from './host/refusal.ts';
export { SandboxPool } from './threads/sandbox-pool.ts';

// Inner steps that bench/ measures one at a time (runner-costs, module-compile, runner-neighbour).

export { drawSecretTag, tagConfig } from './envelope.ts';
export { REFUSING_BINDING } from './host/refusal.ts';
export { HOST_REQUEST_BYTES, MAX_HOST_REQUESTS } from './host/request-limits.ts';
export { type HostBridge, instantiate, runExport } from './threads/instance.js';
export { withSandbox } from './threads/sandbox-pool.ts';
export { readingWithoutSecrets } from './threads/thread-call.ts';
export { LONG_TASK_NICENESS } from './threads/thread-priority.ts';
