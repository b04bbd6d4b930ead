// ai: one model request to an OpenAI-compatible or Anthropic-style API on an approved host.
//   { provider: "openai" | "anthropic", url, apiKey (a secret placeholder {{secret:NAME:TAG}}), model,
//     messages: [{ role, content }], maxTokens?, temperature?, system?, timeoutMs? (1000 to 120000) }
//   → { content, stopReason, usage: { inputTokens, outputTokens } } | { error, status? } | refusal
// 20 ai requests a call (refused ones included), at most 10 HTTP requests to model vendors, which are
// not counted as the call's HTTP requests; the credential header is redacted as [auth:model].
import { type HttpAnswer, performHttpRequest } from '../egress/http.ts';
import type { CallState } from './call-state.ts';
import type { EgressSettings } from './http.ts';
import { refuse } from './refusal.ts';

export const MAX_AI_REQUESTS = 20;
export const MAX_AI_HTTP_REQUESTS = 10;
const MAX_MESSAGES = 100;
const MAX_OUTPUT_TOKENS = 32_768;
const MAX_REQUEST_BYTES = 1024 * 1024;

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
    r.timeoutMs !== undefined &&
    (!Number.isInteger(r.timeoutMs) || r.timeoutMs < 1000 || r.timeoutMs > 120_000)
  ) {
    return 'timeoutMs must be 1000 to 120000';
  }
  return r as AiRequest;
}

function vendorRequest(ai: AiRequest) {
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
      usage: { inputTokens: json.usage?.input_tokens ?? 0, outputTokens: json.usage?.output_tokens ?? 0 },
    };
  }
  const json = JSON.parse(body) as OpenAiAnswer;
  const choice = json.choices?.[0];
  return {
    content: choice?.message?.content ?? '',
    stopReason: choice?.finish_reason ?? null,
    usage: { inputTokens: json.usage?.prompt_tokens ?? 0, outputTokens: json.usage?.completion_tokens ?? 0 },
  };
}

export function aiFor(settings: EgressSettings) {
  return async (state: CallState, request: unknown) => {
    if (!state.usage.ai) state.usage.ai = { requests: 0, inputTokens: 0, outputTokens: 0 };
    const ai = state.usage.ai;
    if (ai.requests >= MAX_AI_REQUESTS) return refuse(`ai: at most ${MAX_AI_REQUESTS} requests a call`);
    ai.requests += 1;
    const parsed = parse(request);
    if (typeof parsed === 'string') return refuse(`ai: ${parsed}`);
    const { headers, body } = vendorRequest(parsed);
    if (Buffer.byteLength(body) > MAX_REQUEST_BYTES) return refuse('ai: the request is larger than 1 MiB');
    const modelUsage = { httpRequests: aiHttp(state), reusedConnections: 0 };
    if (modelUsage.httpRequests >= MAX_AI_HTTP_REQUESTS)
      return refuse(`ai: at most ${MAX_AI_HTTP_REQUESTS} model vendor requests a call`);
    const answer: HttpAnswer = await performHttpRequest(
      {
        method: 'POST',
        url: parsed.url,
        headers,
        body,
        timeoutMs: Math.min(parsed.timeoutMs ?? 30_000, 30_000),
      },
      {
        tenantId: state.tenantId,
        secretTag: state.secretTag,
        secrets: state.secrets,
        approvedHosts: state.hosts,
        allowPrivateNetworks: settings.allowPrivateNetworks,
        redactor: state.redactor,
        usage: modelUsage,
        maxRequests: MAX_AI_HTTP_REQUESTS,
        deadline: state.deadline,
        agents: settings.agents,
        lookup: settings.lookup,
      },
    );
    aiHttpCounts.set(state, modelUsage.httpRequests);
    if (!('status' in answer)) return answer;
    const text = 'body' in answer ? answer.body : '';
    if (answer.status < 200 || answer.status >= 300)
      return { error: `the model vendor answered ${answer.status}`, status: answer.status };
    try {
      const read = readModelAnswer(parsed.provider, text);
      ai.inputTokens += read.usage.inputTokens;
      ai.outputTokens += read.usage.outputTokens;
      return read;
    } catch {
      return { error: 'the model vendor answered something that is not JSON' };
    }
  };
}

/** HTTP requests sent to model vendors so far in the call (kept apart from the call's httpRequests). */
const aiHttpCounts = new WeakMap<CallState, number>();
const aiHttp = (state: CallState) => aiHttpCounts.get(state) ?? 0;
