// ai-risk-summary through the real host: built from source, run by the test loader against model
// doubles on 127.0.0.1 for both providers, through the real ai host function.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkConformance,
  type LoadedApp,
  type LoadOptions,
  loadApp,
  type ModelDouble,
  startModelDouble,
} from '../../../packages/app-testing/src/index.ts';
import { buildApp } from '../../../src/app-cli/compile.ts';
import setup, { MODEL_API_KEY, NOTE, SUBJECT } from './conformance.ts';

const APP_DIR = path.resolve(import.meta.dirname, '..');
let tmp: string;
let modulePath: string;
let model: ModelDouble;
let openai: LoadedApp;
let anthropic: LoadedApp;
const opened: LoadedApp[] = [];

async function open(config: Record<string, unknown>, options: LoadOptions = {}): Promise<LoadedApp> {
  const app = await loadApp(modulePath, { config, secrets: { MODEL_API_KEY }, ...options });
  opened.push(app);
  return app;
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ai-risk-summary-'));
  modulePath = (await buildApp(APP_DIR, path.join(tmp, 'ai-risk-summary.wasm'))).path;
  model = await startModelDouble({ answer: NOTE, usage: { inputTokens: 812, outputTokens: 143 } });
  openai = await open({ provider: 'openai', baseUrl: `${model.url}/v1`, model: 'gpt-4o-mini' });
  anthropic = await open({
    provider: 'anthropic',
    baseUrl: model.url,
    model: 'claude-sonnet-4-5',
    maxTokens: 2048,
  });
}, 120_000);

afterAll(async () => {
  for (const app of opened) await app.close();
  await model?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** Runs summarize with the model double answering `answer` (and the usage given at the start). */
async function summarizeWith(app: LoadedApp, answer: unknown, input: unknown = { subject: SUBJECT }) {
  model.set({ answer: answer as string, usage: { inputTokens: 812, outputTokens: 143 } });
  model.reset();
  return app.invoke('summarize', input);
}

describe('ai-risk-summary manifest', () => {
  it('declares summarize with the risk note output schema, the model host from config and the model key', () => {
    expect(openai.manifest.name).toBe('ai-risk-summary');
    expect(openai.manifest.version).toBe('1.0.0');
    expect(openai.manifest.hostsFromConfig).toEqual(['/baseUrl']);
    expect(openai.manifest.secrets.map((s) => s.name)).toEqual(['MODEL_API_KEY']);
    const action = openai.manifest.actions.find((a) => a.name === 'summarize');
    expect(action?.output).toMatchObject({
      required: ['riskLevel', 'summary', 'factors', 'recommendedAction'],
      additionalProperties: false,
    });
    expect(action?.idempotent).toBe(true);
    expect(action?.timeoutMs).toBe(60000);
  });
});

describe('summarize', () => {
  it('asks an OpenAI-compatible model for JSON with the key filled by the host, and answers the note', async () => {
    const { answer, usage } = await summarizeWith(openai, NOTE, {
      subject: SUBJECT,
      focus: 'source of funds',
    });
    expect(answer).toEqual({ status: 'ok', output: NOTE });
    expect(usage.ai).toEqual({ requests: 1, inputTokens: 812, outputTokens: 143 });
    expect(usage.httpRequests).toBe(0);
    const [prompt] = model.prompts;
    expect(prompt?.provider).toBe('openai');
    expect(prompt?.path).toBe('/v1/chat/completions');
    expect(prompt?.model).toBe('gpt-4o-mini');
    expect(prompt?.headers.authorization).toBe(`Bearer ${MODEL_API_KEY}`);
    expect(prompt?.temperature).toBe(0);
    expect(prompt?.maxTokens).toBe(1024);
    // The system prompt carries the output schema; the user message the subject and the focus.
    const schema = openai.manifest.actions[0]?.output;
    expect(prompt?.system).toContain(JSON.stringify(schema));
    expect(prompt?.system).toContain('no code fences');
    expect(prompt?.messages).toHaveLength(1);
    expect(prompt?.messages[0]?.role).toBe('user');
    expect(prompt?.messages[0]?.content).toContain(JSON.stringify(SUBJECT));
    expect(prompt?.messages[0]?.content).toContain('Focus the note on: source of funds');
  });

  it('speaks the Anthropic messages API with x-api-key', async () => {
    const { answer, usage } = await summarizeWith(anthropic, NOTE);
    expect(answer).toEqual({ status: 'ok', output: NOTE });
    expect(usage.ai).toEqual({ requests: 1, inputTokens: 812, outputTokens: 143 });
    const [prompt] = model.prompts;
    expect(prompt?.provider).toBe('anthropic');
    expect(prompt?.path).toBe('/v1/messages');
    expect(prompt?.model).toBe('claude-sonnet-4-5');
    expect(prompt?.headers['x-api-key']).toBe(MODEL_API_KEY);
    expect(prompt?.headers.authorization).toBeUndefined();
    expect(prompt?.maxTokens).toBe(2048);
    expect(prompt?.system).toContain('"recommendedAction"');
    expect(prompt?.messages[0]?.content).not.toContain('Focus');
  });

  it('takes a full endpoint URL as it is', async () => {
    const app = await open({
      provider: 'anthropic',
      baseUrl: `${model.url}/proxy/anthropic/v1/messages`,
      model: 'm',
    });
    const { answer } = await summarizeWith(app, NOTE);
    expect(answer.status).toBe('ok');
    expect(model.prompts[0]?.path).toBe('/proxy/anthropic/v1/messages');
  });

  it('reads JSON inside code fences or wrapped in prose, and keeps only the note fields', async () => {
    const fenced = `\`\`\`json\n${JSON.stringify(NOTE, null, 2)}\n\`\`\``;
    expect((await summarizeWith(openai, fenced)).answer).toEqual({ status: 'ok', output: NOTE });
    const prose = `Here is the note:\n${JSON.stringify({ ...NOTE, riskLevel: 'High', confidence: 0.8 })}\nRegards.`;
    expect((await summarizeWith(anthropic, prose)).answer).toEqual({ status: 'ok', output: NOTE });
  });

  it('redacts the model key should the model echo it', async () => {
    const { answer } = await summarizeWith(openai, { ...NOTE, summary: `Key seen: ${MODEL_API_KEY}` });
    expect(answer).toMatchObject({ status: 'ok', output: { summary: 'Key seen: [secret:MODEL_API_KEY]' } });
    expect(JSON.stringify(answer)).not.toContain(MODEL_API_KEY);
  });
});

describe('summarize: malformed model answers are retryable errors', () => {
  const cases: [string, unknown, string][] = [
    ['prose', 'The subject looks risky to me.', 'the answer is not JSON'],
    ['a JSON array', [NOTE], 'the answer is not a JSON object'],
    ['an unknown risk level', { ...NOTE, riskLevel: 'extreme' }, 'riskLevel is not one of low, medium, high'],
    ['no summary', { ...NOTE, summary: '  ' }, 'summary is not a non-empty text'],
    ['factors not a list', { ...NOTE, factors: 'many' }, 'factors is not an array'],
    [
      'a weight above 1',
      {
        ...NOTE,
        factors: [
          { factor: 'x', weight: 0.5 },
          { factor: 'y', weight: 1.5 },
        ],
      },
      'factors/1/weight is not between 0 and 1',
    ],
    [
      'a factor without text',
      { ...NOTE, factors: [{ weight: 0.5 }] },
      'factors/0/factor is not a non-empty text',
    ],
    [
      'an unknown action',
      { ...NOTE, recommendedAction: 'escalate' },
      'recommendedAction is not one of approve, review, decline',
    ],
  ];
  for (const [name, reply, problem] of cases) {
    it(`answers ${name} as a retryable error`, async () => {
      const { answer, usage } = await summarizeWith(openai, reply);
      expect(answer).toEqual({
        status: 'error',
        message: `the model did not answer a risk note: ${problem}`,
        retryable: true,
      });
      expect(usage.ai?.requests).toBe(1);
    });
  }

  it('says when the model was cut off at maxTokens', async () => {
    model.set({ answer: '{"riskLevel": "high", "summ', stopReason: 'max_tokens' });
    const { answer } = await anthropic.invoke('summarize', { subject: SUBJECT });
    expect(answer).toEqual({
      status: 'error',
      message: 'the model did not answer a risk note (cut off at maxTokens): the answer is not JSON',
      retryable: true,
    });
  });
});

describe('summarize: model vendor failures', () => {
  it('answers 429 and 5xx as retryable, 401 as a final error naming authentication, 400 as final', async () => {
    const expected: [number, Record<string, unknown>][] = [
      [429, { message: 'the model API answered 429', retryable: true }],
      [503, { message: 'the model API answered 503', retryable: true }],
      [
        401,
        { message: 'authentication failed: the model API answered 401 (check the MODEL_API_KEY secret)' },
      ],
      [400, { message: 'the model API answered 400: the model vendor answered 400' }],
    ];
    for (const [status, error] of expected) {
      model.set({ status });
      const { answer, usage } = await openai.invoke('summarize', { subject: SUBJECT });
      expect(answer, String(status)).toEqual({ status: 'error', ...error });
      expect(usage.ai).toEqual({ requests: 1, inputTokens: 0, outputTokens: 0 });
    }
    model.set({ answer: NOTE });
  });

  it('answers an unreachable model as retryable, and a refused request as final', async () => {
    const gone = await startModelDouble();
    const url = gone.url;
    await gone.close();
    const offline = await open({ provider: 'openai', baseUrl: url, model: 'm' });
    const unreachable = (await offline.invoke('summarize', { subject: SUBJECT })).answer;
    expect(unreachable).toMatchObject({ status: 'error', retryable: true });
    expect((unreachable as { message: string }).message).toMatch(/^the model request failed: /);

    const switchedOff = await open({ provider: 'openai', baseUrl: model.url, model: 'm' }, { ai: false });
    const refused = (await switchedOff.invoke('summarize', { subject: SUBJECT })).answer;
    expect(refused).toEqual({
      status: 'error',
      message: 'the platform refused the model request: ai: model requests are switched off for this app',
    });
  });
});

describe('conformance', () => {
  it('passes with the samples of test/conformance.ts', async () => {
    const report = await checkConformance(modulePath, setup());
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.passed).toBe(true);
  });
});
