// A model double: an HTTP server on 127.0.0.1 speaking the two shapes the ai host function sends and
// reads (src/runner/host/ai.ts): OpenAI chat completions and Anthropic messages. It records each prompt
// and answers with the configured content and token counts.
import { jsonResponse, startLocalServer } from './local-server.ts';

export type ModelProvider = 'openai' | 'anthropic';

export interface ModelPrompt {
  provider: ModelProvider;
  path: string;
  model: string;
  /** The system text (Anthropic's system field, or OpenAI's leading system message). */
  system: string | null;
  /** The conversation without the system message. */
  messages: { role: string; content: string }[];
  maxTokens: number | null;
  temperature: number | null;
  /** Lower-cased names, as received: the credential the host filled in included. */
  headers: Record<string, string>;
}

/** Content as text, or any other value sent as its JSON text (a structured answer). */
export type ModelReply = string | Record<string, unknown> | unknown[];

export interface ModelDoubleOptions {
  /** The reply to every prompt. */
  answer?: ModelReply | ((prompt: ModelPrompt) => ModelReply | Promise<ModelReply>);
  /** Replies in turn; the last one repeats once they run out. */
  answers?: ModelReply[];
  /** Token counts answered; default: about a token per 4 characters of the prompt and of the reply. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Answer this status with an error body instead of a reply (a vendor outage, a 429). */
  status?: number;
  /** Default: stop (OpenAI) / end_turn (Anthropic). */
  stopReason?: string;
}

export interface ModelDouble {
  /** http://127.0.0.1:<port> */
  url: string;
  /** 127.0.0.1:<port> */
  host: string;
  /** Every prompt received, oldest first. */
  readonly prompts: ModelPrompt[];
  /** Replaces the reply settings for the prompts still to come. */
  set(options: ModelDoubleOptions): void;
  reset(): void;
  close(): Promise<void>;
}

const tokens = (text: string) => Math.ceil(text.length / 4);

interface WireBody {
  model?: unknown;
  system?: unknown;
  messages?: unknown;
  max_tokens?: unknown;
  temperature?: unknown;
}

function readPrompt(path: string, headers: Record<string, string>, body: WireBody): ModelPrompt {
  const provider: ModelProvider =
    headers['anthropic-version'] !== undefined || path.endsWith('/messages') ? 'anthropic' : 'openai';
  const all = Array.isArray(body.messages) ? (body.messages as { role: string; content: string }[]) : [];
  const leadingSystem = provider === 'openai' && all[0]?.role === 'system' ? all[0].content : null;
  return {
    provider,
    path,
    model: typeof body.model === 'string' ? body.model : '',
    system: typeof body.system === 'string' ? body.system : leadingSystem,
    messages: leadingSystem === null ? all : all.slice(1),
    maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : null,
    temperature: typeof body.temperature === 'number' ? body.temperature : null,
    headers,
  };
}

function vendorAnswer(prompt: ModelPrompt, content: string, options: ModelDoubleOptions, n: number) {
  const promptText = [prompt.system ?? '', ...prompt.messages.map((m) => m.content)].join('\n');
  const usage = options.usage ?? { inputTokens: tokens(promptText), outputTokens: tokens(content) };
  if (prompt.provider === 'anthropic') {
    return {
      id: `msg_double_${n}`,
      type: 'message',
      role: 'assistant',
      model: prompt.model,
      content: [{ type: 'text', text: content }],
      stop_reason: options.stopReason ?? 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    };
  }
  return {
    id: `chatcmpl-double-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: prompt.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content },
        finish_reason: options.stopReason ?? 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
  };
}

/** Starts a model double; any POST path is a model endpoint (`/v1/chat/completions`, `/v1/messages`, ...). */
export async function startModelDouble(initial: ModelDoubleOptions = {}): Promise<ModelDouble> {
  let options = initial;
  let turn = 0;
  const prompts: ModelPrompt[] = [];
  const reply = async (prompt: ModelPrompt): Promise<string> => {
    let value: ModelReply;
    if (options.answers && options.answers.length > 0) {
      value = options.answers[Math.min(turn, options.answers.length - 1)] as ModelReply;
    } else if (typeof options.answer === 'function') {
      value = await options.answer(prompt);
    } else value = options.answer ?? 'This is the model double.';
    turn += 1;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const server = await startLocalServer(async (request) => {
    if (request.method !== 'POST') return jsonResponse(405, { error: 'the model double takes POST' });
    let body: WireBody;
    try {
      body = JSON.parse(request.body.toString('utf8')) as WireBody;
    } catch {
      return jsonResponse(400, { error: 'the request body is not JSON' });
    }
    const prompt = readPrompt(request.path, request.headers, body);
    prompts.push(prompt);
    if (options.status !== undefined && (options.status < 200 || options.status >= 300)) {
      return jsonResponse(options.status, { error: { message: 'the model double answers an error' } });
    }
    return jsonResponse(200, vendorAnswer(prompt, await reply(prompt), options, prompts.length));
  });
  return {
    url: server.url,
    host: server.host,
    prompts,
    set: (next) => {
      options = next;
      turn = 0;
    },
    reset: () => {
      prompts.length = 0;
      turn = 0;
    },
    close: () => server.close(),
  };
}
