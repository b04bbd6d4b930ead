// The vendor and model doubles: routes and recordings over plain HTTP, the vendor double's outages
// (switched in code and over its control route), and the model double reached by a real module through
// the real ai host function (OpenAI and Anthropic shapes).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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

const OUTAGE_ERRORS = {
  unavailable: 'the vendor double is unavailable (an unavailable outage)',
  timeout: 'the vendor double held this request unanswered (a timeout outage)',
  final: 'the vendor double refuses every request (a final outage)',
};

/** Status, Retry-After, content type and JSON body of an answer. */
async function read(pending: Promise<Response>) {
  const response = await pending;
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    type: response.headers.get('content-type'),
    body: await response.json(),
  };
}

const outageAnswer = (
  mode: keyof typeof OUTAGE_ERRORS,
  status: number,
  retryAfter: string | null = null,
) => ({
  status,
  retryAfter,
  type: 'application/json',
  body: { error: OUTAGE_ERRORS[mode], outage: mode },
});

describe('vendor double outages', () => {
  let vendor: VendorDouble;
  const thing = () => fetch(`${vendor.url}/v1/things/7`);
  const control = (method: string, body?: string) =>
    read(fetch(`${vendor.url}/__double/outage`, { method, body }));

  beforeAll(async () => {
    vendor = await startVendorDouble([{ method: 'GET', path: '/v1/things/:id', json: { ok: true } }]);
  });
  afterEach(() => {
    vendor.recover();
    vendor.reset();
  });
  afterAll(() => vendor?.close());

  it('unavailable answers 503, or the 5xx and Retry-After given, and records requests without routing them', async () => {
    vendor.outage('unavailable');
    expect(vendor.outageMode).toBe('unavailable');
    expect(await read(thing())).toEqual(outageAnswer('unavailable', 503));
    vendor.outage({ mode: 'unavailable', status: 502, retryAfterSeconds: 30 });
    const posted = fetch(`${vendor.url}/v1/other`, { method: 'POST', body: 'x' });
    expect(await read(posted)).toEqual(outageAnswer('unavailable', 502, '30'));
    expect(vendor.requests.map((r) => [r.method, r.path, r.params, r.matched, r.outage, r.body])).toEqual([
      ['GET', '/v1/things/7', {}, false, 'unavailable', ''],
      ['POST', '/v1/other', {}, false, 'unavailable', 'x'],
    ]);
  });

  it('final answers 400, or the 4xx given, an error an app treats as final', async () => {
    vendor.outage('final');
    expect(await read(thing())).toEqual(outageAnswer('final', 400));
    vendor.outage({ mode: 'final', status: 422 });
    expect(await read(thing())).toEqual(outageAnswer('final', 422));
    expect(vendor.requests.map((r) => r.outage)).toEqual(['final', 'final']);
  });

  it('recover() restores the routes at once', async () => {
    vendor.outage('final');
    expect((await thing()).status).toBe(400);
    vendor.recover();
    expect(vendor.outageMode).toBeNull();
    expect(await read(thing())).toMatchObject({ status: 200, body: { ok: true } });
    expect(vendor.requests.map((r) => [r.matched, r.outage, r.params])).toEqual([
      [false, 'final', {}],
      [true, null, { id: '7' }],
    ]);
  });

  it('refuses a setting out of range or a field its mode does not take, and stays as it was', () => {
    expect(() => vendor.outage({ mode: 'unavailable', status: 404 })).toThrow(
      new RangeError('status must be an integer from 500 to 599 for the unavailable outage, not 404'),
    );
    expect(() => vendor.outage({ mode: 'final', retryAfterSeconds: 5 } as never)).toThrow(
      'the final outage takes status besides mode, not retryAfterSeconds',
    );
    expect(() => vendor.outage('down' as never)).toThrow(
      'mode must be one of unavailable, timeout, final, not "down"',
    );
    expect(vendor.outageMode).toBeNull();
  });

  it('timeout holds each request unanswered until recover(), which answers it 504', async () => {
    vendor.outage('timeout');
    let settled = false;
    const pending = thing().finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(vendor.held).toBe(1));
    expect(vendor.requests.map((r) => [r.path, r.outage])).toEqual([['/v1/things/7', 'timeout']]);
    expect(settled).toBe(false);
    vendor.recover();
    expect(await read(pending)).toEqual(outageAnswer('timeout', 504));
    expect(vendor.held).toBe(0);
    expect(await read(thing())).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('timeout with holdMs answers 504 once it elapses, and stays on', async () => {
    vendor.outage({ mode: 'timeout', holdMs: 100 });
    const started = performance.now();
    expect(await read(thing())).toEqual(outageAnswer('timeout', 504));
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(vendor.held).toBe(0);
    expect(vendor.outageMode).toBe('timeout');
  });

  it('frees a held request whose client gives up', async () => {
    vendor.outage('timeout');
    const abort = new AbortController();
    const pending = fetch(`${vendor.url}/v1/things/7`, { signal: abort.signal });
    await vi.waitFor(() => expect(vendor.held).toBe(1));
    abort.abort();
    await expect(pending).rejects.toThrow('This operation was aborted');
    await vi.waitFor(() => expect(vendor.held).toBe(0));
  });

  it('close() ends the held requests: their fetch settles and close resolves', async () => {
    const own = await startVendorDouble();
    own.outage('timeout');
    // The handler is attached at once: the fetch may reject while close() is still awaited.
    const settled = fetch(`${own.url}/anything`).then(
      (answer) => `answered ${answer.status}`,
      (error: Error) => error.message,
    );
    await vi.waitFor(() => expect(own.held).toBe(1));
    await own.close();
    expect(await settled).toBe('fetch failed');
    expect(own.held).toBe(0);
  });

  it('switches over HTTP: POST sets, GET reads, DELETE recovers, answered in an outage and never recorded', async () => {
    const unavailable = { mode: 'unavailable', status: 503, retryAfterSeconds: 30 };
    const posted = await control('POST', '{"mode":"unavailable","retryAfterSeconds":30}');
    expect(posted).toEqual({
      status: 200,
      retryAfter: null,
      type: 'application/json',
      body: { outage: unavailable, held: 0 },
    });
    expect(vendor.outageMode).toBe('unavailable');
    expect(await read(thing())).toEqual(outageAnswer('unavailable', 503, '30'));
    expect((await control('GET')).body).toEqual({ outage: unavailable, held: 0 });
    expect(await control('DELETE')).toMatchObject({ status: 200, body: { outage: null, held: 0 } });
    expect(vendor.outageMode).toBeNull();
    expect(await read(thing())).toMatchObject({ status: 200, body: { ok: true } });
    expect((await control('GET')).body).toEqual({ outage: null, held: 0 });
    expect(vendor.requests.map((r) => [r.path, r.outage])).toEqual([
      ['/v1/things/7', 'unavailable'],
      ['/v1/things/7', null],
    ]);
  });

  it('refuses a bad control request with a JSON error, leaving the outage off', async () => {
    const refusals: [string, string, number, string][] = [
      ['POST', 'unavailable', 400, 'the body must be JSON like { "mode": "unavailable" }: Unexpected token'],
      ['POST', '["unavailable"]', 400, 'an outage is { "mode": unavailable | timeout | final, … }'],
      ['POST', '{"mode":"down"}', 400, 'mode must be one of unavailable, timeout, final, not "down"'],
      ['POST', '{}', 400, 'mode must be one of unavailable, timeout, final, not undefined'],
      [
        'POST',
        '{"mode":"timeout","status":504}',
        400,
        'the timeout outage takes holdMs besides mode, not status',
      ],
      [
        'POST',
        '{"mode":"final","status":"418"}',
        400,
        'status must be an integer from 400 to 499 for the final outage, not "418"',
      ],
      ['PUT', '{"mode":"final"}', 405, '/__double/outage takes GET, POST and DELETE, not PUT'],
    ];
    for (const [method, body, status, error] of refusals) {
      const answer = await control(method, body);
      expect(answer, body).toMatchObject({ status, type: 'application/json' });
      expect(answer.body.error, body).toContain(error);
    }
    const unknown = await read(fetch(`${vendor.url}/__double/nothing`));
    expect(unknown).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining('GET, POST and DELETE /__double/outage') },
    });
    expect(vendor.outageMode).toBeNull();
    expect(vendor.requests).toEqual([]);
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
