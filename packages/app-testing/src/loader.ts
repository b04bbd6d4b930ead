// The test loader: runs a built module through the platform's own runner code (inspection, a fresh
// sandboxed instance per call, the real host functions, envelopes, deadlines, redaction) with an
// install's config, secrets, hosts, documents and cache held in the test process.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import {
  capMemory,
  MANIFEST_LIMITS,
  type Manifest,
  PAGES_PER_MIB,
  pointerTokens,
} from '../../../src/module/index.ts';
import {
  AgentPool,
  aiFor,
  bindHostFunctions,
  type CacheChange,
  type EgressSettings,
  type ExportRequest,
  executeExport,
  httpRequestFor,
  type InspectionVerdict,
  inspectUpload,
  type LogLine,
  parsedOutcome,
  refuse,
  SandboxPool,
  type Usage,
} from '../../../src/runner/index.ts';
import { DocumentRoute, type TestDocument } from './documents.ts';
import { InstallCache } from './install-cache.ts';
import { type ModelDouble, type ModelDoubleOptions, startModelDouble } from './model-double.ts';
import type { WebhookRequest } from './webhooks.ts';

/** The platform's limit on a vendor webhook's body, as the api applies it. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;
/** handle_webhook and handoff run under this deadline, whatever the action declares (as on the platform). */
export const WEBHOOK_AND_HANDOFF_TIMEOUT_MS = 15_000;
export const DEFAULT_RETURN_URL = 'https://return.example/handoff';

export type InvokeAnswer =
  | { status: 'ok'; output: unknown }
  | { status: 'pending'; externalId: string; callbackTimeoutSeconds?: number }
  | ErrorAnswer;
export type WebhookAnswer =
  | {
      status: 'event';
      event: {
        externalId: string;
        eventId: string;
        status: 'completed' | 'failed' | 'pending';
        output?: unknown;
        error?: string;
      };
    }
  | { status: 'ignored' }
  | { status: 'rejected'; message: string }
  | ErrorAnswer;
export type HandoffAnswer =
  | { status: 'ok'; handoff: { url: string; expiresAt: string } | null }
  | ErrorAnswer;
export interface ErrorAnswer {
  status: 'error';
  message: string;
  retryable?: boolean;
  retryAfterMs?: number;
}

/** One call's outcome as the runner returns it: the redacted answer, usage, logs and cache changes. */
export interface CallResult<A> {
  answer: A;
  usage: Usage;
  logs: LogLine[];
  cacheChanges: CacheChange[];
  durationMs: number;
  callId: string;
}

export interface AppLogLine extends LogLine {
  callId: string;
  export: ExportRequest['exportName'];
  action?: string;
}

export type AppLogger =
  | ((line: AppLogLine) => void)
  | Partial<Record<LogLine['level'], (message: string) => void>>;

/**
 * ai: true (default) lets the module's model requests go where it sends them (approved hosts apply);
 * false makes the ai host function refuse; model double settings start a model double for the app
 * (`app.model`); `{ double }` uses a double you started. With a double, its host is approved and every
 * model request is sent to it (the URL's origin replaced, path kept), still through the real ai host.
 */
export type AiOption = boolean | ModelDoubleOptions | { double: { url: string; host: string } };

export interface LoadOptions {
  /** The install's config; `{{secret:NAME}}` in its text reaches the module as the call's placeholder. */
  config?: Record<string, unknown>;
  secrets?: Record<string, string>;
  /** Approved hosts added to the manifest's hosts and the hosts of hostsFromConfig URLs. */
  hosts?: string[];
  /** Documents by id, read by document_read in calls of an app that needs documents. */
  documents?: Record<string, TestDocument>;
  tenantId?: string;
  callbackUrl?: string | null;
  /** Cached values at the start (kept a day). */
  cache?: Record<string, string>;
  ai?: AiOption;
  /** Receives each log line of each call as it comes back; lines are kept in `app.logs` anyway. */
  logger?: AppLogger;
}

export interface InvokeOptions {
  idempotencyKey?: string | null;
  /** The subject the call is for: its calls cannot read documents of another subject. */
  subjectId?: string;
}

export interface LoadedApp {
  readonly manifest: Manifest;
  /** The hash of the module as the platform would store it (memory capped to memoryMiB). */
  readonly sha256: string;
  invoke(action: string, input: unknown, options?: InvokeOptions): Promise<CallResult<InvokeAnswer>>;
  handleWebhook(request: WebhookRequest): Promise<CallResult<WebhookAnswer>>;
  handoff(externalId: string, returnUrl?: string): Promise<CallResult<HandoffAnswer>>;
  /** Every log line of every call so far, oldest first. */
  readonly logs: AppLogLine[];
  /** The live cached values after each call's changes were applied. */
  readonly cache: Record<string, string>;
  /** The approved hosts calls run with. */
  readonly hosts: string[];
  /** The model double the loader started for the ai option, or null. */
  readonly model: ModelDouble | null;
  close(): Promise<void>;
}

/** The platform refused the module (the same verdict as an upload or `app build`). */
export class AppRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    // The inspection's message already names the manifest path.
    super(message);
  }
}

/** Loads a built module (bytes, or a path to a .wasm file) after the platform's upload inspection. */
export async function loadApp(
  moduleBytesOrPath: Uint8Array | string,
  options: LoadOptions = {},
): Promise<LoadedApp> {
  const bytes =
    typeof moduleBytesOrPath === 'string'
      ? new Uint8Array(await fs.readFile(moduleBytesOrPath))
      : moduleBytesOrPath;
  const verdict = await inspectUpload(bytes);
  if (!verdict.accepted) throw new AppRefusedError(verdict.code, verdict.message, verdict.path);
  return openApp(bytes, verdict, options);
}

/** A config value at a JSON Pointer, or undefined. */
export function configValue(config: Record<string, unknown>, pointer: string): unknown {
  let current: unknown = config;
  for (const token of pointerTokens(pointer)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** The hosts an install of this manifest with this config calls: the manifest's, then those of hostsFromConfig URLs. */
export function installHosts(manifest: Manifest, config: Record<string, unknown>): string[] {
  const hosts = [...manifest.hosts];
  for (const pointer of manifest.hostsFromConfig) {
    const value = configValue(config, pointer);
    if (typeof value !== 'string') continue;
    try {
      hosts.push(new URL(value).host.toLowerCase());
    } catch {}
  }
  return hosts;
}

function emit(logger: AppLogger | undefined, line: AppLogLine): void {
  if (!logger) return;
  if (typeof logger === 'function') logger(line);
  else logger[line.level]?.(line.message);
}

function rerouted(request: unknown, url: string): unknown {
  const r = request as { url?: unknown } | null;
  if (!r || typeof r !== 'object' || typeof r.url !== 'string') return request;
  try {
    const original = new URL(r.url);
    return { ...r, url: `${url}${original.pathname}${original.search}` };
  } catch {
    return request;
  }
}

/** Opens an app the inspection accepted. */
export async function openApp(
  bytes: Uint8Array,
  verdict: Extract<InspectionVerdict, { accepted: true }>,
  options: LoadOptions = {},
): Promise<LoadedApp> {
  const { manifest, sha256 } = verdict;
  const capped = capMemory(bytes, manifest.memoryMiB);
  if (!capped.ok) throw new AppRefusedError(capped.code, capped.message);
  const loaded = {
    sha256,
    module: await WebAssembly.compile(capped.bytes),
    maxPages: manifest.memoryMiB * PAGES_PER_MIB,
  };
  const config = options.config ?? {};
  const tenantId = options.tenantId ?? randomUUID();
  const cache = new InstallCache(options.cache);
  const logs: AppLogLine[] = [];

  let model: ModelDouble | null = null;
  let double: { url: string; host: string } | null = null;
  if (options.ai && typeof options.ai === 'object') {
    if ('double' in options.ai) double = options.ai.double;
    else double = model = await startModelDouble(options.ai);
  }
  const hosts = [
    ...new Set([
      ...installHosts(manifest, config),
      ...(options.hosts ?? []),
      ...(double ? [double.host] : []),
    ]),
  ];
  const documentsNeeded =
    manifest.needs.includes('documents') &&
    (manifest.documentsFromConfig === undefined ||
      configValue(config, manifest.documentsFromConfig) === true);
  const documents = manifest.needs.includes('documents')
    ? await DocumentRoute.start(options.documents ?? {})
    : null;

  const agents = new AgentPool();
  // Doubles listen on 127.0.0.1: the loader runs as a private-network (development) stack would.
  const settings: EgressSettings = { agents, allowPrivateNetworks: true };
  const realAi = aiFor(settings);
  const hostFunctions = {
    httpRequest: httpRequestFor(settings),
    ai: async (state: Parameters<typeof realAi>[0], request: unknown) => {
      if (options.ai === false) return refuse('ai: model requests are switched off for this app');
      return realAi(state, double ? rerouted(request, double.url) : request);
    },
  };
  // Two threads: an app's test may run calls side by side; every call still gets a fresh instance.
  const sandbox = new SandboxPool({ threads: 2, warmCapacity: 0, warmIdleMs: 60_000 });
  const deps = {
    modules: { get: async () => loaded },
    sandbox,
    apiInternalUrl: documents?.url ?? 'http://127.0.0.1:9',
    bind: (state: Parameters<typeof bindHostFunctions>[0]) => bindHostFunctions(state, hostFunctions),
  };

  const run = async <A>(
    exportName: ExportRequest['exportName'],
    fields: Record<string, unknown>,
    timeoutMs: number,
    documentToken: string | null,
    callId: string,
  ): Promise<CallResult<A>> => {
    const outcome = parsedOutcome(
      await executeExport(deps, {
        exportName,
        sha256,
        call: { id: callId, tenantId, callbackUrl: options.callbackUrl ?? null },
        config,
        secrets: options.secrets ?? {},
        hosts,
        cache: cache.entries(),
        documents: documentToken ? { token: documentToken } : null,
        timeoutMs,
        fields,
      }),
    );
    cache.apply(outcome.cacheChanges);
    const action = exportName === 'invoke' ? String(fields.action) : undefined;
    for (const line of outcome.logs) {
      const kept: AppLogLine = { ...line, callId, export: exportName, ...(action ? { action } : {}) };
      logs.push(kept);
      emit(options.logger, kept);
    }
    const { answer, usage, logs: callLogs, cacheChanges, durationMs } = outcome;
    return { answer: answer as A, usage, logs: callLogs, cacheChanges, durationMs, callId };
  };

  return {
    manifest,
    sha256,
    logs,
    get cache() {
      return cache.values();
    },
    hosts,
    model,
    async invoke(action, input, invokeOptions = {}) {
      const declared = manifest.actions.find((a) => a.name === action);
      const callId = randomUUID();
      const token = documentsNeeded
        ? (documents?.issue(callId, invokeOptions.subjectId ?? null) ?? null)
        : null;
      try {
        return await run<InvokeAnswer>(
          'invoke',
          { action, idempotencyKey: invokeOptions.idempotencyKey ?? null, input },
          declared?.timeoutMs ?? MANIFEST_LIMITS.timeoutMs.default,
          token,
          callId,
        );
      } finally {
        if (token) documents?.revoke(token);
      }
    },
    async handleWebhook(request) {
      const body = Buffer.from(request.body);
      if (body.byteLength > MAX_WEBHOOK_BODY_BYTES) {
        throw new RangeError('the platform takes webhook bodies up to 256 KiB');
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      const fields = {
        request: {
          method: request.method ?? 'POST',
          headers,
          query: request.query ?? {},
          bodyBase64: body.toString('base64'),
        },
      };
      return run<WebhookAnswer>('handle_webhook', fields, WEBHOOK_AND_HANDOFF_TIMEOUT_MS, null, randomUUID());
    },
    handoff(externalId, returnUrl = DEFAULT_RETURN_URL) {
      return run<HandoffAnswer>(
        'handoff',
        { externalId, returnUrl },
        WEBHOOK_AND_HANDOFF_TIMEOUT_MS,
        null,
        randomUUID(),
      );
    },
    async close() {
      await sandbox.close();
      await agents.close();
      await documents?.close();
      await model?.close();
    },
  };
}
