// ai: one model request to an OpenAI-compatible or Anthropic-style API on an approved host.
//   { provider: "openai" | "anthropic", url, apiKey (a secret placeholder {{secret:NAME:TAG}}), model,
//     messages: [{ role, content }], maxTokens? (1 to 32768, default 1024), temperature? (0 to 2),
//     system?, timeoutMs? (1000 to 120000, default 30000) }
//   → { content, stopReason, usage: { inputTokens, outputTokens } } | { error, status? }
//     | { error, network: not_sent | unknown } | refusal
// 20 ai requests a call (refused ones included), at most 10 HTTP requests to model vendors, which are
// not counted as the call's HTTP requests. The url goes through http_request's checks (approved host at
// its port, https unless private networks, every resolved address public, connection to a checked
// address); redirects are not followed. The call's tag may appear only in apiKey, never in the prompt.
// The credential header (Authorization: Bearer …) is redacted as [auth:model], the key itself as
// [secret:NAME]. Asked and answered at most 1 MiB; the vendor's response at most 8 MiB.

import { msSince, recordAiRequest } from '../../telemetry/index.ts';
import { PLATFORM_VERSION } from '../../version.ts';
import { callEgressContext, type EgressSettings } from '../egress/context.ts';
import { sendOnce } from '../egress/exchange.ts';
import { checkTarget } from '../egress/hosts.ts';
import { fillPlaceholders } from '../egress/placeholders.ts';
import type { CallState } from './call-state.ts';
import { refuse } from './refusal.ts';

export const MAX_AI_REQUESTS = 20;
export const MAX_AI_HTTP_REQUESTS = 10;
const MAX_MESSAGES = 100;
const MAX_OUTPUT_TOKENS = 32_768;
const MAX_REQUEST_BYTES = 1024 * 1024;
const MAX_ANSWER_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 120_000;
/** What may go out as a header value: the key is sent as it is. */
const SENDABLE_KEY = /^[\x21-\x7e]+$/;
const USER_AGENT = `apps-platform/${PLATFORM_VERSION}`;

interface AiRequest {
  provider: 'openai' | 'anthropic';
  url: string;
  apiKey: string;
  model: string;
  messages: { role: string; content: string }[];
  maxTokens?: number;
  temperature?: number;
  system?: string;
  timeoutMs?: number;
}

function parse(request: unknown): AiRequest | string {
  const r = (request ?? {}) as Partial<AiRequest>;
  if (r.provider !== 'openai' && r.provider !== 'anthropic') return 'provider must be openai or anthropic';
  if (typeof r.url !== 'string' || typeof r.apiKey !== 'string' || typeof r.model !== 'string') {
    return 'url, apiKey and model must be text';
  }
  if (!Array.isArray(r.messages) || r.messages.length === 0 || r.messages.length > MAX_MESSAGES) {
    return `messages must hold 1 to ${MAX_MESSAGES} messages`;
  }
  if (!r.messages.every((m) => m && typeof m.role === 'string' && typeof m.content === 'string')) {
    return 'each message needs a role and text content';
  }
  if (
    r.maxTokens !== undefined &&
    (!Number.isInteger(r.maxTokens) || r.maxTokens < 1 || r.maxTokens > MAX_OUTPUT_TOKENS)
  ) {
    return `maxTokens must be 1 to ${MAX_OUTPUT_TOKENS}`;
  }
  if (
    r.temperature !== undefined &&
    (typeof r.temperature !== 'number' ||
      !Number.isFinite(r.temperature) ||
      r.temperature < 0 ||
      r.temperature > 2)
  ) {
    return 'temperature must be a number from 0 to 2';
  }
  if (r.system !== undefined && typeof r.system !== 'string') return 'system must be text';
  if (
    r.timeoutMs !== undefined &&
    (!Number.isInteger(r.timeoutMs) || r.timeoutMs < 1000 || r.timeoutMs > MAX_TIMEOUT_MS)
  ) {
    return `timeoutMs must be 1000 to ${MAX_TIMEOUT_MS}`;
  }
  return r as AiRequest;
}

function vendorRequest(ai: AiRequest): { headers: Record<string, string>; body: string } {
  const maxTokens = ai.maxTokens ?? 1024;
  if (ai.provider === 'anthropic') {
    return {
      headers: {
        'x-api-key': ai.apiKey,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: ai.model,
        max_tokens: maxTokens,
        temperature: ai.temperature,
        system: ai.system,
        messages: ai.messages,
      }),
    };
  }
  const messages = ai.system ? [{ role: 'system', content: ai.system }, ...ai.messages] : ai.messages;
  return {
    headers: { authorization: `Bearer ${ai.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: ai.model, max_tokens: maxTokens, temperature: ai.temperature, messages }),
  };
}

interface OpenAiAnswer {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}
interface AnthropicAnswer {
  content?: { type?: string; text?: string }[];
  stop_reason?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** A token count as the vendor gave it; anything but a non-negative integer counts none. */
const tokens = (value: unknown): number =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0;

/** Reads the vendor's answer into { content, stopReason, usage }; absent token counts are none. */
export function readModelAnswer(provider: AiRequest['provider'], body: string) {
  if (provider === 'anthropic') {
    const json = JSON.parse(body) as AnthropicAnswer;
    const content = (json.content ?? [])
      .filter((part) => part?.type === 'text')
      .map((part) => part.text ?? '')
      .join('');
    return {
      content,
      stopReason: json.stop_reason ?? null,
      usage: {
        inputTokens: tokens(json.usage?.input_tokens),
        outputTokens: tokens(json.usage?.output_tokens),
      },
    };
  }
  const json = JSON.parse(body) as OpenAiAnswer;
  const choice = json.choices?.[0];
  return {
    content: choice?.message?.content ?? '',
    stopReason: choice?.finish_reason ?? null,
    usage: {
      inputTokens: tokens(json.usage?.prompt_tokens),
      outputTokens: tokens(json.usage?.completion_tokens),
    },
  };
}

export function aiFor(settings: EgressSettings) {
  return async (state: CallState, request: unknown): Promise<unknown> => {
    if (!state.usage.ai) state.usage.ai = { requests: 0, inputTokens: 0, outputTokens: 0 };
    const ai = state.usage.ai;
    if (ai.requests >= MAX_AI_REQUESTS) return refuse(`ai: at most ${MAX_AI_REQUESTS} requests a call`);
    ai.requests += 1;
    const parsed = parse(request);
    if (typeof parsed === 'string') return refuse(`ai: ${parsed}`);
    // The key is the one place a secret is filled; the filled value is registered for redaction.
    const key = fillPlaceholders(parsed.apiKey, 'apiKey', state);
    if (!key.ok) return refuse(`ai: ${key.error}`);
    if (!SENDABLE_KEY.test(key.text)) return refuse('ai: apiKey holds a character that cannot be sent');
    const { headers, body } = vendorRequest({ ...parsed, apiKey: key.text });
    if (key.filled > 0 && headers.authorization) state.redactor.derived('model', headers.authorization);
    if (state.secretTag !== '' && (body.includes(state.secretTag) || parsed.url.includes(state.secretTag))) {
      return refuse("ai: the call's secret tag may appear only in apiKey");
    }
    if (Buffer.byteLength(body) > MAX_REQUEST_BYTES) return refuse('ai: the request is larger than 1 MiB');
    const modelUsage = { httpRequests: aiHttp(state), reusedConnections: 0 };
    const egress = callEgressContext(settings, state, modelUsage, MAX_AI_HTTP_REQUESTS);
    const target = checkTarget(parsed.url, egress.approvedHosts, egress.allowPrivateNetworks);
    if (!target.ok) return refuse(`ai: ${target.reason}`);
    if (modelUsage.httpRequests >= MAX_AI_HTTP_REQUESTS)
      return refuse(`ai: at most ${MAX_AI_HTTP_REQUESTS} model vendor requests a call`);
    const started = performance.now();
    const sent = await sendOnce(
      {
        url: target.url,
        method: 'POST',
        headers: { ...headers, 'user-agent': USER_AGENT },
        body: Buffer.from(body, 'utf8'),
        timeoutMs: parsed.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      },
      egress,
    );
    aiHttpCounts.set(state, modelUsage.httpRequests);
    if (!('status' in sent)) return sent;
    const durationMs = msSince(started);
    if (sent.status < 200 || sent.status >= 300) {
      recordAiRequest(durationMs, 0);
      return { error: `the model vendor answered ${sent.status}`, status: sent.status };
    }
    let read: ReturnType<typeof readModelAnswer>;
    try {
      read = readModelAnswer(parsed.provider, sent.body.toString('utf8'));
    } catch {
      recordAiRequest(durationMs, 0);
      return { error: 'the model vendor answered something that is not a model answer' };
    }
    recordAiRequest(durationMs, read.usage.inputTokens + read.usage.outputTokens);
    // A model may repeat what it was sent: the module never reads a secret back.
    read.content = state.redactor.applySecrets(read.content);
    ai.inputTokens += read.usage.inputTokens;
    ai.outputTokens += read.usage.outputTokens;
    if (Buffer.byteLength(JSON.stringify(read)) > MAX_ANSWER_BYTES) {
      return { error: 'the model answer is larger than 1 MiB' };
    }
    return read;
  };
}

/** HTTP requests sent to model vendors so far in the call (kept apart from the call's httpRequests). */
const aiHttpCounts = new WeakMap<CallState, number>();
const aiHttp = (state: CallState) => aiHttpCounts.get(state) ?? 0;
