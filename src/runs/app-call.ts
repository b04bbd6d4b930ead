// One app call of a call_app step or an app rule (docs/runs.md "Idempotency keys, retries and the
// deadline"; docs/calls.md "Fallbacks"): attempts of the named
// install through the one attempt pipeline, retried per decideRetry; then, when that install refused
// with an open circuit or its vendor's outage outlasted the retries, the fallback install's attempts,
// under the same idempotency key, with its own admission, circuit, quotas, retries, secrets and hosts,
// and no fallback of its own. When both fail, the call ends with the first install's error, the
// fallback's in details.fallback.
//
// A call no runner took (busy, not_sent) spends no attempt: within the attempt, it waits for capacity
// (backing off with jitter, bounded by the deadline) and is sent again; nothing is recorded of it.
//
// How an attempt is run and a wait is waited is the caller's (CallDriver): a workflow checkpoints each
// attempt as a DBOS step and waits with DBOS.sleep; a rule evaluation calls and waits in place. So every
// attempt's answer is plain data, and the decisions between attempts are made from it alone (a workflow
// replayed after a crash makes the same ones, the deadline's extensions included).
import type { AttemptDeps, AttemptOptions, InvocationContext } from '../calls/index.ts';
import {
  type AttemptEnd,
  type CallerKind,
  callResolved,
  capacityWaitMs,
  decideRetry,
  type FallbackReason,
  fallbackReason,
  MIN_ATTEMPT_MS,
  minimumAttemptMs,
  resolveCall,
  retryPolicyOf,
  runnerTook,
  SINGLE_ATTEMPT,
} from '../calls/index.ts';
import { ApiError } from '../http/errors.ts';
import type { CircuitCount } from '../installs/index.ts';
import type { ActionDeclaration } from '../module/index.ts';
import { countFallback, msSince, recordAppCall } from '../telemetry/index.ts';
import { failedCallError, refusedCallError } from './call-error.ts';
import type { RetryOverride, RunError } from './model.ts';

/** Waits `ms` for a runner's capacity within an attempt (a driver bounding attempts frees its place meanwhile). */
export type CapacityWait = (ms: number) => Promise<void>;

export interface CallDriver {
  /** Runs one attempt; `name` is unique within the call (a workflow names its DBOS step with it). */
  attempt<T>(name: string, run: (waitForCapacity: CapacityWait) => Promise<T>): Promise<T>;
  sleep(ms: number): Promise<void>;
  now(): number;
  /** A draw in [0, 1) spreading the waits for capacity (Math.random by default). */
  random?(): number;
}

/** One install's part of the call: the install (name or alias), its action, the input built for it. */
export interface InstallPart {
  install: string;
  action: string;
  input: Record<string, unknown>;
  /** The mapping the input was built with: every attempt's admission checks it against `mappable`. */
  inputMapping?: Record<string, string>;
  /** The step's own retry (the named install's part only; a fallback follows its action's retry). */
  retry?: RetryOverride;
}

export interface AppCall {
  /** A step's call or a rule's: its default retry, and whether a vendor's longer wait extends the deadline. */
  caller: CallerKind;
  tenantId: string;
  subjectId: string | null;
  idempotencyKey: string;
  /**
   * Epoch ms by which every attempt, wait and the fallback must end; a step's is extended by the part of
   * a vendor's retryAfterMs beyond its policy's delay (retry-rules.ts).
   */
  deadline: number;
  /** Where the call is made from (its invocation records' run, step, rule set and rule). */
  origin: Omit<InvocationContext, 'attempt' | 'fallbackOf'>;
  named: InstallPart;
  fallback?: InstallPart;
  /**
   * A rule's: the refusal of an asynchronous action, which it cannot wait for (nothing is sent). A step
   * has none: its asynchronous action opens a vendor session (openSession) and the run waits.
   */
  asyncRefusal?(action: string): RunError;
  /** A step's: opens the vendor session of a pending answer, in the transaction of its record. */
  openSession?: AttemptOptions['openSession'];
  /** Told before each attempt, counting the fallback's on from the named install's (a step shows them). */
  onAttempt?(attempt: number): Promise<void>;
}

/** A vendor session an asynchronous action opened: the step's output comes with its webhook. */
export interface Waiting {
  sessionId: string;
  externalId: string;
}

export type AppCallEnd =
  | { ok: true; output: unknown; attempts: number; fallback: FallbackReason | null; waiting?: Waiting }
  | { ok: false; error: RunError; attempts: number };

/** What one attempt came to, as plain data: the call's output, a wait before the next, or its end. */
type AttemptAnswer =
  | { kind: 'success'; output: unknown; waiting?: Waiting }
  | { kind: 'retry'; delayMs: number; deadlineExtensionMs: number }
  | {
      kind: 'failed';
      error: RunError;
      installId: string | null;
      fallback: FallbackReason | null;
      /**
       * The fallback's first attempt, made in the same step when the named install's circuit refused:
       * a refusal sent nothing, so it needs no checkpoint (nor a step) of its own.
       */
      fallbackFirst?: AttemptAnswer;
    };

/** An attempt's answer before the runner's capacity is waited for: or no runner took it. */
type SentAnswer =
  | AttemptAnswer
  | { kind: 'not_taken'; error: RunError; installId: string; minimumMs: number };

type PartEnd =
  | { ok: true; output: unknown; waiting?: Waiting }
  | (Extract<AttemptAnswer, { kind: 'failed' }> & { ok: false });

/** The call, timed whole in service.app.call.duration. */
export async function callApp(deps: AttemptDeps, driver: CallDriver, call: AppCall): Promise<AppCallEnd> {
  const started = performance.now();
  try {
    return await callAppParts(deps, driver, call);
  } finally {
    recordAppCall(msSince(started));
  }
}

async function callAppParts(deps: AttemptDeps, driver: CallDriver, call: AppCall): Promise<AppCallEnd> {
  let attempts = 0;
  let deadline = call.deadline;
  const stoodFor = (installId: string) => ({ installId, name: call.named.install });
  /** One attempt as the driver's step (counted before it starts), handing over to the fallback at once. */
  const step = (part: InstallPart, name: string, n: number, fallbackOf: InvocationContext['fallbackOf']) => {
    attempts++;
    const counted = attempts;
    return driver.attempt(name, async (waitForCapacity): Promise<AttemptAnswer> => {
      await call.onAttempt?.(counted);
      const once = (p: InstallPart, i: number, of: InvocationContext['fallbackOf']) =>
        attemptTaken(deps, driver, { ...call, deadline }, p, i, of, waitForCapacity);
      const answer = await once(part, n, fallbackOf);
      const { fallback } = call;
      if (fallbackOf || !fallback || answer.kind !== 'failed' || answer.fallback !== 'circuit_open')
        return answer;
      if (answer.installId === null) return answer;
      await call.onAttempt?.(counted + 1);
      const fallbackFirst = await once(fallback, 1, stoodFor(answer.installId));
      return { ...answer, fallbackFirst };
    });
  };
  const attemptsOf = async (
    part: InstallPart,
    prefix: string,
    fallbackOf: InvocationContext['fallbackOf'],
    made: AttemptAnswer | undefined,
  ): Promise<PartEnd> => {
    for (let n = 1; ; n++) {
      const answer = n === 1 && made ? made : await step(part, `${prefix}${n}`, n, fallbackOf);
      if (answer.kind === 'success') return { ok: true, output: answer.output, waiting: answer.waiting };
      if (answer.kind === 'failed') return { ok: false, ...answer };
      deadline += answer.deadlineExtensionMs;
      await driver.sleep(answer.delayMs);
    }
  };
  const first = await attemptsOf(call.named, 'attempt:', null, undefined);
  if (first.ok) return { ok: true, output: first.output, attempts, fallback: null, ...waitingOf(first) };
  if (!call.fallback || first.fallback === null || first.installId === null) {
    return { ok: false, error: first.error, attempts };
  }
  if (first.fallbackFirst) attempts++;
  countFallback(first.fallback);
  const second = await attemptsOf(call.fallback, 'fallback:', stoodFor(first.installId), first.fallbackFirst);
  if (second.ok) {
    return { ok: true, output: second.output, attempts, fallback: first.fallback, ...waitingOf(second) };
  }
  const { install, action } = call.fallback;
  const details = {
    ...first.error.details,
    fallback: { install, action, code: second.error.code, message: second.error.message },
  };
  return { ok: false, error: { ...first.error, details }, attempts };
}

/**
 * One attempt of one install's part, sent again after a wait for capacity while no runner takes it (no
 * attempt spent, nothing recorded); when the deadline leaves no room for another wait, the call ends with
 * the runner's refusal (app_call_failed, details.reason busy or not_sent).
 */
async function attemptTaken(
  deps: AttemptDeps,
  driver: CallDriver,
  call: AppCall,
  part: InstallPart,
  n: number,
  fallbackOf: InvocationContext['fallbackOf'],
  waitForCapacity: CapacityWait,
): Promise<AttemptAnswer> {
  for (let waits = 0; ; waits++) {
    const answer = await attemptOnce(deps, driver, call, part, n, fallbackOf);
    if (answer.kind !== 'not_taken') return answer;
    const waitMs = capacityWaitMs({
      waits,
      random: (driver.random ?? Math.random)(),
      now: driver.now(),
      deadline: call.deadline,
      minimumMs: answer.minimumMs,
    });
    if (waitMs === null) {
      const error = {
        ...answer.error,
        message: `no runner took the call of ${part.install} ${part.action} before the deadline`,
      };
      return { kind: 'failed', error, installId: answer.installId, fallback: null };
    }
    await waitForCapacity(waitMs);
  }
}

/** One attempt of one install's part, and what follows it. */
async function attemptOnce(
  deps: AttemptDeps,
  driver: CallDriver,
  call: AppCall,
  part: InstallPart,
  n: number,
  fallbackOf: InvocationContext['fallbackOf'],
): Promise<SentAnswer> {
  let action: ActionDeclaration | null = null;
  let installId: string | null = null;
  let end: AttemptEnd;
  let counted: CircuitCount | null = null;
  let error: RunError;
  try {
    const resolved = await resolveCall(deps.database.db, call.tenantId, part.install, part.action);
    installId = resolved.install.id;
    action = resolved.action;
    if (action?.async && call.asyncRefusal)
      return { kind: 'failed', error: call.asyncRefusal(part.action), installId, fallback: null };
    const outcome = await callResolved(deps, resolved, {
      tenantId: call.tenantId,
      install: part.install,
      action: part.action,
      input: part.input,
      ...(part.inputMapping ? { inputMapping: part.inputMapping } : {}),
      idempotencyKey: call.idempotencyKey,
      subjectId: call.subjectId,
      deadline: call.deadline,
      record: { ...call.origin, attempt: n, fallbackOf },
      ...(call.openSession ? { openSession: call.openSession } : {}),
    });
    if (outcome.status === 'success') return { kind: 'success', output: outcome.output };
    if (outcome.status === 'pending' && outcome.sessionId && outcome.externalId !== undefined) {
      const waiting = { sessionId: outcome.sessionId, externalId: outcome.externalId };
      return { kind: 'success', output: null, waiting };
    }
    if (outcome.status === 'pending') {
      const error = call.asyncRefusal?.(part.action) ?? noSession(part.action);
      return { kind: 'failed', error, installId, fallback: null };
    }
    end = { kind: 'result', result: outcome };
    counted = outcome.counted;
    // Never the module's message (the vendor's reply): that stays in the invocation record.
    error = failedCallError(part, {
      code: outcome.error?.code ?? 'app_call_failed',
      reason: outcome.error?.reason ?? outcome.status,
    });
    if (outcome.error && !runnerTook(outcome.error.reason) && action) {
      return { kind: 'not_taken', error, installId, minimumMs: minimumAttemptMs(action.timeoutMs) };
    }
  } catch (thrown) {
    if (!(thrown instanceof ApiError)) throw thrown;
    end = { kind: 'refused', code: thrown.code };
    error = refusedCallError(part, thrown);
  }
  const idempotent = action?.idempotent ?? false;
  const now = driver.now();
  const policy = action ? retryPolicyOf(action, call.caller, part.retry) : SINGLE_ATTEMPT;
  const decision = decideRetry({
    end,
    idempotent,
    attempt: n,
    policy,
    now,
    deadline: call.deadline,
    minimumMs: action ? minimumAttemptMs(action.timeoutMs) : MIN_ATTEMPT_MS,
    caller: call.caller,
  });
  if (decision.retry) {
    return { kind: 'retry', delayMs: decision.delayMs, deadlineExtensionMs: decision.deadlineExtensionMs };
  }
  const fallback = fallbackOf
    ? null
    : fallbackReason({ end, counted, idempotent, now, deadline: call.deadline });
  return { kind: 'failed', error, installId, fallback };
}

const waitingOf = (end: { waiting?: Waiting }) => (end.waiting ? { waiting: end.waiting } : {});

/** A pending answer no session was opened for (a caller without openSession): it cannot be waited on. */
const noSession = (action: string): RunError => ({
  code: 'app_call_failed',
  message: `action ${action} answered pending; this call cannot wait for a vendor session`,
  details: { reason: 'async_not_supported' },
});
