// What an attempt comes to, through test calls on the real api and runner (src/calls/outcome.ts): how
// the module's answer is judged, and how a failed call is counted. A call the runner never ran (not_sent,
// busy, module_unavailable) is metered nowhere; one it may have run (unreachable, internal, timeout) is
// a call of its install. The network between api and runner is a link the tests can cut or stop.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { waitForRunner } from '../support/runner.ts';
import { type RunnerLink, startRunnerLink } from '../support/runner-link.ts';

let platform: CataloguePlatform;
let link: RunnerLink;
let cacheDir: string;
let admin: string;

const answersModule = (version = '1.0.0') =>
  buildFixture('answers', { '"version":"1.0.0"': `"version":"${version}"` });

beforeAll(async () => {
  cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-outcomes-'));
  platform = await startCataloguePlatform(
    {},
    {
      // One call at a time, so a second call finds the runner busy.
      runnerEnv: {
        APP_RUNNER_CONCURRENCY: '1',
        APP_RUNNER_TENANT_CONCURRENCY: '1',
        APP_RUNNER_CACHE_DIR: cacheDir,
      },
      runnerUrlFor: async (runnerUrl) => {
        link = await startRunnerLink(runnerUrl);
        return link.url;
      },
    },
  );
  admin = await platform.token({ tenant: 'outcomes' });
  const answers = await published(platform, admin, answersModule());
  await install('answers', answers.id);
  // Each action is priced: a charged attempt shows as spend.
  await ok(
    await call('/app-installs/answers/limits', 'PUT', {
      currency: 'EUR',
      prices: { sync: 100, later: 100 },
      budgets: [],
    }),
  );
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await link?.close();
  await fs.rm(cacheDir, { recursive: true, force: true });
});

const call = (pathname: string, method = 'GET', json?: unknown) =>
  platform.fetch(pathname, { method, token: admin, json });

async function install(name: string, versionId: string) {
  await ok(await call('/app-installs', 'POST', { name, versionId, enabled: false }), 201);
}

type TestAnswer = { status: string; error?: Record<string, unknown>; output?: unknown };
const test = async (name: string, action: string, input: unknown) =>
  ok<TestAnswer>(await call(`/app-installs/${name}/test`, 'POST', { action, input }));

/** The install's metering rows of today: action, calls and spend. */
async function metered(name: string) {
  const report = await ok<{ items: { action: string; calls: number; spend: unknown[] }[] }>(
    await call(`/app-installs/metering?install=${name}`),
  );
  return report.items.map(({ action, calls, spend }) => ({ action, calls, spend }));
}

describe("a test call's judgement of the module's answer", () => {
  it('answers an error answer with its retryable and retryAfterMs, metered but not charged', async () => {
    const before = await metered('answers');
    const answer = await test('answers', 'sync', {
      status: 'error',
      message: 'vendor said slow down',
      retryable: true,
      retryAfterMs: 2500,
    });
    expect(answer).toMatchObject({
      status: 'error',
      error: {
        code: 'app_call_failed',
        reason: 'error',
        message: 'vendor said slow down',
        retryable: true,
        retryAfterMs: 2500,
      },
    });
    const notRetryable = await test('answers', 'sync', { status: 'error', message: 'no', retryable: false });
    expect(notRetryable.error).toEqual({
      code: 'app_call_failed',
      reason: 'error',
      message: 'no',
      retryable: false,
    });
    expect(before).toEqual([]);
    expect(await metered('answers')).toEqual([{ action: 'sync', calls: 2, spend: [] }]);
  });

  it('refuses pending from a synchronous action and ok from an asynchronous one as contract breaches', async () => {
    const pending = await test('answers', 'sync', { status: 'pending', externalId: 'sess-1' });
    expect(pending).toEqual(
      expect.objectContaining({
        status: 'error',
        error: {
          code: 'app_call_failed',
          reason: 'contract',
          message: 'action sync is synchronous; it may not answer pending',
        },
      }),
    );
    const done = await test('answers', 'later', { status: 'ok', output: {} });
    expect(done).toMatchObject({
      status: 'error',
      error: {
        code: 'app_call_failed',
        reason: 'contract',
        message: 'action later is asynchronous; it answers pending',
      },
    });
    // The asynchronous action's pending answer is its success: charged.
    const started = await test('answers', 'later', { status: 'pending', externalId: 'sess-2' });
    expect(started).toMatchObject({ status: 'pending', externalId: 'sess-2', callbackTimeoutSeconds: 600 });
    expect((await metered('answers')).find((row) => row.action === 'later')).toEqual({
      action: 'later',
      calls: 2,
      spend: [{ currency: 'EUR', micros: 100 }],
    });
  });

  it("refuses output that breaks the action's output schema as validation_error at /output", async () => {
    const wrong = await test('answers', 'sync', { status: 'ok', output: { n: 'one' } });
    expect(wrong).toMatchObject({
      status: 'error',
      error: {
        code: 'validation_error',
        reason: 'output',
        message: "the output does not match action sync's output schema",
        details: { issues: [{ path: '/output/n' }] },
      },
    });
    expect(wrong).not.toHaveProperty('output');
    const right = await test('answers', 'sync', { status: 'ok', output: { n: 1 } });
    expect(right).toMatchObject({ status: 'success', output: { n: 1 } });
  });
});

describe('how a failed call is counted', () => {
  /** A test call of the sync action that fails in the runner or on the way there, for that reason. */
  async function failsWith(name: string, reason: string) {
    const answer = await test(name, 'sync', { status: 'ok', output: { n: 1 } });
    expect(answer).toMatchObject({ status: 'error', error: { code: 'app_call_failed', reason } });
    return answer.error;
  }

  /** Today's calls of an action of the install (0 when it has no row). */
  const callsOf = async (name: string, action: string) =>
    (await metered(name)).find((row) => row.action === action)?.calls ?? 0;

  it('counts a call no runner took (not_sent) for nothing', async () => {
    const before = await callsOf('answers', 'sync');
    await link.pause();
    try {
      expect((await failsWith('answers', 'not_sent'))?.message).toMatch(/^no runner took the call/);
    } finally {
      await link.resume();
    }
    expect(await callsOf('answers', 'sync')).toBe(before);
  });

  it('meters a call whose answer never came back (unreachable): the module ran', async () => {
    const before = await callsOf('answers', 'sync');
    link.mode = 'cut';
    try {
      await failsWith('answers', 'unreachable');
    } finally {
      link.mode = 'forward';
    }
    expect(await callsOf('answers', 'sync')).toBe(before + 1);
  });

  it('counts a call refused busy for nothing, and meters the call that held the runner (timeout)', async () => {
    const spin =
      '"actions":[{"name":"spin"},{"name":"grow"},{"name":"big"},{"name":"trap"},{"name":"leak"},{"name":"garbage"},{"name":"wrong_shape"},{"name":"tag"}]';
    const slow = await published(
      platform,
      admin,
      buildFixture('hostile', {
        [spin]:
          '"actions":[{"name":"spin","input":{"type":"object"},"output":{"type":"object"},"timeoutMs":3000}]',
      }),
    );
    await install('slow', slow.id);
    const before = await callsOf('answers', 'sync');
    const holding = test('slow', 'spin', {});
    await waitForRunner(platform.runnerUrl, (health) => health.inFlight === 1);
    await failsWith('answers', 'busy');
    expect(await holding).toMatchObject({ status: 'timeout', error: { reason: 'timeout' } });
    expect(await callsOf('answers', 'sync')).toBe(before);
    expect(await callsOf('slow', 'spin')).toBe(1);
  });

  it('counts a module whose stored bytes do not match their hash (module_unavailable) for nothing', async () => {
    const version = await published(platform, admin, answersModule('1.0.1'));
    await install('corrupted', version.id);
    const stored = path.join(platform.config.dataDir, 'modules', `${version.sha256}.wasm`);
    await fs.appendFile(stored, Buffer.from([0]));
    expect((await failsWith('corrupted', 'module_unavailable'))?.message).toBe(
      'the fetched module does not match its hash',
    );
    expect(await metered('corrupted')).toEqual([]);
  });

  it('meters a call the runner failed on itself (internal)', async () => {
    const version = await published(platform, admin, answersModule('1.0.2'));
    await install('broken-runner', version.id);
    // The runner cannot keep the module it fetched: its cache directory is a file.
    await fs.rm(cacheDir, { recursive: true, force: true });
    await fs.writeFile(cacheDir, 'not a directory');
    try {
      await failsWith('broken-runner', 'internal');
    } finally {
      await fs.rm(cacheDir, { force: true });
      await fs.mkdir(cacheDir);
    }
    expect(await metered('broken-runner')).toEqual([{ action: 'sync', calls: 1, spend: [] }]);
  });
});
