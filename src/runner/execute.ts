// One export call: a sandbox thread of its own, an instance no other call used bound to this call's host
// functions, the envelope in, the redacted and checked answer out.
import { randomUUID } from 'node:crypto';
import { storableText } from '../http/unstorable-text.ts';
import { drawSecretTag, type ExportName, readAnswer, tagConfig } from './envelope.ts';
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
import type { OutputBytes } from './threads/protocol.ts';
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

export interface ExportOutcome {
  answer: unknown;
  usage: Usage;
  logs: LogLine[];
  cacheChanges: CacheChange[];
  durationMs: number;
  warm: boolean;
}

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
    logs: [],
    cache: request.cache ? new Map(request.cache.map((entry) => [entry.name, entry])) : null,
    cacheChanges: [],
    cacheSets: 0,
    deadline: Date.now() + request.timeoutMs,
    signal,
    documents: request.documents ? { token: request.documents.token, baseUrl: apiInternalUrl } : null,
  };
}

export async function executeExport(deps: ExecuteDeps, request: ExportRequest): Promise<ExportOutcome> {
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
    });
  } finally {
    // Host work still under way for this call (a request past the deadline) stops; its answer is dropped.
    ended.abort();
  }
  const { result, warm } = ran;
  const details = { usage: state.usage };
  if (result.kind === 'timeout')
    throw new RunnerFailure('timeout', 'the call passed its deadline; its thread was terminated', details);
  if (result.kind === 'trapped' || result.kind === 'start_failed') {
    const said = result.kind === 'trapped' ? 'the module trapped' : 'the module did not start';
    throw new RunnerFailure(
      'trapped',
      storableText(`${said}: ${state.redactor.apply(result.message)}`.slice(0, 2000)),
      details,
    );
  }
  const answer = readAnswerWithUsage(request.exportName, result.output, state);
  return {
    answer,
    usage: state.usage,
    // Again at the end: a value registered after a line was logged (a cached value set later) goes too.
    // Text the module wrote, shown by test calls: storable like its answer (unstorable-text.ts).
    logs: state.logs.map((line) => ({ ...line, message: storableText(state.redactor.apply(line.message)) })),
    cacheChanges: state.cacheChanges,
    durationMs: Date.now() - started,
    warm,
  };
}

function withoutAction(request: ExportRequest): Record<string, unknown> {
  if (request.exportName !== 'invoke') return request.fields;
  return { input: request.fields.input ?? null };
}

function readAnswerWithUsage(
  exportName: ExportRequest['exportName'],
  output: OutputBytes,
  state: CallState,
): unknown {
  try {
    return readAnswer(exportName, output, state.redactor);
  } catch (error) {
    if (error instanceof RunnerFailure)
      throw new RunnerFailure(error.code, error.message, { usage: state.usage });
    throw error;
  }
}
