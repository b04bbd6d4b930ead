// Runner benchmark: what a sandboxed call costs. Side by side, in one run and one table: the floor (the
// echo module called in-process, no thread, no HTTP), an in-process fresh instance a call, POST
// /v1/invoke with a warm instance and without a warm pool, the first call of a module the runner has
// neither fetched nor compiled (cold), calls per second with concurrent callers, and the calls of those
// callers while looping calls (a module spinning until its 200 ms deadline) run beside them. Then the
// bench process's memory over 10,000 calls, what one instance costs, and the goals. Everything runs on
// loopback in this process: embedded PostgreSQL, the real api internal listener serving the modules, the
// real runners with their sandbox threads. Never part of the tests.
import '../src/runner/quiet-wasi.ts';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import createPlugin, { type CallContext } from '@extism/extism';
import pino from 'pino';
import { Agent, request } from 'undici';
import { moduleStorageOf, startApi } from '../src/api/index.ts';
import { readOrCreateLocalSecrets } from '../src/auth/local-keys.ts';
import { localVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';
import { HOST_FUNCTIONS } from '../src/module/imports.ts';
import { capMemory } from '../src/module/wasm.ts';
import { drawSecretTag, tagConfig } from '../src/runner/envelope.ts';
import { REFUSING_BINDING } from '../src/runner/host/refusal.ts';
import { startRunnerFromConfig } from '../src/runner/index.ts';
import { SandboxPool } from '../src/runner/threads/sandbox-pool.ts';
import { buildFixture } from '../test/support/assemblyscript.ts';
import { insertVersionRow } from '../test/support/runner.ts';
import {
  closedLoop,
  invokeBody,
  LOOP_TIMEOUT_MS,
  type Memory,
  mean,
  memoryNow,
  oneAfterAnother,
  poolRefilled,
  quantile,
  quiet,
  type Row,
  type Runner,
  rowOf,
  sender,
  sleep,
} from './runner-load.ts';
import { costOf, fmt, goal, printCost, printMemory, printTable } from './runner-report.ts';
import { withBenchDatabase } from './support.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CALLS = env('BENCH_RUNNER_CALLS', 300);
const THROUGHPUT_CALLS = env('BENCH_RUNNER_THROUGHPUT_CALLS', 1000);
const CALLERS = env('BENCH_RUNNER_CALLERS', 8);
const COLD_MODULES = env('BENCH_RUNNER_COLD_MODULES', 60);
const MEMORY_CALLS = env('BENCH_RUNNER_MEMORY_CALLS', 10_000);
const INSTANCES = env('BENCH_RUNNER_INSTANCES', 50);
const SETTLE_MS = env('BENCH_RUNNER_SETTLE_MS', 20);
const WARM_UP = 30;
const LOOP_EVERY = 10;
const MEMORY_MIB = 16;
const RUNNER_TOKEN = 'bench-runner-token';
/** Callers are spread over two tenants so the default limits (8 a process, 4 a tenant) hold 8 callers. */
const TENANTS = [randomUUID(), randomUUID()];
/** The tenant of the extra caller that sends looping calls only. */
const LOOPER_TENANT = randomUUID();

const GOAL_WARM_OVER_FRESH_MS = 1;
const GOAL_CALLS_PER_SECOND = 1000;
const GOAL_COLD_P50_MS = 20;
const GOAL_LOOPING_SHARE = 0.5;

/** The envelope the runner hands the module for that body (spec part 1 §2.14), built the same way. */
function envelopeOf(body: ReturnType<typeof invokeBody>): string {
  const secretTag = drawSecretTag();
  return JSON.stringify({
    call: { id: body.call.id, tenantId: body.call.tenantId, secretTag },
    action: body.action,
    idempotencyKey: body.idempotencyKey,
    config: tagConfig(body.config, secretTag),
    input: body.input,
  });
}

/** In-process host functions: refusing, synchronous (the echo module calls none on a plain call). */
const refusing = Object.fromEntries(
  HOST_FUNCTIONS.map((name) => [
    name,
    (context: CallContext) => context.store(JSON.stringify({ error: `${name} refused`, refused: true })),
  ]),
);
const inProcessOptions = {
  useWasi: true,
  enableWasiOutput: false,
  functions: { 'extism:host/user': refusing },
  memory: { maxPages: MEMORY_MIB * 16 },
};

async function timed(count: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i++) await once();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await once();
    latencies.push(performance.now() - t);
  }
  return latencies;
}

const inProcessRow = (name: string, latencies: number[]): Row => ({
  name,
  runner: '-',
  latencies,
  perSecond: null,
  warm: null,
  loops: null,
  busy: 0,
  failed: 0,
});

/** The floor: one in-process instance (no thread, no HTTP), invoke called with a runner-sized envelope. */
async function measureFloor(module: WebAssembly.Module, envelope: string): Promise<Row> {
  const plugin = await createPlugin({ wasm: [{ module }] }, inProcessOptions);
  const latencies = await timed(CALLS, async () => {
    const text = (await plugin.call('invoke', envelope))?.text() ?? '';
    if (!text.startsWith('{"status":"ok"')) throw new Error(`floor: unexpected answer ${text.slice(0, 200)}`);
  });
  await plugin.close();
  return inProcessRow('floor: in-process call', latencies);
}

/** In-process, a fresh instance for every call (instantiation and start code included), no thread. */
async function measureFreshInProcess(module: WebAssembly.Module, envelope: string): Promise<Row> {
  const latencies = await timed(CALLS, async () => {
    const plugin = await createPlugin({ wasm: [{ module }] }, inProcessOptions);
    await plugin.call('invoke', envelope);
    await plugin.close();
  });
  return inProcessRow('in-process, fresh instance a call', latencies);
}

/** The module with a custom section naming `i` appended: new bytes, so no compiled code to reuse. */
function distinctBytes(bytes: Uint8Array, i: number): Uint8Array<ArrayBuffer> {
  const name = new TextEncoder().encode(`bench-${i}`);
  const out = new Uint8Array(bytes.byteLength + 3 + name.byteLength);
  out.set(bytes);
  out.set([0, name.byteLength + 1, name.byteLength, ...name], bytes.byteLength);
  return out;
}

/** p50 of a message round trip to a bare worker thread, back to back or after `idleMs` of idling. */
async function roundTripP50(worker: Worker, idleMs: number): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < 100; i++) {
    if (idleMs) await sleep(idleMs);
    const t = performance.now();
    await new Promise((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(i);
    });
    latencies.push(performance.now() - t);
  }
  return quantile(latencies, 0.5);
}

/** The fixture capped as an upload would be, stored where the internal listener serves it, published. */
async function storer(
  database: Parameters<typeof insertVersionRow>[0],
  storage: ReturnType<typeof moduleStorageOf>,
) {
  return async (bytes: Uint8Array) => {
    const capped = capMemory(bytes, MEMORY_MIB);
    if (!('bytes' in capped)) throw new Error(capped.message);
    const sha256 = await storage.put(capped.bytes);
    await insertVersionRow(database, sha256);
    return { sha256, bytes: capped.bytes };
  };
}

async function main() {
  await withBenchDatabase('apps-platform-bench-runner-', async ({ dir, url, closers }) => {
    const base = { DATABASE_URL: url, DATA_DIR: dir, HOST: '127.0.0.1', APP_RUNNER_TOKEN: RUNNER_TOKEN };
    const apiConfig = loadConfig({ ...base, PORT: '0', API_INTERNAL_PORT: '0' });
    const local = await readOrCreateLocalSecrets(dir);
    const database = openDatabase(url);
    closers.push(() => database.close());
    const silent = pino({ level: 'silent' });
    const storage = moduleStorageOf({ config: apiConfig });
    const api = await startApi({
      config: apiConfig,
      database,
      verifier: localVerifier(local.signingKey),
      logger: silent,
      modules: storage,
    });
    closers.unshift(() => api.close());

    // Every module stored before anything is timed; the variants differ in their manifest's version.
    const store = await storer(database, storage);
    const echo = await store(await buildFixture('echo'));
    const hostile = await store(await buildFixture('hostile'));
    console.log(`\nbuilding and storing ${COLD_MODULES} echo variants (built once, then cached)…`);
    const variants: string[] = [];
    for (let i = 0; i < COLD_MODULES; i++) {
      const bytes = await buildFixture('echo', { '"version":"1.0.0"': `"version":"1.0.${i + 1}"` });
      variants.push((await store(bytes)).sha256);
    }
    if (new Set(variants).size !== COLD_MODULES) throw new Error('the echo variants are not distinct');
    const shas = { echo: echo.sha256, spin: hostile.sha256 };
    const module = await WebAssembly.compile(echo.bytes);

    const agent = new Agent({ connections: (CALLERS + 1) * 2, keepAliveTimeout: 30_000 });
    closers.unshift(() => agent.close());
    let runners = 0;
    /** A runner with its own fresh cache directory; settled (its threads started) before it is used. */
    const startRunner = async (concurrency: number, tenantConcurrency: number, warmPlugins: number) => {
      const config = loadConfig({
        ...base,
        RUNNER_PORT: '0',
        APP_RUNNER_CACHE_DIR: path.join(dir, `runner-cache-${runners++}`),
        APP_RUNNER_CONCURRENCY: String(concurrency),
        APP_RUNNER_TENANT_CONCURRENCY: String(tenantConcurrency),
        APP_RUNNER_WARM_PLUGINS: String(warmPlugins),
        API_INTERNAL_URL: api.internalUrl,
      });
      const started = await startRunnerFromConfig(config, silent);
      let closing: Promise<void> | undefined;
      const runner: Runner = {
        url: started.url,
        settings: `${concurrency}/${tenantConcurrency}/${warmPlugins}`,
        close: () => (closing ??= started.close()),
      };
      closers.unshift(runner.close);
      await quiet();
      return runner;
    };
    const tenantOf = () => TENANTS[0] as string;
    const warmUp = async (send: ReturnType<typeof sender>) =>
      closedLoop(send, shas, { calls: WARM_UP * CALLERS, callers: CALLERS, tenants: TENANTS });

    const [load1] = os.loadavg();
    console.log(
      `\nrunner benchmark: echo module (${echo.bytes.byteLength} bytes, ${MEMORY_MIB} MiB cap), ${CALLS} ` +
        `sequential calls a row, ${THROUGHPUT_CALLS} calls with ${CALLERS} callers over ${TENANTS.length} ` +
        `tenants, ${COLD_MODULES} cold modules; ${os.cpus().length} cores, load average ` +
        `${fmt(load1 ?? null, 1)} at start, Node ${process.versions.node}\n`,
    );

    // In-process first, before any runner thread exists.
    await quiet();
    const envelope = envelopeOf(invokeBody(shas.echo, tenantOf()));
    const floor = await measureFloor(module, envelope);
    const fresh = await measureFreshInProcess(module, envelope);

    // The default runner: its memory over MEMORY_CALLS calls, then the warm rows and the healthy callers.
    const memory: Memory[] = [];
    const warmRunner = await startRunner(8, 4, 8);
    const warmSend = sender(warmRunner, agent, RUNNER_TOKEN);
    memory.push(memoryNow(`before: runner ${warmRunner.settings} started, no call`, 0));
    let calls = 0;
    for (const upTo of [1000, MEMORY_CALLS]) {
      await closedLoop(warmSend, shas, { calls: upTo - calls, callers: CALLERS, tenants: TENANTS });
      calls = upTo;
      memory.push(memoryNow(`after ${upTo} calls (${CALLERS} callers)`, calls));
    }
    const refilled = () => poolRefilled(warmRunner.url, 2, SETTLE_MS);
    const warmOnce = () => warmSend(shas.echo, tenantOf());
    const warm = rowOf(
      `invoke, warm (pool refilled, ${SETTLE_MS} ms idle)`,
      warmRunner.settings,
      await oneAfterAnother(CALLS, warmOnce, refilled),
      null,
    );
    const warmBackToBack = rowOf(
      'invoke, warm pool, back to back',
      warmRunner.settings,
      await oneAfterAnother(CALLS, warmOnce),
      null,
    );
    await refilled();
    const healthyRun = await closedLoop(warmSend, shas, {
      calls: THROUGHPUT_CALLS,
      callers: CALLERS,
      tenants: TENANTS,
    });
    const healthy = rowOf(
      `${CALLERS} callers, warm pool (healthy)`,
      warmRunner.settings,
      healthyRun.outcomes,
      healthyRun.seconds,
    );

    // No warm pool: every call makes its instance.
    const coldPoolRunner = await startRunner(8, 4, 0);
    const noWarmSend = sender(coldPoolRunner, agent, RUNNER_TOKEN);
    await warmUp(noWarmSend);
    const noWarm = rowOf(
      'invoke, no warm pool, back to back',
      coldPoolRunner.settings,
      await oneAfterAnother(CALLS, () => noWarmSend(shas.echo, tenantOf())),
      null,
    );
    const noWarmRun = await closedLoop(noWarmSend, shas, {
      calls: THROUGHPUT_CALLS,
      callers: CALLERS,
      tenants: TENANTS,
    });
    const noWarmLoad = rowOf(
      `${CALLERS} callers, no warm pool`,
      coldPoolRunner.settings,
      noWarmRun.outcomes,
      noWarmRun.seconds,
    );
    await coldPoolRunner.close();

    // Cold: a runner warmed on echo (its threads and its own code run), then one first call of each
    // variant: fetched from the api, verified, written to its cache, compiled, sent to a thread, run.
    const coldRunner = await startRunner(8, 4, 8);
    const coldSend = sender(coldRunner, agent, RUNNER_TOKEN);
    await warmUp(coldSend);
    const cold = rowOf(
      `invoke, cold: first call, ${COLD_MODULES} modules`,
      coldRunner.settings,
      await oneAfterAnother(
        COLD_MODULES,
        (i) => coldSend(variants[i] as string, tenantOf()),
        () => sleep(SETTLE_MS),
      ),
      null,
    );
    await coldRunner.close();

    // Looping calls among the healthy ones: first on the default runner, every caller's 10th call.
    await refilled();
    const everyTenthRun = await closedLoop(warmSend, shas, {
      calls: THROUGHPUT_CALLS,
      callers: CALLERS,
      tenants: TENANTS,
      loopEvery: LOOP_EVERY,
    });
    const everyTenth = rowOf(
      `${CALLERS} callers, 1 call in ${LOOP_EVERY} loops`,
      warmRunner.settings,
      everyTenthRun.outcomes,
      everyTenthRun.seconds,
    );
    // Then one more caller, a third tenant's, looping continuously: one thread more, so it never makes
    // the others busy.
    const looperRunner = await startRunner(CALLERS + 1, 4, 8);
    const looperSend = sender(looperRunner, agent, RUNNER_TOKEN);
    await warmUp(looperSend);
    const looperRun = await closedLoop(looperSend, shas, {
      calls: THROUGHPUT_CALLS,
      callers: CALLERS,
      tenants: TENANTS,
      looperTenant: LOOPER_TENANT,
    });
    const withLooper = rowOf(
      `${CALLERS} callers + 1 looping caller`,
      looperRunner.settings,
      looperRun.outcomes,
      looperRun.seconds,
    );
    await looperRunner.close();
    const health = (await (await request(`${warmRunner.url}/health`)).body.json()) as {
      threadsReplaced: number;
    };
    memory.push(
      memoryNow(`after every row (default runner: ${health.threadsReplaced} threads replaced)`, calls),
    );

    const rows = [
      floor,
      fresh,
      warm,
      warmBackToBack,
      noWarm,
      cold,
      healthy,
      noWarmLoad,
      everyTenth,
      withLooper,
    ];
    printTable(rows, floor, fresh, healthy);
    const healthyMean = mean(healthy.latencies);
    const ceiling = (CALLERS * (LOOP_EVERY - 1) * 1000) / ((LOOP_EVERY - 1) * healthyMean + LOOP_TIMEOUT_MS);
    const share = (row: Row) => (row.perSecond ?? 0) / (healthy.perSecond ?? Number.NaN);
    console.log(
      `\n1 call in ${LOOP_EVERY} loops: closed-loop ceiling ${CALLERS} × ${LOOP_EVERY - 1} / ` +
        `(${LOOP_EVERY - 1} × ${fmt(healthyMean, 2)} ms healthy mean + ${LOOP_TIMEOUT_MS} ms) = ` +
        `${fmt(ceiling, 0)} calls/s (×${fmt(ceiling / (healthy.perSecond ?? Number.NaN), 2)} of healthy): ` +
        `the callers' own waiting, even with unlimited CPU; the row reached ` +
        `${fmt((100 * (everyTenth.perSecond ?? 0)) / ceiling, 0)}% of it`,
    );
    printMemory(memory);

    // What one instance costs, and what the cold call is made of.
    const sandbox = new SandboxPool({ threads: 1, warmCapacity: 0, warmIdleMs: 60_000 });
    closers.unshift(() => sandbox.close());
    console.log(`\nwhat one instance costs (${INSTANCES} one after another; CPU of every thread)`);
    printCost(
      await costOf('worker thread, bare (start, answer, end)', INSTANCES, async () => {
        const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', { eval: true });
        await new Promise((resolve) => worker.once('message', resolve));
        await worker.terminate();
      }),
    );
    printCost(
      await costOf('sandbox thread call (fresh instance, no HTTP)', INSTANCES, async () => {
        const { result } = await sandbox.run(
          { sha256: shas.echo, module, maxPages: MEMORY_MIB * 16 },
          { exportName: 'invoke', input: envelope, deadlineMs: 5000, binding: REFUSING_BINDING },
        );
        if (result.kind !== 'answered') throw new Error(`instance: ${result.kind}`);
      }),
    );
    printCost(
      await costOf(
        'cold part: compile a new module (WebAssembly.compile)',
        INSTANCES,
        (i) => WebAssembly.compile(distinctBytes(echo.bytes, i)),
        false,
      ),
    );
    printCost(
      await costOf(
        'cold part: fetch a module from the api internal listener',
        INSTANCES,
        async (i) => {
          const response = await request(
            `${api.internalUrl}/internal/app-modules/${variants[i % COLD_MODULES]}`,
            {
              headers: { authorization: `Bearer ${RUNNER_TOKEN}` },
            },
          );
          await response.body.arrayBuffer();
          if (response.statusCode !== 200) throw new Error(`fetch: ${response.statusCode}`);
        },
        false,
      ),
    );
    const echoer = new Worker(
      'const { parentPort } = require("node:worker_threads"); parentPort.on("message", (m) => parentPort.postMessage(m))',
      { eval: true },
    );
    await roundTripP50(echoer, 0);
    const [backToBack, afterIdle] = [await roundTripP50(echoer, 0), await roundTripP50(echoer, SETTLE_MS)];
    await echoer.terminate();
    console.log(
      `${'thread message round trip p50, back to back'.padEnd(52)} ${fmt(backToBack, 3).padStart(6)} ms; ` +
        `after ${SETTLE_MS} ms idle ${fmt(afterIdle, 3)} ms (each hop of a call wakes an idle thread)`,
    );

    console.log('');
    const warmP50 = quantile(warm.latencies, 0.5);
    const freshP50 = quantile(fresh.latencies, 0.5);
    goal(
      `warm p50 within ${GOAL_WARM_OVER_FRESH_MS} ms of the in-process fresh instance: ${fmt(warmP50, 2)} ms ` +
        `vs ${fmt(freshP50, 2)} ms, +${fmt(warmP50 - freshP50, 2)} ms (back to back: ` +
        `${fmt(quantile(warmBackToBack.latencies, 0.5), 2)} ms)`,
      warmP50 - freshP50 <= GOAL_WARM_OVER_FRESH_MS,
    );
    const perSecond = healthy.perSecond ?? 0;
    goal(
      `at least ${GOAL_CALLS_PER_SECOND} calls/s with ${CALLERS} callers (warm pool): ${fmt(perSecond, 0)} calls/s`,
      perSecond >= GOAL_CALLS_PER_SECOND,
    );
    const coldP50 = quantile(cold.latencies, 0.5);
    goal(
      `cold p50 under ${GOAL_COLD_P50_MS} ms: ${fmt(coldP50, 2)} ms (p99 ${fmt(quantile(cold.latencies, 0.99), 2)} ms)`,
      coldP50 < GOAL_COLD_P50_MS && cold.latencies.length === COLD_MODULES,
    );
    for (const row of [everyTenth, withLooper]) {
      goal(
        `with looping calls, the others at least half the healthy calls/s: ${row.name}: ` +
          `${fmt(row.perSecond, 0)} calls/s, ${fmt(100 * share(row), 0)}% of healthy`,
        share(row) >= GOAL_LOOPING_SHARE && row.failed === 0,
      );
    }
  });
}

await main();
