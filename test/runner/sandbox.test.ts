// The sandbox against modules written to break out of it, through the real runner in a process of its
// own (so what a module does to the process — its descriptors, memory, OS threads — is watched from
// outside): no module reaches a descriptor of the process, makes the main thread hold what it asks, keeps
// memory past its cap, or leaves an OS thread behind its deadline. Waits are on the runner's state.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  RUNNER_TOKEN,
  type RunnerProcess,
  startRunnerProcess,
  startTestRunner,
  type TestRunner,
  waitForRunner,
} from '../support/runner.ts';
import { staticAnswer } from './attack-modules.ts';
import {
  allocationBomb,
  deepStringAnswer,
  descriptorWatcher,
  exiter,
  growingStart,
  hugeError,
  hugeOutput,
  logFlood,
  memoryToucher,
  pageByPageGrower,
  requestFlood,
  sleeper,
  variableBomb,
  variableSpellings,
} from './hostile-modules.ts';
import { probeModule } from './isolation-modules.ts';

const THREADS = 10;
let platform: TestPlatform;
let runner: RunnerProcess;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startRunnerProcess(platform, {
    APP_RUNNER_CONCURRENCY: String(THREADS),
    APP_RUNNER_TENANT_CONCURRENCY: String(THREADS),
    APP_RUNNER_WARM_PLUGINS: '0',
  });
  await growPoolToMost();
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

interface Answered {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a runner answer, read field by field in the assertions
  body: any;
}

async function invoke(
  sha256: string,
  options: { tenantId?: string; timeoutMs?: number; action?: string; secrets?: Record<string, string> } = {},
) {
  const response = await runner.post('/v1/invoke', {
    module: { sha256 },
    call: { id: randomUUID(), tenantId: options.tenantId ?? randomUUID() },
    action: options.action ?? 'attack',
    config: {},
    secrets: options.secrets ?? {},
    hosts: [],
    input: {},
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  return { status: response.status, body: await response.json() } as Answered;
}

/**
 * THREADS calls at once, each holding its thread until its deadline: the pool grows to its most (it starts
 * with as many threads as the machine has cores), as a busy runner's has, so the OS threads and memory
 * measured below are those of THREADS threads throughout.
 */
async function growPoolToMost() {
  const sleeping = await runner.store(sleeper(20), 16);
  const ended = await Promise.all(
    Array.from({ length: THREADS }, () => invoke(sleeping, { timeoutMs: 300 })),
  );
  expect(ended.map((answer) => answer.status)).toEqual(Array(THREADS).fill(504));
  await waitForRunner(runner.url, (health) => health.threads === THREADS && health.inFlight === 0);
}

/** Waits until the runner process has at most `count` OS threads; bounded, so a thread left behind fails. */
async function threadsDownTo(count: number, withinMs: number) {
  const giveUpAt = Date.now() + withinMs;
  while (runner.osThreads() > count) {
    if (Date.now() > giveUpAt) throw new Error(`the runner kept ${runner.osThreads()} OS threads`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('descriptors', () => {
  it('a module that closes fd 1 and 2 and watches every descriptor never sees or answers another client', async () => {
    const [watcher, probe] = await Promise.all([
      runner.store(descriptorWatcher()),
      runner.store(probeModule()),
    ]);
    const watching = invoke(watcher, { timeoutMs: 4_000 });
    await waitForRunner(runner.url, (health) => health.inFlight >= 1);
    // Other tenants' calls open connections to the runner while the watcher writes a forged answer to
    // fd 2 and reads every descriptor up to 63: each gets its own answer, whole.
    for (let wave = 0; wave < 5; wave++) {
      const answers = await Promise.all(
        Array.from({ length: THREADS - 1 }, () => invoke(probe, { action: 'state' })),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body.answer).toEqual({
          status: 'ok',
          output: { global: 0, memory: 0, after: { global: 7001, memory: 7002 } },
        });
      }
    }
    // It never found a descriptor to act on (that would trap at once): it ran until its deadline.
    const watched = await watching;
    expect(watched.status).toBe(504);
    expect(watched.body.error.code).toBe('timeout');
    expect(runner.alive()).toBe(true);
  }, 60_000);
});

describe('host function requests', () => {
  it('a 32 MiB log request is refused in its thread 100,000 times, unread, and the process keeps its memory', async () => {
    const flood = await runner.store(logFlood(32, 100_000), 256);
    const before = runner.memory();
    const { status, body } = await invoke(flood, { timeoutMs: 60_000 });
    expect(status).toBe(200);
    expect(body.answer).toEqual({
      status: 'ok',
      output: { first: { error: 'log: the request is larger than 16384 bytes', refused: true }, n: 100_000 },
    });
    expect(body.logs).toEqual([]);
    expect(body.usage.logLines).toBe(0);
    // The module's own 32 MiB block and its linear memory; nothing of 100,000 copies.
    expect(runner.memory().peakMiB - before.peakMiB).toBeLessThan(256 + 64);
    expect(runner.alive()).toBe(true);
  }, 90_000);
});

describe('what a module writes is read on its own thread', () => {
  // Before, the main thread parsed each request (JSON.parse of 12 MiB nested 6M deep: about 3 s, every
  // tenant waiting) and the host function then refused it for its shape.
  it('a 12 MiB request nested 6M deep, sent to hmac 20 times, is refused on the thread, unparsed', async () => {
    const flood = await runner.store(
      requestFlood({ fn: 'hmac', bytes: 12 * 1024 * 1024, first: '[', second: ']', times: 20 }),
      64,
    );
    const { status, body } = await invoke(flood, { timeoutMs: 60_000 });
    expect(status).toBe(200);
    expect(body.answer).toEqual({
      status: 'ok',
      output: { first: { error: 'hmac: the request nests deeper than 8 levels', refused: true }, n: 20 },
    });
  }, 90_000);

  it('a request of a million values is refused on the thread: the main thread never receives it', async () => {
    const flood = await runner.store(
      requestFlood({
        fn: 'http_request',
        bytes: 2 * 1024 * 1024,
        first: ',0',
        second: ',0',
        fixes: [
          [0, '['],
          [-2, ' '],
          [-1, ']'],
        ],
        times: 5,
      }),
      64,
    );
    const { status, body } = await invoke(flood, { timeoutMs: 60_000 });
    expect(status).toBe(200);
    expect(body.answer.output).toEqual({
      first: { error: 'http_request: the request holds more than 1000 values', refused: true },
      n: 5,
    });
  }, 90_000);

  it('an answer of 1 MiB of strings holding JSON 999 levels deep is read and redacted on the thread', async () => {
    const secret = 'sk-live-deep-0123456789';
    const nested = `${'['.repeat(998)}"${secret}"${']'.repeat(998)}`;
    const strings = Array.from({ length: 500 }, () => nested);
    const answer = JSON.stringify({ status: 'ok', output: strings });
    expect(answer.length).toBeGreaterThan(1_000_000);
    const module = await runner.store(staticAnswer(answer), 16);
    const { status, body } = await invoke(module, { secrets: { API_KEY: secret }, timeoutMs: 60_000 });
    expect(body.error).toBeUndefined();
    expect(status).toBe(200);
    const redacted = `${'['.repeat(998)}"[secret:API_KEY]"${']'.repeat(998)}`;
    expect(body.answer.output).toHaveLength(500);
    expect(new Set(body.answer.output)).toEqual(new Set([redacted]));
    expect(JSON.stringify(body)).not.toContain('sk-live');
  }, 90_000);
});

describe('memory past the cap', () => {
  it('var_set traps at the memory limit; four bombs at once grow the process by less than their caps', async () => {
    const bomb = await runner.store(variableBomb(), 16);
    const before = runner.memory();
    const answers = await Promise.all(Array.from({ length: 4 }, () => invoke(bomb)));
    for (const { status, body } of answers) {
      expect(status).toBe(502);
      expect(body.error).toMatchObject({
        code: 'trapped',
        message: "the module trapped: var_set: the call's memory limit of 16 MiB is reached",
      });
    }
    // Each call: 16 MiB of linear memory and 16 MiB of kernel blocks and variables, plus 64 MiB in all.
    expect(runner.memory().peakMiB - before.peakMiB).toBeLessThan(4 * 2 * 16 + 64);
  });

  it('alloc past the cap answers 0 and keeps nothing: the block it would have given cannot be written', async () => {
    const [counting, writing] = await Promise.all([
      runner.store(allocationBomb(1024 * 1024), 16),
      runner.store(allocationBomb(1024 * 1024, true), 16),
    ]);
    // 16 MiB: fifteen 1 MiB blocks beside the call's input, and not a sixteenth.
    expect((await invoke(counting)).body.answer).toEqual({ status: 'ok', output: { n: 15 } });
    const written = await invoke(writing);
    expect(written.body.error).toMatchObject({
      code: 'trapped',
      message: 'the module trapped: store_u8 outside any block the module holds',
    });
  });

  it('a call growing its memory a page at a time to the largest cap answers: no collection storm', async () => {
    // V8 collects all garbage on each allocation outside a thread's heap once such memory passes half
    // the heap's limit; with a limit below a call's caps, these 4,000 grows were 4,000 full collections.
    // The call's time is the largest a call may have: on a loaded machine (a full suite beside other
    // work) 10 s was once not enough, and the test is about answering at all, not how fast.
    const grower = await runner.store(pageByPageGrower(), 256);
    const { status, body } = await invoke(grower, { timeoutMs: 120_000 });
    expect(status).toBe(200);
    expect(body.answer.output.n).toBeGreaterThan(4000);
  }, 150_000);

  it('one variable name in two spellings, set by one and deleted by the other 80 times, lifts no budget', async () => {
    // Issue row 5: the kernel gave back the bytes of the key passed at deletion (3 MiB) for a variable
    // charged by a 1 MiB key; allocations of 64 MiB then succeeded on a 16 MiB module (8 of 8 at 260 rounds).
    const spellings = await runner.store(variableSpellings(), 16);
    const { status, body } = await invoke(spellings, { timeoutMs: 60_000 });
    expect(status).toBe(200);
    expect(body.answer).toEqual({ status: 'ok', output: { n: 0 } });
  }, 90_000);

  it('empty blocks are bounded too: 65,534 beside the input, the addresses a block index has', async () => {
    const empty = await runner.store(allocationBomb(0), 16);
    expect((await invoke(empty)).body.answer).toEqual({ status: 'ok', output: { n: 65_534 } });
  });
});

describe('error and output text', () => {
  const SECRET = 'sk-live-0123456789abcdef';

  it('an error set on a 250 MiB block is read from its start only: trapped, redacted, 2,000 characters at most', async () => {
    const text = `upstream said {"key":"${SECRET}"} and ${SECRET.toUpperCase()}`;
    const failing = await runner.store(hugeError(250, text), 256);
    const before = runner.memory();
    const { status, body } = await invoke(failing, { secrets: { API_KEY: SECRET } });
    expect(status).toBe(502);
    expect(body.error.code).toBe('trapped');
    expect(body.error.message).toMatch(
      /^the module trapped: Plugin-originated error: upstream said \{"key":"\[secret:API_KEY\]"\} and \[secret:API_KEY\]/,
    );
    expect(body.error.message.length).toBeLessThanOrEqual(2000);
    expect(JSON.stringify(body).toLowerCase()).not.toContain(SECRET);
    // Decoded whole and redacted on the main thread, it took seconds and 2.3 GB.
    expect(runner.memory().peakMiB - before.peakMiB).toBeLessThan(128);
  }, 60_000);

  it('an output of 250 MiB is bad_output, measured in its thread and never copied', async () => {
    const huge = await runner.store(hugeOutput(250), 256);
    const before = runner.memory();
    const { status, body } = await invoke(huge);
    expect(status).toBe(502);
    expect(body.error).toMatchObject({
      code: 'bad_output',
      message: 'the invoke answer is larger than 1 MiB',
    });
    expect(runner.memory().peakMiB - before.peakMiB).toBeLessThan(128);
  }, 60_000);
});

describe('memory given back', () => {
  it('four calls growing their memory to 256 MiB leave the process its size once answered', async () => {
    const toucher = await runner.store(memoryToucher(), 256);
    await waitForRunner(runner.url, (health) => health.threads === THREADS && health.inFlight === 0);
    const baseline = runner.memory().rssMiB;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => invoke(toucher, { timeoutMs: 60_000 })),
    );
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body.answer.output.n).toBeGreaterThan(4000);
    }
    // Each thread collected what its call made before answering; the pages go back to the system as the
    // memories are freed. Bounded by the test's time: memory kept (1 GiB) never drops.
    while (runner.memory().rssMiB > baseline + 128) await new Promise((resolve) => setImmediate(resolve));
  }, 60_000);
});

describe('warm instances', () => {
  let warmOne: TestRunner;
  beforeAll(async () => {
    warmOne = await startTestRunner(platform, { APP_RUNNER_CONCURRENCY: '1', APP_RUNNER_WARM_PLUGINS: '2' });
  });
  afterAll(() => warmOne?.close());

  const call = async (sha256: string) => {
    const response = await warmOne.post('/v1/invoke', {
      module: { sha256 },
      call: { id: randomUUID(), tenantId: randomUUID() },
      action: 'attack',
      config: {},
      hosts: [],
      input: {},
      timeoutMs: 5_000,
    });
    // biome-ignore lint/suspicious/noExplicitAny: a runner answer, read field by field
    const body: any = await response.json();
    return { answer: body.answer, warm: body.warm, error: body.error };
  };

  it('are not kept for a module whose start code grew its memory: each call makes its own', async () => {
    // One thread: the warm-up after a call finishes before the next call gets the thread.
    const [small, large] = await Promise.all([
      warmOne.store(growingStart(0), 64),
      warmOne.store(growingStart(512), 64), // 32 MiB more
    ]);
    expect(await call(small)).toMatchObject({ warm: false });
    expect(await call(small)).toMatchObject({ warm: true, answer: { status: 'ok', output: { n: 1 } } });
    for (let i = 0; i < 3; i++)
      expect(await call(large)).toEqual({ warm: false, answer: { status: 'ok', output: { n: 1 } } });
  });

  it('never run a module whose memory is exported under another name: nothing could measure it', async () => {
    // Issue row 6: only an export named `memory` was measured; this one was kept warm at 250 MiB. Such a
    // module is refused at upload (missing_export) and, stored before that, before it runs.
    const renamed = await warmOne.store(growingStart(4000, 'mem'), 256);
    expect((await call(renamed)).error).toMatchObject({
      code: 'invalid_module',
      message: expect.stringContaining('memory'),
    });
  });
});

describe('poll_oneoff', () => {
  it('ten calls sleeping 20 s end at their 300 ms deadline, and their OS threads go with them', async () => {
    const sleeping = await runner.store(sleeper(20), 16);
    await waitForRunner(runner.url, (health) => health.threads === THREADS && health.inFlight === 0);
    const baseline = runner.osThreads();
    const answers = await Promise.all(
      Array.from({ length: THREADS }, () => invoke(sleeping, { timeoutMs: 300 })),
    );
    for (const { status, body } of answers) {
      expect(status).toBe(504);
      expect(body.error.code).toBe('timeout');
    }
    // Far less than the 20 s asked: a native sleep would keep its OS thread until then.
    await threadsDownTo(baseline, 10_000);
    expect(runner.alive()).toBe(true);
  }, 60_000);

  it('a sleep within the deadline comes back', async () => {
    const napping = await runner.store(sleeper(0), 16);
    expect((await invoke(napping)).body.answer).toEqual({ status: 'ok', output: { n: 1 } });
  });
});

describe('what a module answers', () => {
  it('proc_exit ends the call as a trap naming it and its code', async () => {
    const exiting = await runner.store(exiter(3), 16);
    expect((await invoke(exiting)).body.error).toMatchObject({
      code: 'trapped',
      message: 'the module trapped: the module called proc_exit(3)',
    });
  });

  it('JSON nested 6,000 levels inside a string of the answer is bad_output (past 1000), not an internal error', async () => {
    const deep = await runner.store(deepStringAnswer(6000), 16);
    const { status, body } = await invoke(deep);
    expect(status).toBe(502);
    expect(body.error).toMatchObject({
      code: 'bad_output',
      message: 'the invoke answer holds JSON in a string nested deeper than 1000 levels',
    });
  });
});
