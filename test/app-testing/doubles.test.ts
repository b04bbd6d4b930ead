// The vendor and model doubles: routes and recordings over plain HTTP, and the model double reached
// by a real module through the real ai host function (OpenAI and Anthropic shapes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadApp,
  type ModelDouble,
  startModelDouble,
  startVendorDouble,
  type VendorDouble,
} from '../../packages/app-testing/src/index.ts';
import { buildFixture } from '../support/assemblyscript.ts';

describe('startVendorDouble', () => {
  let vendor: VendorDouble;
  beforeAll(async () => {
    vendor = await startVendorDouble([
      { method: 'get', path: '/v1/things/:id', json: { ok: true } },
      {
        path: /^\/files\/(?<name>[a-z]+)\.txt$/,
        body: 'plain text',
        headers: { 'content-type': 'text/plain' },
      },
      {
        method: 'POST',
        path: '/v1/echo',
        respond: async (request) => ({
          status: 201,
          headers: { 'x-seen': request.method },
          json: JSON.parse(request.body),
        }),
      },
    ]);
  });
  afterAll(() => vendor?.close());

  it('listens on 127.0.0.1 and names its host for the loader’s hosts option', () => {
    expect(vendor.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(vendor.host).toBe(vendor.url.slice('http://'.length));
  });

  it('answers declared routes and records each request with its path parameters', async () => {
    vendor.reset();
    const thing = await fetch(`${vendor.url}/v1/things/a%20b?x=1`, { headers: { 'X-Key': 'k' } });
    expect(thing.status).toBe(200);
    expect(await thing.json()).toEqual({ ok: true });
    const file = await fetch(`${vendor.url}/files/notes.txt`);
    expect(await file.text()).toBe('plain text');
    const echoed = await fetch(`${vendor.url}/v1/echo`, { method: 'POST', body: '{"n":1}' });
    expect(echoed.status).toBe(201);
    expect(echoed.headers.get('x-seen')).toBe('POST');
    expect(await echoed.json()).toEqual({ n: 1 });

    expect(vendor.requests.map((r) => [r.method, r.path, r.params, r.matched])).toEqual([
      ['GET', '/v1/things/a%20b', { id: 'a b' }, true],
      ['GET', '/files/notes.txt', { name: 'notes' }, true],
      ['POST', '/v1/echo', {}, true],
    ]);
    expect(vendor.requests[0]?.query).toEqual({ x: '1' });
    expect(vendor.requests[0]?.headers['x-key']).toBe('k');
    expect(vendor.requests[2]?.body).toBe('{"n":1}');
  });

  it('answers 404 for what no route matches, records it, and takes more routes later', async () => {
    vendor.reset();
    const missing = await fetch(`${vendor.url}/v1/things`, { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(vendor.requests[0]).toMatchObject({ method: 'DELETE', path: '/v1/things', matched: false });
    vendor.route({ method: 'DELETE', path: '/v1/things', status: 204 });
    expect((await fetch(`${vendor.url}/v1/things`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('startModelDouble through the ai host function', () => {
  let module: Uint8Array;
  let model: ModelDouble;
  beforeAll(async () => {
    module = await buildFixture('vendor-app');
    model = await startModelDouble({ answer: { risk: 'low' }, usage: { inputTokens: 12, outputTokens: 5 } });
  }, 120_000);
  afterAll(() => model?.close());

  const secrets = { MODEL_KEY: 'sk-model-secret-1' };

  it('speaks OpenAI chat completions: records the prompt and answers content and token counts', async () => {
    model.reset();
    const app = await loadApp(module, {
      config: { baseUrl: 'https://vendor.example', modelUrl: `${model.url}/v1/chat/completions` },
      secrets,
      hosts: [model.host],
    });
    try {
      const result = await app.invoke('summarize', { text: 'Acme Ltd, founded 2001', provider: 'openai' });
      expect(result.answer).toEqual({
        status: 'ok',
        output: {
          model: {
            content: '{"risk":"low"}',
            stopReason: 'stop',
            usage: { inputTokens: 12, outputTokens: 5 },
          },
        },
      });
      expect(result.usage.ai).toEqual({ requests: 1, inputTokens: 12, outputTokens: 5 });
      expect(model.prompts).toHaveLength(1);
      expect(model.prompts[0]).toMatchObject({
        provider: 'openai',
        path: '/v1/chat/completions',
        model: 'test-model',
        system: 'Summarize the text.',
        messages: [{ role: 'user', content: 'Acme Ltd, founded 2001' }],
        maxTokens: 1024,
      });
      // The host filled the model credential for the vendor, never for the module.
      expect(model.prompts[0]?.headers.authorization).toBe('Bearer sk-model-secret-1');
      expect(JSON.stringify(result)).not.toContain('sk-model-secret-1');
    } finally {
      await app.close();
    }
  });

  it('speaks Anthropic messages, and the ai option reroutes a vendor URL to the double', async () => {
    model.reset();
    model.set({ answers: ['first', 'second'] });
    const app = await loadApp(module, {
      config: { baseUrl: 'https://vendor.example', modelUrl: 'https://api.anthropic.example/v1/messages' },
      secrets,
      ai: { double: model },
    });
    try {
      expect(app.hosts).toContain(model.host);
      const first = await app.invoke('summarize', { text: 'one', provider: 'anthropic' });
      const second = await app.invoke('summarize', { text: 'two', provider: 'anthropic' });
      const third = await app.invoke('summarize', { text: 'three', provider: 'anthropic' });
      const contents = [first, second, third].map(
        (r) => (r.answer as { output: { model: { content: string } } }).output.model.content,
      );
      expect(contents).toEqual(['first', 'second', 'second']);
      expect(first.answer).toMatchObject({ output: { model: { stopReason: 'end_turn' } } });
      expect(model.prompts[0]).toMatchObject({
        provider: 'anthropic',
        path: '/v1/messages',
        system: 'Summarize the text.',
      });
      expect(model.prompts[0]?.headers['x-api-key']).toBe('sk-model-secret-1');
      expect(model.prompts[0]?.headers['anthropic-version']).toBe('2023-06-01');
    } finally {
      await app.close();
      model.set({ answer: { risk: 'low' }, usage: { inputTokens: 12, outputTokens: 5 } });
    }
  });

  it('refuses a model host that is not approved, as the platform does', async () => {
    const app = await loadApp(module, {
      config: { baseUrl: 'https://vendor.example', modelUrl: `${model.url}/v1/chat/completions` },
      secrets,
    });
    try {
      const { answer } = await app.invoke('summarize', { text: 'x', provider: 'openai' });
      expect(answer).toMatchObject({
        output: { model: { refused: true, error: expect.stringContaining('not approved') } },
      });
    } finally {
      await app.close();
    }
  });

  it('starts its own double from model double settings, answers vendor errors, and ai: false refuses', async () => {
    const app = await loadApp(module, {
      config: {
        baseUrl: 'https://vendor.example',
        modelUrl: 'https://api.openai.example/v1/chat/completions',
      },
      secrets,
      ai: { status: 429 },
    });
    try {
      const { answer } = await app.invoke('summarize', { text: 'x', provider: 'openai' });
      expect(answer).toEqual({
        status: 'ok',
        output: { model: { error: 'the model vendor answered 429', status: 429 } },
      });
      expect(app.model?.prompts).toHaveLength(1);
    } finally {
      await app.close();
    }
    const off = await loadApp(module, {
      config: { baseUrl: 'https://vendor.example', modelUrl: model.url },
      secrets,
      ai: false,
    });
    try {
      const { answer } = await off.invoke('summarize', { text: 'x', provider: 'openai' });
      expect(answer).toMatchObject({ output: { model: { refused: true } } });
    } finally {
      await off.close();
    }
  });
});
