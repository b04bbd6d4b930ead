// One attempt's pipeline (spec part 1 §4.8 "Order of an attempt"; DESIGN.md "Attempt pipeline"): the one
// function test calls — and, with the calls issue, workflow steps, app rules and fallbacks — go through,
// each with its own options. In order:
//   1. admission (admission.ts): enabled, not blocked, action, input, required secrets;
//   2. the install's circuit — steps, rules and fallbacks only (calls issue); a test call skips it;
//   3. quotas and budgets (quota-check.ts): 429 app_quota_exceeded, recorded and metered nowhere;
//   4. a due circuit trial's claim — calls issue;
//   5. cached values read, the call sent to the runner, the call's cache changes stored once it answers;
//   6. metering (and, for steps and rules, the invocation record — calls issue);
//   7–8. the circuit's move and the fallback — calls issue.
// Refusals in 1 and 3 throw the spec's errors; from 5 on, the attempt always ends in a result.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../audit/trail.ts';
import { signCallToken } from '../auth/call-token.ts';
import type { Database } from '../db/pool.ts';
import { readLiveCache, storeCacheChanges } from '../installs/cache.ts';
import { readsDocuments } from '../installs/capabilities.ts';
import type { InstallRow, VersionRow } from '../installs/view.ts';
import type { RunnerClient } from '../runner/client.ts';
import type { LogLine, Usage } from '../runner/host/call-state.ts';
import { admit } from './admission.ts';
import type { InvocationContext } from './invocations.ts';
import { meterCall } from './metering.ts';
import {
  type AttemptResult,
  charged,
  mayHaveRun,
  resultOfAnswer,
  resultOfFailure,
  usageOfFailure,
} from './outcome.ts';
import { checkQuotas } from './quota-check.ts';

export interface AttemptDeps {
  database: Database;
  runner: RunnerClient;
  /** SECRET_STORE_KEY: opens secrets and cached values; without it calls get no cache. */
  secretStoreKey: Buffer | null;
  cacheBudget: { entries: number; totalBytes: number };
  /** APP_CALL_TOKEN_SECRET: signs document tokens; without it no call reads documents. */
  callTokenSecret: string | null;
}

export interface AttemptCall {
  install: InstallRow;
  version: VersionRow;
  action: string;
  input: unknown;
  idempotencyKey: string | null;
  subjectId: string | null;
  /** The install's webhook URL, handed to the module for an asynchronous action's vendor. */
  callbackUrl: string | null;
  /** Whether the caller may have the call read documents (a test call: the caller holds documents:read). */
  mayReadDocuments: boolean;
  /** Cut to the time the step or rule has left; the action's timeoutMs when absent. */
  timeoutMs?: number;
}

export interface AttemptOptions {
  /** False for a test call, which runs enabled or not. */
  requireEnabled: boolean;
  /** Who the audit trail names for a quota's first refusal. */
  actor?: Actor;
  requestId?: string | null;
  /** A step's, rule's or fallback's attempt: what its invocation record names (test calls leave none). */
  record?: InvocationContext;
}

export interface AttemptOutcome extends AttemptResult {
  callId: string;
  durationMs: number;
  usage: Usage;
  logs: LogLine[];
  /** Whether the module ran, or may have: such an attempt is a call of its install, metered. */
  ran: boolean;
  /** The attempt's invocation record, when one was written. */
  invocationId?: string;
}

export async function runAttempt(
  deps: AttemptDeps,
  call: AttemptCall,
  options: AttemptOptions,
): Promise<AttemptOutcome> {
  const { install, version } = call;
  const admitted = await admit(deps.database.db, install, version, call, {
    requireEnabled: options.requireEnabled,
    secretStoreKey: deps.secretStoreKey,
  });
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
    ),
    key ? readLiveCache(deps.database.db, key, install) : null,
  ]);
  const callId = randomUUID();
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
    timeoutMs: call.timeoutMs ?? admitted.action.timeoutMs,
  });
  const durationMs = Math.round(performance.now() - started);

  let result: AttemptResult;
  let usage: Usage;
  let logs: LogLine[] = [];
  if (sent.ok) {
    // Whatever the module answered, what it changed in the cache is stored; nothing when the runner failed.
    if (key && cache && sent.value.cacheChanges.length > 0) {
      await storeCacheChanges(deps.database, key, install, cache, sent.value.cacheChanges, deps.cacheBudget);
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
  if (ran) {
    await meterCall(deps.database.db, {
      tenantId: install.tenantId,
      installId: install.id,
      installName: install.name,
      appName: install.appName,
      action: admitted.action.name,
      httpRequests: usage.httpRequests,
      charged: charged(result),
      price,
    });
  }
  return { ...result, callId, durationMs, usage, logs, ran };
}
