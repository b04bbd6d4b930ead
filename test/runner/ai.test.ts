// The ai host function through the real runner and a module (the echo fixture relaying the request),
// against a model double on loopback answering the OpenAI chat-completions and Anthropic messages shapes
// (a private-network stack, so that http and loopback are reachable).
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readModelAnswer } from '../../src/runner/host/ai.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';
import { startVendor, type Vendor } from './egress/vendor.ts';

const OPENAI_KEY = 'sk-openai-double-0123456789';
const ANTHROPIC_KEY = 'sk-ant-double-9876543210';
let platform: TestPlatform;
let runner: TestRunner;
let model: Vendor;
let echo: string;

beforeAll(async () => {
  model = await startVendor();
  model.route('/v1/chat/completions', (request, response) => {
    const asked = JSON.parse(request.body);
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: asked.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `Hello. You sent ${request.headers.authorization}` },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
    );
  });
  model.route('/v1/messages', (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'text', text: 'Bonjour. ' },
          { type: 'text', text: `Key ${request.headers['x-api-key']}` },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 13, output_tokens: 5 },
      }),
    );
  });
  model.route('/v1/overloaded', (_request, response) => {
    response.writeHead(529, { 'content-type': 'application/json' }).end('{"type":"error"}');
  });
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startTestRunner(platform, { APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
  echo = await runner.store(await buildFixture('echo'));
}, 120_000);
afterEach(() => {
  model.requests.length = 0;
});
afterAll(async () => {
  await runner?.close();
  await platform?.close();
  await model?.close();
});

/** Has the module make `repeat` ai requests (one when absent); `__TAG__` becomes the call's tag. */
async function ask(request: Record<string, unknown>, repeat?: number) {
  const response = await runner.post('/v1/invoke', {
    module: { sha256: echo },
    call: { id: randomUUID(), tenantId: randomUUID() },
    action: 'echo',
    config: {},
    secrets: { OPENAI_KEY, ANTHROPIC_KEY },
    hosts: [`127.0.0.1:${model.port}`],
    input: { hostCall: { fn: 'ai', ...(repeat ? { repeat } : {}), request } },
    timeoutMs: 20_000,
  });
  expect(response.status).toBe(200);
  return response.json();
}

const openai = () => ({
  provider: 'openai',
  url: `http://127.0.0.1:${model.port}/v1/chat/completions`,
  apiKey: '{{secret:OPENAI_KEY:__TAG__}}',
  model: 'gpt-test',
  system: 'Answer briefly.',
  messages: [{ role: 'user', content: 'Say hello' }],
  maxTokens: 64,
  temperature: 0.2,
});

describe('ai', () => {
  it('asks an OpenAI-compatible API with the secret key and answers content, stop reason and tokens', async () => {
    const body = await ask(openai());
    expect(model.requests).toHaveLength(1);
    const sent = model.requests[0];
    expect(sent?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      model: 'gpt-test',
      max_tokens: 64,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(body.answer.output.answer).toEqual({
      content: 'Hello. You sent [auth:model]',
      stopReason: 'stop',
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(JSON.stringify(body)).not.toContain(OPENAI_KEY);
    expect(body.usage.ai).toEqual({ requests: 1, inputTokens: 11, outputTokens: 7 });
    // Model requests are not the call's HTTP requests.
    expect(body.usage.httpRequests).toBe(0);
  });

  it('asks an Anthropic-style API with x-api-key and the system prompt apart', async () => {
    const body = await ask({
      ...openai(),
      provider: 'anthropic',
      url: `http://127.0.0.1:${model.port}/v1/messages`,
      apiKey: '{{secret:ANTHROPIC_KEY:__TAG__}}',
      model: 'claude-test',
    });
    const sent = model.requests[0];
    expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.headers.authorization).toBeUndefined();
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      model: 'claude-test',
      max_tokens: 64,
      temperature: 0.2,
      system: 'Answer briefly.',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(body.answer.output.answer).toEqual({
      content: 'Bonjour. Key [secret:ANTHROPIC_KEY]',
      stopReason: 'end_turn',
      usage: { inputTokens: 13, outputTokens: 5 },
    });
    expect(JSON.stringify(body)).not.toContain(ANTHROPIC_KEY);
    expect(body.usage.ai).toEqual({ requests: 1, inputTokens: 13, outputTokens: 5 });
  });

  it('counts 20 requests a call, refused ones included, and at most 10 sent to model vendors', async () => {
    const body = await ask(openai(), 21);
    const answers = body.answer.output.answers as Array<Record<string, unknown>>;
    expect(answers).toHaveLength(21);
    for (const answer of answers.slice(0, 10)) expect(answer).toMatchObject({ content: expect.any(String) });
    for (const answer of answers.slice(10, 20)) {
      expect(answer).toEqual({
        error: expect.stringContaining('at most 10 model vendor requests'),
        refused: true,
      });
    }
    expect(answers[20]).toEqual({ error: expect.stringContaining('at most 20 requests'), refused: true });
    expect(model.requests).toHaveLength(10);
    expect(body.usage.ai).toEqual({ requests: 20, inputTokens: 110, outputTokens: 70 });
  });

  it("answers the vendor's failure status, and refuses what it must not send", async () => {
    const failed = await ask({ ...openai(), url: `http://127.0.0.1:${model.port}/v1/overloaded` });
    expect(failed.answer.output.answer).toEqual({ error: expect.stringContaining('529'), status: 529 });
    expect(failed.usage.ai).toEqual({ requests: 1, inputTokens: 0, outputTokens: 0 });

    model.requests.length = 0;
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ url: 'http://127.0.0.2:9/v1/chat/completions' }, 'not approved'],
      [{ apiKey: '{{secret:UNKNOWN:__TAG__}}' }, 'UNKNOWN'],
      [{ messages: [{ role: 'user', content: 'the tag is __TAG__' }] }, 'tag'],
      [{ url: `http://127.0.0.1:${model.port}/v1/chat/completions?k=__TAG__` }, 'tag'],
      [{ messages: [] }, 'messages'],
      [{ maxTokens: 32_769 }, 'maxTokens'],
      [{ timeoutMs: 120_001 }, 'timeoutMs'],
      [{ temperature: 'hot' }, 'temperature'],
      [{ provider: 'other' }, 'provider'],
    ];
    for (const [change, why] of refusals) {
      const body = await ask({ ...openai(), ...change });
      expect(body.answer.output.answer, why).toEqual({ error: expect.stringContaining(why), refused: true });
    }
    expect(model.requests).toHaveLength(0);
  });

  it('answers not_sent when no connection could be made', async () => {
    const closed = await freePort();
    const body = await ask({ ...openai(), url: `http://127.0.0.1:${closed}/v1/chat/completions` });
    expect(body.answer.output.answer).toEqual({ error: expect.any(String), network: 'not_sent' });
    expect(body.usage.ai).toEqual({ requests: 1, inputTokens: 0, outputTokens: 0 });
  });
});

describe('reading a model answer', () => {
  it('counts tokens only when the vendor gives whole numbers', () => {
    const odd = JSON.stringify({
      choices: [{ message: { content: 'x' }, finish_reason: 'length' }],
      usage: { prompt_tokens: '12', completion_tokens: -3 },
    });
    expect(readModelAnswer('openai', odd)).toEqual({
      content: 'x',
      stopReason: 'length',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const noUsage = JSON.stringify({ content: [{ type: 'tool_use' }, { type: 'text', text: 'y' }] });
    expect(readModelAnswer('anthropic', noUsage)).toEqual({
      content: 'y',
      stopReason: null,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });
});
