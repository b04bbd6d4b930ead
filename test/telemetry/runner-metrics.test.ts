// What the runner records, through the real runner in this process and a module (the echo fixture
// relaying host calls): a module's cache operations by op (hit, miss, set, delete), and a model request
// against a model double on loopback (requests, tokens as the vendor reported them, duration). Read
// through the SDK's own reader on the global meter provider.
import { randomUUID } from 'node:crypto';
import { metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startVendor, type Vendor } from '../runner/egress/vendor.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

let platform: TestPlatform;
let runner: TestRunner;
let model: Vendor;
let echo: string;
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
