// APP_RUNNER_URL listing several runners: two real runner services, calls spread over both, a runner
// that is down skipped for the next one (docs/operations.md "Production topology").
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrlsOf, createRunnerClient, tryOrder } from '../../src/runner/runner-pool.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

let platform: TestPlatform;
let first: TestRunner;
let second: TestRunner;
let echo: string;
const tenantId = randomUUID();

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  first = await startTestRunner(platform);
  second = await startTestRunner(platform);
  echo = await first.store(await buildFixture('echo'));
}, 120_000);
afterAll(async () => {
  await first?.close();
  await second?.close();
  await platform?.close();
});

const invokeBody = (n: number) => ({
  module: { sha256: echo },
  call: { id: randomUUID(), tenantId },
  action: 'echo',
  config: {},
  input: { n },
  timeoutMs: 5000,
});

/** Whether a runner fetched the module into its cache: a call of it reached that runner. */
const cached = async (runner: TestRunner) =>
  (await fs.readdir(runner.cacheDir, { recursive: true })).some((name) => String(name).includes(echo));

describe('tryOrder', () => {
  it.each([
    [0, 1, [0]],
    [0, 2, [0, 1]],
    [1, 2, [1, 0]],
    [2, 3, [2, 0, 1]],
  ])('from %i over %i runners: %j', (start, count, order) => {
    expect(tryOrder(start, count)).toEqual(order);
  });
});

describe('baseUrlsOf', () => {
  it('keeps one URL as given and splits a list', () => {
    expect(baseUrlsOf('http://runner:3002/')).toEqual(['http://runner:3002/']);
    expect(baseUrlsOf('http://a:3002, http://b:3002/')).toEqual(['http://a:3002', 'http://b:3002']);
  });
});

describe('a client over two real runners', () => {
  it('lands calls on both, every one answered', async () => {
    const client = createRunnerClient({ baseUrl: `${first.url},${second.url}`, token: RUNNER_TOKEN });
    try {
      const results = await Promise.all([1, 2, 3, 4].map((n) => client.invoke(invokeBody(n))));
      expect(results.map((result) => result.ok)).toEqual([true, true, true, true]);
      expect(await cached(first)).toBe(true);
      expect(await cached(second)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('sends a call the down runner did not take to the other one', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const client = createRunnerClient({ baseUrl: `${down},${first.url}`, token: RUNNER_TOKEN });
    try {
      const results = await Promise.all([1, 2, 3, 4].map((n) => client.invoke(invokeBody(n))));
      expect(results.map((result) => result.ok)).toEqual([true, true, true, true]);
      const verdict = await client.inspect(await buildFixture('echo'));
      expect(verdict).toMatchObject({ ok: true, value: { accepted: true } });
    } finally {
      await client.close();
    }
  });

  it('answers not_sent when no runner of the list took the call', async () => {
    const downs = [await freePort(), await freePort()].map((port) => `http://127.0.0.1:${port}`);
    const client = createRunnerClient({ baseUrl: downs.join(','), token: RUNNER_TOKEN });
    try {
      expect(await client.invoke(invokeBody(1))).toMatchObject({ ok: false, code: 'not_sent' });
    } finally {
      await client.close();
    }
  });
});
