// What the runner and its client record, through the real runner in this process and a module (the echo
// fixture relaying host calls): a module's cache operations by op (hit, miss, set, delete), a model
// request against a model double on loopback (requests, tokens as the vendor reported them, duration),
// and a call in flight through the runner client while its vendor holds the answer. Read through the
// SDK's own reader on the global meter provider.
import { randomUUID } from 'node:crypto';
import { metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRunnerClient } from '../../src/runner/index.ts';
import { startVendor, type Vendor } from '../runner/egress/vendor.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

let platform: TestPlatform;
let runner: TestRunner;
let model: Vendor;
let echo: string;
/** Answers of the vendor's /held, each sent when called. */
const held: (() => void)[] = [];
let reader: TestMetricReader;

beforeAll(async () => {
  reader = readGlobalMetrics();
  model = await startVendor();
  model.route('/v1/chat/completions', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      }),
    );
  });
  model.route('/held', (_request, response) => {
    held.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startTestRunner(platform, { APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
  echo = await runner.store(await buildFixture('echo'));
}, 120_000);

afterAll(async () => {
  await runner?.close();
  await platform?.close();
  await model?.close();
  metrics.disable();
});

async function hostCall(fn: string, request: unknown, cache: unknown[] = []) {
  const response = await runner.post('/v1/invoke', {
    module: { sha256: echo },
    call: { id: randomUUID(), tenantId: randomUUID() },
    action: 'echo',
    config: {},
    secrets: { MODEL_KEY: 'sk-model-double-0123456789' },
    hosts: [`127.0.0.1:${model.port}`],
    input: { hostCall: { fn, request } },
    cache,
    timeoutMs: 20_000,
  });
  expect(response.status).toBe(200);
  return response.json();
}

it("counts a module's cache operations by op", async () => {
  const expiresAt = new Date(Date.now() + 60_000).toISOString();
  const cached = [{ name: 'token', value: 'cached-value-1', expiresAt }];
  await hostCall('cache', { op: 'get', name: 'token' }, cached);
  await hostCall('cache', { op: 'get', name: 'absent' }, cached);
  await hostCall('cache', { op: 'set', name: 'token', value: 'new-cached-value' });
  await hostCall('cache', { op: 'delete', name: 'token' }, cached);
  await hostCall('cache', { op: 'get', name: 'token' }, cached);
  const byOp = Object.fromEntries(
    (await reader.points('service.app.cache.operations')).map((p) => [p.attributes.op, p.value]),
  );
  expect(byOp).toEqual({ hit: 2, miss: 1, set: 1, delete: 1 });
});

it('counts a model request, the tokens the vendor reported, and its duration', async () => {
  const answer = await hostCall('ai', {
    provider: 'openai',
    url: `http://127.0.0.1:${model.port}/v1/chat/completions`,
    apiKey: '{{secret:MODEL_KEY:__TAG__}}',
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'Say hello' }],
  });
  expect(answer.answer.output.answer).toMatchObject({
    content: 'Hello.',
    usage: { inputTokens: 11, outputTokens: 7 },
  });
  expect(await reader.points('service.app.ai.requests')).toEqual([{ attributes: {}, value: 1 }]);
  expect(await reader.points('service.app.ai.tokens')).toEqual([{ attributes: {}, value: 18 }]);
  expect(await reader.value('service.app.ai.duration')).toBe(1);
});

it('counts a call in flight through the runner client until the runner answers', async () => {
  const client = createRunnerClient({ baseUrl: runner.url, token: RUNNER_TOKEN });
  try {
    const answered = client.invoke({
      module: { sha256: echo },
      call: { id: randomUUID(), tenantId: randomUUID() },
      action: 'echo',
      idempotencyKey: null,
      config: {},
      secrets: {},
      hosts: [`127.0.0.1:${model.port}`],
      input: {
        hostCall: {
          fn: 'http_request',
          request: { method: 'GET', url: `http://127.0.0.1:${model.port}/held` },
        },
      },
      cache: [],
      documents: null,
      timeoutMs: 20_000,
    });
    await expect.poll(() => held.length).toBe(1);
    expect(await reader.value('service.app.calls.in_flight')).toBe(1);
    held.shift()?.();
    expect((await answered).ok).toBe(true);
    expect(await reader.value('service.app.calls.in_flight')).toBe(0);
  } finally {
    await client.close();
  }
});
