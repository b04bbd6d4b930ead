// Isolation between calls, through the real runner HTTP service: what one call leaves in its instance
// (globals, linear memory) never reaches the next, warm or not, same tenant or not; a host answer that
// comes after its call ended reaches no one; a call that loops forever, bombs its memory or never
// finishes its start code costs only its own thread, and which failures replace a thread is pinned.
// Every wait is on the runner's health or the vendor double's own state, never on a clock.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture } from '../support/assemblyscript.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  RUNNER_TOKEN,
  type RunnerHealth,
  startTestRunner,
  type TestRunner,
  waitForRunner,
} from '../support/runner.ts';
import { type Received, startVendor, type Vendor } from './egress/vendor.ts';
import { GLOBAL_MARK, loopingStartModule, MEMORY_MARK, probeModule } from './isolation-modules.ts';

let platform: TestPlatform;
/** One thread, no warm instances: every call runs on the same thread, on an instance made for it. */
let single: TestRunner;
/** One thread with warm instances: calls take instances prepared ahead on that thread. */
let singleWarm: TestRunner;
/** Eight threads, eight calls a tenant at once. */
let eight: TestRunner;
/** Two threads, no warm instances (start code that never ends, twice at once). */
let pair: TestRunner;
let vendor: Vendor;
let probe: string;

beforeAll(async () => {
  vendor = await startVendor();
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  const open = { allowPrivateNetworks: true };
  [single, singleWarm, eight, pair] = await Promise.all([
    startTestRunner(platform, { APP_RUNNER_CONCURRENCY: '1', APP_RUNNER_WARM_PLUGINS: '0' }, open),
    startTestRunner(platform, { APP_RUNNER_CONCURRENCY: '1', APP_RUNNER_WARM_PLUGINS: '2' }),
    startTestRunner(
      platform,
      { APP_RUNNER_CONCURRENCY: '8', APP_RUNNER_TENANT_CONCURRENCY: '8', APP_RUNNER_WARM_PLUGINS: '8' },
      open,
    ),
    // Its start code limit lowered to 1 s (APP_RUNNER_START_LIMIT_MS): the test that reaches it waits less.
    startTestRunner(platform, {
      APP_RUNNER_CONCURRENCY: '2',
      APP_RUNNER_WARM_PLUGINS: '0',
      APP_RUNNER_START_LIMIT_MS: '1000',
    }),
  ]);
  probe = await single.store(probeModule());
}, 120_000);
afterAll(async () => {
  await Promise.all([single, singleWarm, eight, pair].map((runner) => runner?.close()));
  await platform?.close();
  await vendor?.close();
});

interface Answered {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a runner answer, read field by field in the assertions
  body: any;
  /** The whole answer as it came: what a leak would show up in. */
  text: string;
}

async function invoke(
  runner: TestRunner,
  sha256: string,
  action: string,
  options: { tenantId?: string; input?: unknown; timeoutMs?: number; hosts?: string[] } = {},
): Promise<Answered> {
  const response = await runner.post('/v1/invoke', {
    module: { sha256 },
    call: { id: randomUUID(), tenantId: options.tenantId ?? randomUUID() },
    action,
    config: {},
    hosts: options.hosts ?? [],
    input: options.input ?? {},
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

const health = async (runner: TestRunner) =>
  (await (await fetch(`${runner.url}/health`)).json()) as RunnerHealth;

/** What the probe answers when its instance is fresh: nothing in its global or memory before it marked them. */
const FRESH = { global: 0, memory: 0, after: { global: GLOBAL_MARK, memory: MEMORY_MARK } };

/** A vendor route that holds every request it gets until the test answers it. */
function holdingRoute(path: string) {
  const held: { request: Received; response: http.ServerResponse }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  vendor.route(path, (request, response) => {
    held.push({ request, response });
    for (const waiter of waiters.filter((w) => held.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    held,
    /** The first request held, for the test to answer. */
    first() {
      const [entry] = held;
      if (!entry) throw new Error(`no request reached ${path}`);
      return entry.response;
    },
    /** Resolves once `count` requests have arrived: a test waits on that, not on a clock. */
    arrived: (count: number) =>
      new Promise<void>((resolve) => {
        if (held.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
  };
}

const answerWith = (response: http.ServerResponse, body: string) =>
  response.writeHead(200, { 'content-type': 'text/plain' }).end(body);

describe('state written in one call is not there in the next', () => {
  const runners = [
    ['on an instance made for each call', () => single, false],
    ['on warm instances', () => singleWarm, true],
  ] as const;
  const tenants = [
    ['calls of one tenant', false],
    ['calls of two tenants', true],
  ] as const;

  describe.each(runners)('%s (one thread)', (_name, runnerOf, warm) => {
    it.each(tenants)('%s', async (_tenants, twoTenants) => {
      const runner = runnerOf();
      const first = randomUUID();
      const second = twoTenants ? randomUUID() : first;
      // With warm instances: a first call makes the pool want the module; each call then waits for the
      // thread to hold its two warm instances, so it takes one. Four calls: more than the warm instances
      // a thread holds, so an instance handed out twice would be met again.
      if (warm) expect((await invoke(runner, probe, 'state')).body.answer.output).toEqual(FRESH);
      const before = await health(runner);
      const answers: Answered[] = [];
      for (const tenantId of [first, second, first, second]) {
        if (warm) await waitForRunner(runner.url, (h) => h.warmPlugins === 2);
        answers.push(await invoke(runner, probe, 'state', { tenantId }));
      }
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        // What the call found (nothing), and that its marks did land in its own instance.
        expect(answer.body.answer.output).toEqual(FRESH);
        expect(answer.body.warm).toBe(warm);
      }
      // The same one thread ran both: none was replaced.
      expect(await health(runner)).toMatchObject({
        threads: 1,
        threadsReplaced: before.threadsReplaced,
        ...(warm ? {} : { warmPlugins: 0 }),
      });
    });
  });
});

describe('a host answer that comes after its call ended', () => {
  it('reaches no one: the next call on the replaced thread gets its own answer, on a fresh instance', async () => {
    const late = holdingRoute('/late');
    const next = holdingRoute('/next');
    const run = randomUUID();
    const LATE = `late-answer-${run}`;
    const NEXT = `next-answer-${run}`;
    const tenantId = randomUUID(); // one tenant: its kept-alive connections are shared by both calls
    const hosts = [`127.0.0.1:${vendor.port}`];
    const request = (path: string) => ({ method: 'GET', url: `http://127.0.0.1:${vendor.port}${path}` });

    const before = await health(single);
    const timedOut = await invoke(single, probe, 'fetch', {
      tenantId,
      hosts,
      input: request('/late'),
      timeoutMs: 1_000,
    });
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error).toMatchObject({ code: 'timeout', details: { usage: { httpRequests: 1 } } });
    // The request did reach the vendor, which still holds its answer.
    expect(late.held).toHaveLength(1);
    await waitForRunner(single.url, (h) => h.threadsReplaced === before.threadsReplaced + 1);

    // The next call on that (replaced) thread asks the vendor too; while it waits for its answer, the
    // late one is sent.
    const following = invoke(single, probe, 'fetch', { tenantId, hosts, input: request('/next') });
    await next.arrived(1);
    answerWith(late.first(), LATE);
    answerWith(next.first(), NEXT);
    const answered = await following;

    expect(answered.status).toBe(200);
    expect(answered.body.answer.output).toMatchObject({ ...FRESH, answer: { status: 200, body: NEXT } });
    expect(answered.body.usage).toMatchObject({ httpRequests: 1 });
    expect(answered.text).not.toContain(LATE);
    expect(timedOut.text).not.toContain(LATE);
    expect(vendor.requests.map((r) => r.url)).toEqual(expect.arrayContaining(['/late', '/next']));
    expect(await health(single)).toMatchObject({
      threads: 1,
      threadsReplaced: before.threadsReplaced + 1,
      inFlight: 0,
    });
  });
});

describe('a call that loops forever', () => {
  it('is terminated at its deadline while seven calls on the other threads complete with their own answers', async () => {
    const barrier = holdingRoute('/barrier');
    const tenantId = randomUUID(); // all eight calls from one tenant
    const hosts = [`127.0.0.1:${vendor.port}`];
    const run = randomUUID();
    const before = await health(eight);

    const spinning = invoke(eight, probe, 'spin', { tenantId, timeoutMs: 3_000 });
    const calls = Array.from({ length: 7 }, (_, n) =>
      invoke(eight, probe, 'fetch', {
        tenantId,
        hosts,
        input: { method: 'GET', url: `http://127.0.0.1:${vendor.port}/barrier?n=${n}` },
      }),
    );
    // The seven wait on the vendor at once, each on a thread of its own, beside the looping call.
    await barrier.arrived(7);
    await waitForRunner(eight.url, (h) => h.inFlight === 8);
    for (const { request, response } of barrier.held) answerWith(response, `${request.url}-${run}`);

    const answers = await Promise.all(calls);
    answers.forEach((answered, n) => {
      expect(answered.status).toBe(200);
      expect(answered.body.answer.output).toMatchObject({
        ...FRESH,
        answer: { status: 200, body: `/barrier?n=${n}-${run}` },
      });
    });
    const spun = await spinning;
    expect(spun.status).toBe(504);
    expect(spun.body.error.code).toBe('timeout');
    await waitForRunner(eight.url, (h) => h.inFlight === 0);
    expect(await health(eight)).toMatchObject({ threads: 8, threadsReplaced: before.threadsReplaced + 1 });
  });
});

describe('traps, memory bombs and timeouts (one thread)', () => {
  const expectFreshCall = async () => {
    const answered = await invoke(single, probe, 'state');
    expect(answered.status).toBe(200);
    expect(answered.body.answer.output).toEqual(FRESH);
  };

  it("stops memory growth at the cap written at store time: the module's own measure", async () => {
    for (const memoryMiB of [2, 3]) {
      const capped = await single.store(probeModule(), memoryMiB);
      const measured = await invoke(single, capped, 'measure');
      expect(measured.status).toBe(200);
      expect(measured.body.answer.output).toEqual({ pages: memoryMiB * 16 });
    }
  });

  it('answers a trap and a memory bomb trapped, without replacing the thread; the next call there is fresh', async () => {
    const hostile = await single.store(await buildFixture('hostile'), 16);
    const before = await health(single);
    const cases = [
      [probe, 'trap', 'the module trapped: unreachable'],
      [probe, 'bomb', 'the module trapped: memory access out of bounds'],
      [hostile, 'grow', 'the module trapped: unreachable'],
    ] as const;
    for (const [sha256, action, message] of cases) {
      const failed = await invoke(single, sha256, action);
      expect(failed.status, action).toBe(502);
      expect(failed.body.error, action).toMatchObject({ code: 'trapped', message });
      expect(await health(single), action).toMatchObject({
        threads: 1,
        threadsReplaced: before.threadsReplaced,
      });
      // trap and bomb marked their instance before failing; the next call on the same thread finds nothing.
      await expectFreshCall();
    }
  });

  it('replaces the thread of a call past its deadline; the next call runs on the new thread, fresh', async () => {
    const before = await health(single);
    const spun = await invoke(single, probe, 'spin', { timeoutMs: 300 });
    expect(spun.status).toBe(504);
    expect(spun.body.error.code).toBe('timeout');
    expect(await health(single)).toMatchObject({ threads: 1, threadsReplaced: before.threadsReplaced + 1 });
    await expectFreshCall();
  });
});

describe('start code that never ends', () => {
  it(
    'fails the call at the start limit (not its later deadline) and replaces the thread',
    {
      timeout: 30_000,
    },
    async () => {
      const modules = await Promise.all(
        (['start', '_initialize'] as const).map((kind) => pair.store(loopingStartModule(kind))),
      );
      const before = await health(pair);
      // Deadlines past the start limit (1 s here): the limit, not the deadline, ends these calls.
      const failed = await Promise.all(
        modules.map((sha256) => invoke(pair, sha256, 'any', { timeoutMs: 10_000 })),
      );
      for (const answered of failed) {
        expect(answered.status).toBe(502);
        expect(answered.body.error).toMatchObject({
          code: 'trapped',
          message: 'the module did not start: its start code ran past 1 s',
        });
      }
      expect(await health(pair)).toMatchObject({ threads: 2, threadsReplaced: before.threadsReplaced + 2 });
      // The replaced threads serve the next calls.
      const next = await invoke(pair, probe, 'state');
      expect(next.status).toBe(200);
      expect(next.body.answer.output).toEqual(FRESH);
    },
  );
});
