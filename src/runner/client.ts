// The api's and the worker's client of the runner service (docs/runner.md). Every call
// answers a result, never throws: the runner's answer, one of the runner's failure codes, or one of the
// two transport outcomes the callers add:
//   not_sent     no runner took the call: nothing was written to a connection (refused, DNS failure,
//                connect timeout, the deadline passed before a connection was free). Safe to resend.
//   unreachable  the call was written to a connection (or may have been) and no usable answer came:
//                reset after connecting, no answer within the deadline, a malformed answer. The module
//                may have run: only an idempotent action is resent.
// Which of the two is decided by whether undici handed this request to a connected socket (the
// request's onConnect, which undici calls right before writing it), never by error codes.
import { Agent, type Dispatcher } from 'undici';
import type { RunnerTransportCode } from '../http/error-codes.ts';
import { depthExcess, depthMessage, MAX_JSON_DEPTH } from '../http/json-depth.ts';
import { inFlight, traceHeaders } from '../telemetry/index.ts';
import { RUNNER_FAILURES, type RunnerFailureCode } from './errors.ts';
import type { ExportOutcome } from './execute.ts';
import type { CacheEntry } from './host/call-state.ts';
import type { InspectionVerdict } from './inspect.ts';

/** The runner's own deadline for handle_webhook and handoff, whatever the action declares. */
export const EXPORT_TIMEOUT_MS = 15_000;
/** invoke's default when the body gives no timeoutMs (the runner's default too). */
export const DEFAULT_INVOKE_TIMEOUT_MS = 15_000;
/** An inspection: receiving up to 32 MiB, compiling, and the manifest export's 5 s. */
export const INSPECT_TIMEOUT_MS = 30_000;
/** Time on top of a call's deadline for the module fetch, instance start and the answer's way back. */
export const DEFAULT_TIMEOUT_MARGIN_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Names the uploading tenant on POST /v1/inspect: the inspection counts against its concurrency. */
export const TENANT_HEADER = 'x-tenant-id';
/** A runner answer is at most about 2 MiB (a 1 MiB answer, logs, cache changes); more is malformed. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface RunnerCall {
  id: string;
  tenantId: string;
  callbackUrl?: string | null;
}

/** What every export call carries (the runner fills secrets, hosts and cache with none when absent). */
export interface RunnerExportRequest {
  module: { sha256: string };
  call: RunnerCall;
  config: Record<string, unknown>;
  secrets?: Record<string, string>;
  hosts?: string[];
  /** null: the deployment keeps no cached values; every cache operation of the call is refused. */
  cache?: CacheEntry[] | null;
}

export interface RunnerInvokeRequest extends RunnerExportRequest {
  action: string;
  idempotencyKey?: string | null;
  input: unknown;
  documents?: { token: string } | null;
  /** 100 to 120000; 15000 when absent. */
  timeoutMs?: number;
}

export interface RunnerWebhookRequest extends RunnerExportRequest {
  request: {
    method: string;
    headers: Record<string, string>;
    query: Record<string, string | string[]>;
    bodyBase64: string;
  };
}

export interface RunnerHandoffRequest extends RunnerExportRequest {
  externalId: string;
  returnUrl: string;
}

/** The runner's answer to an export call: the module's checked, redacted answer and what the call used. */
export type RunnerAnswer = ExportOutcome;

export type { RunnerTransportCode };

export type RunnerFailureResult =
  | {
      ok: false;
      code: RunnerFailureCode;
      status: number;
      message: string;
      details?: Record<string, unknown>;
      /** The runner's x-request-id, for its logs. */
      requestId?: string;
    }
  | { ok: false; code: RunnerTransportCode; status: null; message: string };

export type RunnerResult<T> = { ok: true; value: T } | RunnerFailureResult;

export interface RunnerClientOptions {
  /** The runner's base URL (APP_RUNNER_URL; runner-pool.ts spreads calls over a comma list of them). */
  baseUrl: string;
  /** APP_RUNNER_TOKEN. */
  token: string;
  /** An undici dispatcher to send through (the client then leaves closing it to its owner). */
  dispatcher?: Dispatcher;
  timeoutMarginMs?: number;
  connectTimeoutMs?: number;
}

export interface RunnerClient {
  /** tenantId: the uploading tenant, whose concurrency the inspection counts against. */
  inspect(bytes: Uint8Array, tenantId?: string): Promise<RunnerResult<InspectionVerdict>>;
  invoke(body: RunnerInvokeRequest): Promise<RunnerResult<RunnerAnswer>>;
  handleWebhook(body: RunnerWebhookRequest): Promise<RunnerResult<RunnerAnswer>>;
  handoff(body: RunnerHandoffRequest): Promise<RunnerResult<RunnerAnswer>>;
  /** Closes the client's own connections (not those of a dispatcher handed in). */
  close(): Promise<void>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const transport = (sent: boolean, message: string): RunnerFailureResult =>
  sent
    ? { ok: false, code: 'unreachable', status: null, message: `the runner did not answer: ${message}` }
    : { ok: false, code: 'not_sent', status: null, message: `no runner took the call: ${message}` };

/** Calls `onSent` when undici hands the request to a connected socket, right before writing it. */
function watched(handler: Dispatcher.DispatchHandler, onSent: () => void): Dispatcher.DispatchHandler {
  return new Proxy(handler, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'onConnect' || property === 'onRequestStart') {
        return (...args: unknown[]) => {
          onSent();
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${cause}`;
  }
  return String(error);
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > MAX_RESPONSE_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A runner error body { error: { code, message, details?, requestId } } as a result; null if it is none. */
function failureOf(status: number, json: unknown): RunnerFailureResult | null {
  const error = isRecord(json) ? json.error : undefined;
  if (!isRecord(error) || typeof error.code !== 'string' || typeof error.message !== 'string') return null;
  const details = isRecord(error.details) ? error.details : undefined;
  const requestId = typeof error.requestId === 'string' ? error.requestId : undefined;
  if (Object.hasOwn(RUNNER_FAILURES, error.code)) {
    return {
      ok: false,
      code: error.code as RunnerFailureCode,
      status,
      message: error.message,
      ...(details ? { details } : {}),
      ...(requestId ? { requestId } : {}),
    };
  }
  // A code outside the runner's table (the HTTP layer's own: an oversized body, an unknown route): the
  // runner refused the request itself (4xx, nothing ran) or failed on its own (5xx).
  return {
    ok: false,
    code: status < 500 ? 'bad_request' : 'internal',
    status,
    message: `${error.code}: ${error.message}`,
    details: { runnerCode: error.code, ...(details ? { details } : {}) },
    ...(requestId ? { requestId } : {}),
  };
}

const isAnswer = (json: unknown): json is RunnerAnswer =>
  isRecord(json) && Object.hasOwn(json, 'answer') && isRecord(json.usage);
const isVerdict = (json: unknown): json is InspectionVerdict =>
  isRecord(json) && typeof json.accepted === 'boolean';

/** The client of one runner. */
export function createRunnerClient(options: RunnerClientOptions): RunnerClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const margin = options.timeoutMarginMs ?? DEFAULT_TIMEOUT_MARGIN_MS;
  const owned = options.dispatcher
    ? null
    : new Agent({
        connect: { timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
        // Idle connections close well before a runner's own keep-alive (Fastify: 72 s) would close them
        // under a request; the call's own timer bounds headers and body.
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 10_000,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
  const dispatcher = options.dispatcher ?? (owned as Agent);

  async function send<T>(
    route: string,
    body: string | Uint8Array,
    contentType: string,
    timeoutMs: number,
    accept: (json: unknown) => json is T,
    headers: Record<string, string> = {},
  ): Promise<RunnerResult<T>> {
    let sent = false;
    const controller = new AbortController();
    const watching = dispatcher.compose(
      (dispatch) => (opts, handler) =>
        dispatch(
          opts,
          // A request aborted before it reached a socket is dropped there unwritten: it stays not sent.
          watched(handler, () => {
            if (!controller.signal.aborted) sent = true;
          }),
        ),
    );
    // undici applies an abort to a request still waiting for a connection only once one is made, so
    // the deadline is raced here rather than left to the signal alone.
    const expired = new Promise<'expired'>((resolve) => {
      controller.signal.addEventListener('abort', () => resolve('expired'), { once: true });
    });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await Promise.race([
        watching.request({
          origin: base.origin,
          path: `${prefix}${route}`,
          method: 'POST',
          // The call joins the caller's trace on the runner (its server span's parent).
          headers: {
            ...headers,
            ...traceHeaders(),
            authorization: `Bearer ${options.token}`,
            'content-type': contentType,
          },
          body,
          signal: controller.signal,
        }),
        expired,
      ]);
      if (response === 'expired') return transport(sent, `no answer within ${timeoutMs} ms`);
      const read = await Promise.race([readCapped(response.body), expired]);
      if (read === 'expired') return transport(true, `no whole answer within ${timeoutMs} ms`);
      if (read === null) return transport(true, `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
      // The runner's answer holds the module's (at most MAX_JSON_DEPTH deep) one level down.
      const text = read.toString('utf8');
      if (depthExcess(text, MAX_JSON_DEPTH + 1) !== null)
        return transport(true, `the answer ${depthMessage()}`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return transport(true, `the answer (status ${response.statusCode}) is not JSON`);
      }
      if (response.statusCode === 200) {
        return accept(json) ? { ok: true, value: json } : transport(true, 'the answer has no runner shape');
      }
      return (
        failureOf(response.statusCode, json) ??
        transport(true, `the answer (status ${response.statusCode}) is not a runner error body`)
      );
    } catch (error) {
      return transport(sent, describe(error));
    } finally {
      clearTimeout(timer);
    }
  }

  const json = (value: unknown) => JSON.stringify(value);
  return {
    inspect: (bytes, tenantId) =>
      send(
        '/v1/inspect',
        bytes,
        'application/wasm',
        INSPECT_TIMEOUT_MS + margin,
        isVerdict,
        tenantId ? { [TENANT_HEADER]: tenantId } : {},
      ),
    // Counted in service.app.calls.in_flight until the runner answers (or the call fails).
    invoke: (body) =>
      inFlight(() =>
        send(
          '/v1/invoke',
          json(body),
          'application/json',
          (body.timeoutMs ?? DEFAULT_INVOKE_TIMEOUT_MS) + margin,
          isAnswer,
        ),
      ),
    handleWebhook: (body) =>
      send('/v1/webhooks/handle', json(body), 'application/json', EXPORT_TIMEOUT_MS + margin, isAnswer),
    handoff: (body) =>
      send('/v1/handoff', json(body), 'application/json', EXPORT_TIMEOUT_MS + margin, isAnswer),
    close: async () => {
      await owned?.close();
    },
  };
}
