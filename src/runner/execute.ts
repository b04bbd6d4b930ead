// One export call: a sandbox thread of its own, an instance no other call used bound to this call's host
// functions, the envelope in, the redacted and checked answer out.
import { randomUUID } from 'node:crypto';
import { storableText } from '../http/unstorable-text.ts';
import { drawSecretTag, type ExportName, tagConfig } from './envelope.ts';
import { RunnerFailure } from './errors.ts';
import {
  type CacheChange,
  type CacheEntry,
  type CallState,
  type LogLine,
  noUsage,
  type Usage,
} from './host/call-state.ts';
import type { HostBinding } from './host/refusal.ts';
import { functionExports, type ModuleStore } from './modules.ts';
import { Redactor } from './redaction.ts';
import type { SandboxPool } from './threads/sandbox-pool.ts';

export interface ExportRequest {
  exportName: Exclude<ExportName, 'manifest'>;
  sha256: string;
  call: { id: string; tenantId: string; callbackUrl?: string | null };
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  hosts: string[];
  /** null: cached values are unavailable to this call (every cache operation is refused). */
  cache: CacheEntry[] | null;
  documents: { token: string } | null;
  timeoutMs: number;
  /** The export's own fields: invoke { action, idempotencyKey, input }, webhook { request }, hand-off { externalId, returnUrl }. */
  fields: Record<string, unknown>;
}

/** A call's outcome as the runner answers it (and its client reads it). */
export interface ExportOutcome {
  answer: unknown;
  usage: Usage;
  logs: LogLine[];
  cacheChanges: CacheChange[];
  durationMs: number;
  warm: boolean;
}

/** A call's outcome as executeExport gives it: the answer still JSON text. */
export type ExecutedExport = Omit<ExportOutcome, 'answer'> & {
  /** Read, redacted and checked on the call's thread: the main thread neither parses nor serialises it. */
  answerJson: string;
};

export interface ExecuteDeps {
  modules: Pick<ModuleStore, 'get'>;
  sandbox: Pick<SandboxPool, 'run'>;
  apiInternalUrl: string;
  /** Builds the host functions of one call from its state (http_request needs the egress settings). */
  bind: (state: CallState) => HostBinding;
}

/** signal: aborted when the call ends (never, when none is given). */
export function newCallState(
  request: ExportRequest,
  apiInternalUrl: string,
  signal: AbortSignal = new AbortController().signal,
): CallState {
  const secretTag = drawSecretTag();
  const redactor = new Redactor();
  redactor.tag(secretTag);
  for (const [name, value] of Object.entries(request.secrets)) redactor.secret(name, value);
  for (const entry of request.cache ?? []) redactor.cached(entry.name, entry.value);
  return {
    callId: request.call.id || randomUUID(),
    tenantId: request.call.tenantId,
    secretTag,
    secrets: new Map(Object.entries(request.secrets)),
    hosts: request.hosts,
    redactor,
    usage: noUsage(),
    cache: request.cache ? new Map(request.cache.map((entry) => [entry.name, entry])) : null,
    cacheChanges: [],
    cacheSets: 0,
    deadline: Date.now() + request.timeoutMs,
    signal,
    documents: request.documents ? { token: request.documents.token, baseUrl: apiInternalUrl } : null,
  };
}

/**
 * Why a call's host work stops when the call ends: one reason for every call, where abort() without one
 * made a DOMException (and its stack) per call.
 */
const CALL_ENDED = new Error('the call ended');

export async function executeExport(deps: ExecuteDeps, request: ExportRequest): Promise<ExecutedExport> {
  const started = Date.now();
  const module = await deps.modules.get(request.sha256);
  // Read from the compiled module (once per module), so a missing export costs no instance.
  if (!functionExports(module.module).has(request.exportName)) {
    throw new RunnerFailure('missing_export', `the module does not export ${request.exportName}`);
  }
  const ended = new AbortController();
  const state = newCallState(request, deps.apiInternalUrl, ended.signal);
  const envelope = {
    call: {
      id: state.callId,
      tenantId: state.tenantId,
      ...(request.call.callbackUrl ? { callbackUrl: request.call.callbackUrl } : {}),
      secretTag: state.secretTag,
    },
    ...(request.exportName === 'invoke'
      ? { action: request.fields.action, idempotencyKey: request.fields.idempotencyKey ?? null }
      : {}),
    config: tagConfig(request.config, state.secretTag),
    ...withoutAction(request),
  };
  let ran: Awaited<ReturnType<SandboxPool['run']>>;
  try {
    ran = await deps.sandbox.run(module, {
      exportName: request.exportName,
      input: JSON.stringify(envelope),
      deadlineMs: state.deadline - Date.now(),
      binding: deps.bind(state),
      reading: {
        answer: request.exportName,
        secretTag: state.secretTag,
        secrets: Object.entries(request.secrets),
        redactions: state.redactor.takeNew(),
      },
      redactor: state.redactor,
      usage: state.usage,
    });
  } finally {
    // Host work still under way for this call (a request past the deadline) stops; its answer is dropped.
    ended.abort(CALL_ENDED);
  }
  const { result, warm } = ran;
  const details = { usage: state.usage };
  if (result.kind === 'timeout')
    throw new RunnerFailure('timeout', 'the call passed its deadline; its thread was terminated', details);
  if (result.kind === 'trapped' || result.kind === 'start_failed') {
    // The text was redacted, cut and made storable on the call's thread.
    const said = result.kind === 'trapped' ? 'the module trapped' : 'the module did not start';
    throw new RunnerFailure('trapped', storableText(`${said}: ${result.message}`.slice(0, 2000)), details);
  }
  if (result.kind === 'bad_output') throw new RunnerFailure('bad_output', result.message, details);
  return {
    answerJson: result.answer,
    usage: state.usage,
    logs: result.logs,
    cacheChanges: state.cacheChanges,
    durationMs: Date.now() - started,
    warm,
  };
}

function withoutAction(request: ExportRequest): Record<string, unknown> {
  if (request.exportName !== 'invoke') return request.fields;
  return { input: request.fields.input ?? null };
}

/**
 * The runner's answer to a call as JSON text: the answer's text goes in as the thread wrote it, so the
 * main thread neither parses nor serialises what the module answered (it is 1 MiB at most).
 */
export function outcomeJson({ answerJson, ...rest }: ExecutedExport): string {
  const others = JSON.stringify(rest);
  return `{"answer":${answerJson},${others.slice(1)}`;
}

/** The outcome with its answer parsed: for in-process callers (the SDK's test harness), not the runner. */
export function parsedOutcome({ answerJson, ...rest }: ExecutedExport): ExportOutcome {
  return { answer: JSON.parse(answerJson), ...rest };
}
