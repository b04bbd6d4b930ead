// One attempt's pipeline (docs/calls.md, the order of an attempt): the one
// function test calls, workflow steps, app rules and fallbacks go through, each with its own options. In
// order:
//   1. admission (admission.ts): enabled, not blocked, action, input, required secrets;
//   2. the install's circuit (installs/circuit/circuit-store.ts) — steps, rules and fallbacks
//      (options.circuit); a test call skips it. Read beside the admission, applied after it;
//   3. quotas and budgets (quota-check.ts): 429 app_quota_exceeded, recorded and metered nowhere;
//   4. a due half-open trial's claim (one conditional UPDATE; lost: 503 app_circuit_open);
//   5. cached values read (or opened, when read with the install: resolveCall), the call sent to the
//      runner, the call's cache changes stored once it answers;
//   6. metering and, for steps, rules and fallbacks (options.record), the invocation record, in one
//      transaction (invocations.ts); for a test call (options.audit), its audit record, in one statement;
//   7. the circuit's move, from how the attempt counted (outcome `counted`).
// The writes of 5 to 7 after the call are tried again while the database does not answer (db/outage.ts).
// Step 8, the fallback, follows the call's retries, so it lives with them (runs/app-call.ts).
// Refusals in 1 to 4 throw their API errors; from 5 on, the attempt always ends in a result. A refusal
// in 1 is recorded (when the attempt is) before it is thrown; refusals in 2 to 4 are recorded nowhere.
// An attempt the deadline leaves too little time for (attempt-time.ts) is refused before step 1 and again
// before step 4, recorded nowhere. A call no runner took (busy, not_sent) is recorded nowhere either: it
// ran nothing, and a step's or rule's call waits for capacity and sends it again (runs/app-call.ts).
import { randomUUID } from 'node:crypto';
import { signCallToken } from '../auth/call-token.ts';
import type { Config } from '../config.ts';
import { OUTAGE_POLICY, type OutagePolicy, whileDatabaseDown } from '../db/outage.ts';
import type { Database, Tx } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import {
  type CircuitGate,
  type CircuitSettings,
  circuitOpen,
  claimTrial,
  countOf,
  type InstallRow,
  liveCacheOrRead,
  moveCircuit,
  readGate,
  readsDocuments,
  settingsInForce,
  storeCacheChanges,
} from '../installs/index.ts';
import { type LogLine, noUsage, type RunnerClient, type Usage } from '../runner/index.ts';
import type { Span } from '../telemetry/index.ts';
import { uuidV7 } from '../uuid.ts';
import { type Admitted, admit } from './admission.ts';
import type { AttemptCall, AttemptOptions, AttemptOutcome } from './attempt-contract.ts';
import { noteAttempt } from './attempt-metrics.ts';
import { inAttemptSpan } from './attempt-span.ts';
import { attemptTimeMs, deadlineReached } from './attempt-time.ts';
import {
  type InvocationContext,
  type InvocationWrite,
  recordedError,
  recordInvocation,
} from './invocations.ts';
import { meterCall } from './metering.ts';
import {
  type AttemptError,
  type AttemptResult,
  charged,
  mayHaveRun,
  resultOfAnswer,
  resultOfFailure,
  runnerTook,
  usageOfFailure,
} from './outcome.ts';
import { checkQuotas } from './quota-check.ts';
import { writeRecord } from './record-write.ts';
import { writeAudited } from './test-call-write.ts';

export interface AttemptDeps {
  database: Database;
  runner: RunnerClient;
  /** SECRET_STORE_KEY: opens secrets and cached values; without it calls get no cache. */
  secretStoreKey: Buffer | null;
  cacheBudget: { entries: number; totalBytes: number };
  /** APP_CALL_TOKEN_SECRET: signs document tokens; without it no call reads documents. */
  callTokenSecret: string | null;
  /**
   * WEBHOOK_PUBLIC_URL, from which callInstall gives the module its install's callbackUrl; absent or
   * null: calls get none (an asynchronous action's vendor then has nowhere to call back).
   */
  webhookBase?: string | null;
  /** APP_CIRCUIT_FAILURE_THRESHOLD and APP_CIRCUIT_OPEN_SECONDS: an install's own settings override them. */
  circuitDefaults: CircuitSettings;
  /**
   * The clock a call's deadline is read against (the time it cuts an attempt to, the time left when the
   * attempt ended); Date.now by default. Tests hand in the one their CallDriver reads.
   */
  now?: () => number;
  /** How long the attempt's writes after its call are tried while the database is away; two minutes. */
  outage?: OutagePolicy;
}

/** The attempt's dependencies from the deployment's settings, the database and the runner. */
export function attemptDepsOf(config: Config, database: Database, runner: RunnerClient): AttemptDeps {
  return {
    database,
    runner,
    secretStoreKey: config.secretStoreKey,
    cacheBudget: config.cacheBudget,
    callTokenSecret: config.appCallTokenSecret,
    // Read when a call is made, not now: an embedded `--role all` stack learns its public address (the
    // api's) after the worker has built these.
    get webhookBase() {
      return config.webhookPublicUrl;
    },
    circuitDefaults: config.circuit,
  };
}

export type { AttemptCall, AttemptOptions, AttemptOutcome, PendingStart } from './attempt-contract.ts';

/** One attempt, as the `app.invoke` span of the caller's trace (attempt-span.ts). */
export const runAttempt = (deps: AttemptDeps, call: AttemptCall, options: AttemptOptions) =>
  inAttemptSpan(call, options, (span) => attemptPipeline(deps, call, options, span));

async function attemptPipeline(
  deps: AttemptDeps,
  call: AttemptCall,
  options: AttemptOptions,
  span: Span,
): Promise<AttemptOutcome> {
  const { install, version } = call;
  const now = deps.now ?? Date.now;
  const declared = version.manifest.actions.find((a) => a.name === call.action);
  if (declared) timeFor(install, declared, call.deadline, now());
  const circuit = options.circuit ? settingsInForce(install, deps.circuitDefaults) : null;
  // Step 2 is read beside step 1 but applied after it: an admission refusal comes first, and is recorded.
  const gating = circuit ? readGate(deps.database.db, install.id, circuit, call.circuit) : null;
  gating?.catch(() => undefined);
  const admitted = await admitRecorded(deps, call, options);
  const gate: CircuitGate | null = gating ? await gating : null;
  if (gate?.kind === 'refused') throw circuitOpen(install, gate);
  const key = deps.secretStoreKey;
  // The cached values are read beside the quota check (both only read): a refused attempt drops them.
  const [price, cache] = await Promise.all([
    checkQuotas(
      deps.database,
      {
        tenantId: install.tenantId,
        installId: install.id,
        installName: install.name,
        appName: install.appName,
        action: admitted.action.name,
      },
      { actor: options.actor, requestId: options.requestId ?? null },
      call.limits,
    ),
    key ? liveCacheOrRead(deps.database.db, key, call.install, call.cache) : null,
  ]);
  // Checked again after the reads of steps 1 to 3, before a trial is claimed: they took time too.
  const timeoutMs = timeFor(install, admitted.action, call.deadline, now());
  const trialId = gate?.kind === 'trial_due' && circuit ? await claimedTrial(deps, install, circuit) : null;
  const callId = randomUUID();
  span.setAttribute('app.call_id', callId);
  const documents =
    call.mayReadDocuments && deps.callTokenSecret && readsDocuments(version.manifest, install.config)
      ? {
          token: await signCallToken(deps.callTokenSecret, {
            tenantId: install.tenantId,
            callId,
            subjectId: call.subjectId,
          }),
        }
      : null;
  const started = performance.now();
  const sent = await deps.runner.invoke({
    module: { sha256: version.sha256 },
    call: { id: callId, tenantId: install.tenantId, callbackUrl: call.callbackUrl },
    action: admitted.action.name,
    idempotencyKey: call.idempotencyKey,
    input: call.input,
    config: install.config,
    secrets: admitted.secrets,
    hosts: install.hosts,
    cache: cache?.entries ?? null,
    documents,
    timeoutMs,
  });
  const durationMs = Math.round(performance.now() - started);
  // The call went out: what it did is written even when the database is away a while (db/outage.ts),
  // and it is never sent again for that.
  const afterSend = <T>(work: () => Promise<T>) => whileDatabaseDown(work, deps.outage ?? OUTAGE_POLICY);

  let result: AttemptResult;
  let usage: Usage;
  let logs: LogLine[] = [];
  if (sent.ok) {
    // Whatever the module answered, what it changed in the cache is stored; nothing when the runner failed.
    if (key && cache && sent.value.cacheChanges.length > 0) {
      const changes = sent.value.cacheChanges;
      await afterSend(() => storeCacheChanges(deps.database, key, install, cache, changes, deps.cacheBudget));
    }
    result = resultOfAnswer(admitted.action, sent.value.answer, (output) =>
      admitted.checkOutput(output) ? null : (admitted.checkOutput.errors ?? []),
    );
    usage = sent.value.usage;
    logs = sent.value.logs;
  } else {
    result = resultOfFailure(sent);
    usage = usageOfFailure(sent);
  }
  const ran = sent.ok || mayHaveRun(sent.code);
  const taken = sent.ok || runnerTook(sent.code);
  const metered = {
    tenantId: install.tenantId,
    installId: install.id,
    installName: install.name,
    appName: install.appName,
    action: admitted.action.name,
    httpRequests: usage.httpRequests,
    charged: charged(result),
    price,
  };
  const record = taken ? options.record : undefined;
  let invocationId: string | undefined;
  let sessionId: string | undefined;
  if (record) {
    const id = randomUUID();
    const answered = result;
    const recordedAs = (final: AttemptResult) =>
      recordOf(call, record, {
        status: final.status,
        ...(final.status === 'success' ? { output: final.output } : {}),
        error: final.error ? recordedError(final.error) : null,
        durationMs,
        usage,
      });
    if (!opensSession(options, answered)) {
      // The record and its metering in one statement (record-write.ts); a try after a lost commit finds it.
      const meteredAs = ran ? { ...metered, charged: charged(answered) } : null;
      await afterSend(() => writeRecord(deps.database.db, { ...recordedAs(answered), id }, meteredAs));
    } else {
      // The record, the metering and the pending answer's session stand or fall together; a try after a
      // lost commit finds the record (and the session its run step opened).
      const written = await afterSend(() =>
        deps.database.db.transaction(async (tx) => {
          const opened = await sessionOf(tx, options, call, admitted.action.name, answered);
          const final =
            opened && 'error' in opened ? { status: 'error' as const, error: opened.error } : answered;
          if ((await recordInvocation(tx, { ...recordedAs(final), id })) !== null && ran) {
            await meterCall(tx, { ...metered, charged: charged(final) });
          }
          return { final, sessionId: opened && 'sessionId' in opened ? opened.sessionId : undefined };
        }),
      );
      result = written.final;
      sessionId = written.sessionId;
    }
    invocationId = id;
  } else if (options.audit) {
    // Not recorded (a test call): audited and metered in one statement under an id chosen now, which a
    // try after a lost commit finds (test-call-write.ts).
    const entry = {
      ...options.audit({ ...result, callId, durationMs, usage }),
      publicId: uuidV7(Date.now()),
    };
    await afterSend(() => writeAudited(deps.database.db, entry, ran ? metered : null));
  } else if (ran) {
    await afterSend(() => meterCall(deps.database.db, metered));
  }
  if (taken) noteAttempt(deps.database.db, install, admitted.action.name, result.status, durationMs);
  const counted = countOf({
    status: result.status,
    ...(result.error ? { reason: result.error.reason } : {}),
    ...(result.error?.retryable !== undefined ? { retryable: result.error.retryable } : {}),
    timeoutMs,
    actionTimeoutMs: admitted.action.timeoutMs,
    msLeftAtEnd: call.deadline === undefined ? null : call.deadline - now(),
  });
  if (circuit && gate) {
    await afterSend(() => moveCircuit(deps.database, { install, settings: circuit }, counted, trialId, gate));
  }
  return {
    ...result,
    callId,
    durationMs,
    usage,
    logs,
    ran,
    counted,
    ...(invocationId ? { invocationId } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
}

/** A pending answer the caller opens a vendor session for (in the transaction of its record). */
const opensSession = (options: AttemptOptions, result: AttemptResult) =>
  result.status === 'pending' && options.openSession !== undefined && result.externalId !== undefined;

/** A pending answer's session, opened through the caller's hook; null: no session to open. */
function sessionOf(
  tx: Tx,
  options: AttemptOptions,
  call: AttemptCall,
  action: string,
  result: AttemptResult,
): Promise<{ sessionId: string } | { error: AttemptError }> | null {
  if (result.status !== 'pending' || !options.openSession || result.externalId === undefined) return null;
  return options.openSession(tx, {
    install: call.install,
    version: call.version,
    action,
    externalId: result.externalId,
    callbackTimeoutSeconds: result.callbackTimeoutSeconds ?? 1,
  });
}

/** The attempt's time: the action's, cut to what the deadline leaves; too little left refuses the attempt. */
function timeFor(
  install: InstallRow,
  action: { name: string; timeoutMs: number },
  deadline: number | undefined,
  now: number,
): number {
  const time = attemptTimeMs(action.timeoutMs, deadline, now);
  if (time === null) throw deadlineReached(install.name, action.name, action.timeoutMs);
  return time;
}

/** Step 4: the half-open trial's id once this attempt has claimed it; another attempt has it: 503. */
async function claimedTrial(deps: AttemptDeps, install: InstallRow, settings: CircuitSettings) {
  const trialId = randomUUID();
  if (await claimTrial(deps.database.db, install.id, settings, trialId)) return trialId;
  throw circuitOpen(install, { state: 'half_open' });
}

/** Step 1, admission: a refusal (an ApiError) of a recorded attempt is recorded, then thrown. */
async function admitRecorded(
  deps: AttemptDeps,
  call: AttemptCall,
  options: AttemptOptions,
): Promise<Admitted> {
  try {
    return await admit(deps.database.db, call.install, call.version, call, {
      requireEnabled: options.requireEnabled,
      secretStoreKey: deps.secretStoreKey,
    });
  } catch (error) {
    if (options.record && error instanceof ApiError) {
      await recordInvocation(
        deps.database.db,
        recordOf(call, options.record, {
          status: 'error',
          error: { code: error.code, message: error.message },
          durationMs: 0,
          usage: noUsage(),
        }),
      );
    }
    throw error;
  }
}

/** The record of an attempt of `call`, made from `context`, that came to `result`. */
const recordOf = (
  call: AttemptCall,
  context: InvocationContext,
  result: Pick<InvocationWrite, 'status' | 'output' | 'error' | 'durationMs' | 'usage'>,
): InvocationWrite => ({
  install: call.install,
  calledAs: call.calledAs ?? call.install.name,
  version: call.version,
  action: call.action,
  subjectId: call.subjectId,
  idempotencyKey: call.idempotencyKey,
  input: call.input,
  context,
  ...result,
});
