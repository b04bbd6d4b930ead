// ai: one model request to an OpenAI-compatible or Anthropic-style API on an approved host; 20 a call.
import { callHost, HostResult } from './host';
import { Value } from './json';
import { JSON } from './json-parse';

/** One model request; provider "openai" (chat completions) or "anthropic" (messages). */
export class AiRequest {
  messages: Value = Value.array();
  systemPrompt: string | null = null;
  maxTokensValue: i32 = 0;
  temperatureValue: f64 = -1;
  timeoutMsValue: i32 = 0;

  /** apiKey: normally the secret placeholder of the model credential. */
  constructor(
    public provider: string,
    public url: string,
    public apiKey: string,
    public model: string,
  ) {}

  message(role: string, content: string): AiRequest {
    this.messages.push(Value.object().setString('role', role).setString('content', content));
    return this;
  }
  user(content: string): AiRequest {
    return this.message('user', content);
  }
  assistant(content: string): AiRequest {
    return this.message('assistant', content);
  }
  system(prompt: string): AiRequest {
    this.systemPrompt = prompt;
    return this;
  }
  /** 1 to 32768; the host's default is 1024. */
  maxTokens(n: i32): AiRequest {
    this.maxTokensValue = n;
    return this;
  }
  temperature(t: f64): AiRequest {
    this.temperatureValue = t;
    return this;
  }
  /** 1000 to 120000 ms. */
  timeout(ms: i32): AiRequest {
    this.timeoutMsValue = ms;
    return this;
  }

  toJson(): Value {
    const r = Value.object()
      .setString('provider', this.provider)
      .setString('url', this.url)
      .setString('apiKey', this.apiKey)
      .setString('model', this.model)
      .set('messages', this.messages);
    if (this.maxTokensValue > 0) r.setInteger('maxTokens', this.maxTokensValue);
    if (this.temperatureValue >= 0) r.setNumber('temperature', this.temperatureValue);
    const system = this.systemPrompt;
    if (system !== null) r.setString('system', system);
    if (this.timeoutMsValue > 0) r.setInteger('timeoutMs', this.timeoutMsValue);
    return r;
  }

  send(): AiResult {
    return ai(this);
  }
}

export class AiResult extends HostResult {
  get content(): string {
    return this.raw.getString('content');
  }
  get stopReason(): string | null {
    return this.raw.getStringOrNull('stopReason');
  }
  /** The vendor's HTTP status when it answered an error, else 0. */
  get status(): i32 {
    return <i32>this.raw.getInteger('status', 0);
  }
  get inputTokens(): i64 {
    const usage = this.raw.getObject('usage');
    return usage === null ? 0 : usage.getInteger('inputTokens');
  }
  get outputTokens(): i64 {
    const usage = this.raw.getObject('usage');
    return usage === null ? 0 : usage.getInteger('outputTokens');
  }
  /** The content as JSON, or null (models asked for JSON may still wrap it in prose). */
  json(): Value | null {
    return JSON.parse(this.content);
  }
}

export function ai(request: AiRequest): AiResult {
  return new AiResult(callHost('ai', request.toJson()));
}
