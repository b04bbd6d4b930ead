// Runner benchmark: what a sandboxed call costs. Side by side, in one run and one table: the floor (the
// echo module called in-process, no thread, no HTTP), an in-process fresh instance a call, POST
// /v1/invoke with a warm instance and without a warm pool, the first call of a module the runner has
// neither fetched nor compiled (cold), calls per second with 8 concurrent callers, and those callers'
// calls while looping calls (the hostile module spinning until its 200 ms deadline) run beside them.
// Then the process's memory over 10,000 calls, what one instance costs, and the goals. Everything runs on
// loopback, the runners in this process: embedded PostgreSQL, the real api internal listener serving the
// modules, the real runners with their sandbox threads. A script, never part of the tests.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Agent, request } from 'undici';
import { moduleStorageOf, startApi } from '../src/api/index.ts';
import { readOrCreateLocalSecrets } from '../src/auth/local-keys.ts';
import { localVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';
import { capMemory } from '../src/module/index.ts';
import { startRunnerFromConfig } from '../src/runner/index.ts';
import { insertVersionRow } from '../test/support/runner.ts';
import {
  envelopeOf,
  measureFloor,
  measureFreshInProcess,
  measureWithoutHttp,
  printCosts,
} from './runner-costs.ts';
import { buildInChild } from './runner-fixtures.ts';
import {
  closedLoop,
  collectMainThread,
  cpuMeter,
  invokeBody,
  LOOP_TIMEOUT_MS,
  type Load,
  type Memory,
  mean,
  memoryNow,
  type Outcome,
  oneAfterAnother,
  poolRefilled,
  quantile,
  quiet,
  type Row,
  type Runner,
  rowOf,
  type Send,
  sender,
  sleep,
} from './runner-load.ts';
import { memoryBombModule, slowStartModule } from './runner-neighbour.ts';
import { fmt, goal, printBreakdown, printHealthy, printMemory, printTable } from './runner-report.ts';
import { type NeighbourSettings, noisyNeighbourRows, printNeighbour } from './runner-rows.ts';
import { withBenchDatabase } from './support.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CALLS = env('BENCH_RUNNER_CALLS', 300);
const THROUGHPUT_CALLS = env('BENCH_RUNNER_THROUGHPUT_CALLS', 1000);
const CALLERS = env('BENCH_RUNNER_CALLERS', 8);
const COLD_MODULES = env('BENCH_RUNNER_COLD_MODULES', 60);
const MEMORY_CALLS = env('BENCH_RUNNER_MEMORY_CALLS', 10_000);
const INSTANCES = env('BENCH_RUNNER_INSTANCES', 50);
const SETTLE_MS = env('BENCH_RUNNER_SETTLE_MS', 20);
const NEIGHBOUR_SECONDS = env('BENCH_RUNNER_NEIGHBOUR_SECONDS', 10);
/** The 8 callers of one tenant; the runner's tenant concurrency is raised to hold them. */
const NEIGHBOUR_CALLERS = env('BENCH_RUNNER_NEIGHBOUR_CALLERS', 8);
const ATTACK_CALLERS = env('BENCH_RUNNER_ATTACK_CALLERS', 4);
const SLOW_START_MODULES = 16;
/**
 * `neighbour`: the healthy row and the noisy-neighbour rows only (a shorter run while tuning);
 * BENCH_RUNNER_ATTACKS picks attacks (runner-attacks.ts, ATTACK_KEYS).
 */
const ONLY = process.env.BENCH_RUNNER_ONLY ?? '';
const WARM_UP = 30;
const LOOP_EVERY = 10;
const MEMORY_MIB = 16;
const RUNNER_TOKEN = 'bench-runner-token';
/** Callers are spread over two tenants so the default limits (8 a process, 4 a tenant) hold 8 callers. */
const TENANTS = [randomUUID(), randomUUID()];
const TENANT = TENANTS[0] as string;
/** The tenant of the extra caller that sends looping calls only. */
const LOOPER_TENANT = randomUUID();

const GOAL_WARM_OVER_FRESH_MS = 1;
const GOAL_CALLS_PER_SECOND = 2500;
const GOAL_COLD_P50_MS = 20;
const GOAL_LOOPING_SHARE = 0.5;

interface Platform {
  dir: string;
  base: Record<string, string>;
  internalUrl: string;
  closers: (() => Promise<void>)[];
}

let runnersStarted = 0;

/** A runner with a fresh cache directory of its own, settled (its threads started) before it is used. */
async function startRunner(at: Platform, concurrency: number, tenantConcurrency: number, warm: number) {
  const config = loadConfig({
    ...at.base,
    RUNNER_PORT: '0',
    APP_RUNNER_CACHE_DIR: path.join(at.dir, `runner-cache-${runnersStarted++}`),
    APP_RUNNER_CONCURRENCY: String(concurrency),
    APP_RUNNER_TENANT_CONCURRENCY: String(tenantConcurrency),
    APP_RUNNER_WARM_PLUGINS: String(warm),
    API_INTERNAL_URL: at.internalUrl,
  });
  const started = await startRunnerFromConfig(config, pino({ level: 'silent' }));
  let closing: Promise<void> | undefined;
  const runner: Runner = {
    url: started.url,
    settings: `${concurrency}/${tenantConcurrency}/${warm}`,
    close: () => {
      closing ??= started.close();
      return closing;
    },
  };
  at.closers.unshift(runner.close);
  await quiet();
  return runner;
}

async function main() {
  await withBenchDatabase('apps-platform-bench-runner-', async ({ dir, url, closers }) => {
    const base = { DATABASE_URL: url, DATA_DIR: dir, HOST: '127.0.0.1', APP_RUNNER_TOKEN: RUNNER_TOKEN };
    const apiConfig = loadConfig({ ...base, PORT: '0', API_INTERNAL_PORT: '0' });
    const local = await readOrCreateLocalSecrets(dir);
    const database = openDatabase(url);
    closers.push(() => database.close());
    const storage = moduleStorageOf({ config: apiConfig });
    const api = await startApi({
      config: apiConfig,
      database,
      verifier: localVerifier(local.signingKey),
      logger: pino({ level: 'silent' }),
      modules: storage,
    });
    closers.unshift(() => api.close());
    const platform: Platform = { dir, base, internalUrl: api.internalUrl, closers };

    // Every module capped as an upload would be, stored where the internal listener serves it and used
    // by a published version (runners are served published modules only), before anything is timed.
    const store = async (bytes: Uint8Array, memoryMiB = MEMORY_MIB) => {
      const capped = capMemory(bytes, memoryMiB);
      if (!('bytes' in capped)) throw new Error(capped.message);
      const sha256 = await storage.put(capped.bytes);
      await insertVersionRow(database, sha256);
      return { sha256, bytes: capped.bytes };
    };
    console.log(`\nbuilding and storing ${COLD_MODULES} echo variants (built once, then cached)…`);
    // Distinct bytes: the variants differ in their manifest's version.
    const [echoBytes, hostileBytes, ...variantBytes] = await buildInChild([
      { name: 'echo' },
      { name: 'hostile' },
      ...Array.from({ length: COLD_MODULES }, (_, i) => ({
        name: 'echo',
        replacements: { '"version":"1.0.0"': `"version":"1.0.${i + 1}"` },
      })),
    ]);
    if (!echoBytes || !hostileBytes) throw new Error('the fixtures were not built');
    const echo = await store(echoBytes);
    const shas = { echo: echo.sha256, spin: (await store(hostileBytes)).sha256 };
    const variants: string[] = [];
    for (const bytes of variantBytes) variants.push((await store(bytes)).sha256);
    if (new Set(variants).size !== COLD_MODULES) throw new Error('the echo variants are not distinct');

    const agent = new Agent({ connections: (CALLERS + 1) * 2, keepAliveTimeout: 30_000 });
    closers.unshift(() => agent.close());
    const sendTo = (runner: Runner) => sender(runner, agent, RUNNER_TOKEN);
    const callers = { callers: CALLERS, tenants: TENANTS };
    const sequentialRow = async (
      name: string,
      runner: Runner,
      count: number,
      call: (i: number) => Promise<Outcome>,
      between?: () => Promise<void>,
    ) => rowOf(name, runner.settings, await oneAfterAnother(count, call, between), null);
    const loadRow = async (name: string, runner: Runner, send: Send, more: Partial<Load> = {}) => {
      const run = await closedLoop(send, shas, { calls: THROUGHPUT_CALLS, ...callers, ...more });
      return rowOf(name, runner.settings, run.outcomes, run.seconds, run.cpu);
    };
    const warmUp = (send: Send) => closedLoop(send, shas, { calls: WARM_UP * CALLERS, ...callers });

    const known = {
      hostile: shas.spin,
      memoryBomb: (await store(memoryBombModule(), 256)).sha256,
      slowStart: await Promise.all(
        Array.from({ length: SLOW_START_MODULES }, async (_, i) => (await store(slowStartModule(i))).sha256),
      ),
    };
    // Room for both tenants at once: the neighbour's callers (one tenant) and the attacker's.
    const neighbourSettings: NeighbourSettings = {
      seconds: NEIGHBOUR_SECONDS,
      threads: NEIGHBOUR_CALLERS + ATTACK_CALLERS,
      neighbourCallers: NEIGHBOUR_CALLERS,
      attackCallers: ATTACK_CALLERS,
    };
    /** The noisy-neighbour rows on a runner of their own, in a child process. */
    const noisyNeighbour = () =>
      noisyNeighbourRows({
        env: {
          ...base,
          RUNNER_PORT: '0',
          APP_RUNNER_CACHE_DIR: path.join(dir, `runner-cache-${runnersStarted++}`),
          APP_RUNNER_CONCURRENCY: String(neighbourSettings.threads),
          APP_RUNNER_TENANT_CONCURRENCY: String(Math.max(4, NEIGHBOUR_CALLERS)),
          APP_RUNNER_WARM_PLUGINS: '8',
          API_INTERNAL_URL: api.internalUrl,
        },
        agent,
        token: RUNNER_TOKEN,
        echo: shas.echo,
        settings: neighbourSettings,
        known,
        loopTimeoutMs: LOOP_TIMEOUT_MS,
        store: async (bytes, memoryMiB) => (await store(bytes, memoryMiB)).sha256,
      });
    if (ONLY === 'neighbour') {
      const runner = await startRunner(platform, 8, 4, 8);
      const send = sendTo(runner);
      await warmUp(send);
      await poolRefilled(runner.url, 2, SETTLE_MS);
      const healthy = await loadRow(`${CALLERS} callers, warm pool (healthy)`, runner, send);
      await runner.close();
      const neighbour = await noisyNeighbour();
      printHealthy(healthy, GOAL_CALLS_PER_SECOND);
      printNeighbour(neighbour, neighbourSettings);
      return;
    }

    const [load1] = os.loadavg();
    console.log(
      `\nrunner benchmark: echo module (${echo.bytes.byteLength} bytes, ${MEMORY_MIB} MiB cap), ${CALLS} ` +
        `sequential calls a row, ${THROUGHPUT_CALLS} calls with ${CALLERS} callers over ${TENANTS.length} ` +
        `tenants, ${COLD_MODULES} cold modules; ${os.cpus().length} cores, load average ` +
        `${fmt(load1 ?? null, 1)} at start, Node ${process.versions.node}\n`,
    );

    // In-process first, before any runner thread exists.
    await quiet();
    const runCpu = cpuMeter();
    const inProcess = {
      module: await WebAssembly.compile(echo.bytes),
      maxPages: MEMORY_MIB * 16,
      envelope: envelopeOf(invokeBody(shas.echo, TENANT)),
      calls: CALLS,
      warmUp: WARM_UP,
    };
    const floor = await measureFloor(inProcess);
    const fresh = await measureFreshInProcess(inProcess);
    const freshIdle = await measureFreshInProcess(inProcess, SETTLE_MS);

    // The default runner: the process's memory over MEMORY_CALLS calls, the warm rows, healthy callers.
    const memory: Memory[] = [memoryNow('before the runner started', 0)];
    const warmRunner = await startRunner(platform, 8, 4, 8);
    const warmSend = sendTo(warmRunner);
    memory.push(memoryNow(`runner ${warmRunner.settings} started, no call yet`, 0));
    let calls = 0;
    for (const upTo of [1000, MEMORY_CALLS]) {
      await closedLoop(warmSend, shas, { calls: upTo - calls, ...callers });
      calls = upTo;
      memory.push(memoryNow(`after ${upTo} calls (${CALLERS} callers)`, calls));
    }
    collectMainThread();
    memory.push(memoryNow(`after ${calls} calls and a main-thread GC`, calls));
    const refilled = () => poolRefilled(warmRunner.url, 2, SETTLE_MS);
    const warmOnce = () => warmSend(shas.echo, TENANT);
    const warm = await sequentialRow(
      `invoke, warm (pool refilled, ${SETTLE_MS} ms idle)`,
      warmRunner,
      CALLS,
      warmOnce,
      refilled,
    );
    const warmBackToBack = await sequentialRow(
      'invoke, warm pool, back to back',
      warmRunner,
      CALLS,
      warmOnce,
    );
    await refilled();
    const healthy = await loadRow(`${CALLERS} callers, warm pool (healthy)`, warmRunner, warmSend);

    // No warm pool: every call makes its instance.
    const noWarmRunner = await startRunner(platform, 8, 4, 0);
    const noWarmSend = sendTo(noWarmRunner);
    await warmUp(noWarmSend);
    const noWarm = await sequentialRow('invoke, no warm pool, back to back', noWarmRunner, CALLS, () =>
      noWarmSend(shas.echo, TENANT),
    );
    const noWarmLoad = await loadRow(`${CALLERS} callers, no warm pool`, noWarmRunner, noWarmSend);
    await noWarmRunner.close();
    // The same calls without HTTP: the runner's own path on a pool of the healthy row's threads.
    const withoutHttp = await measureWithoutHttp(
      { ...inProcess, sha256: shas.echo },
      invokeBody(shas.echo, TENANT),
      { callers: CALLERS, calls: THROUGHPUT_CALLS, idleMs: SETTLE_MS },
    );

    // Cold: a runner warmed on echo (its threads and its own code run), then one first call of each
    // variant: fetched from the api, verified, written to its cache, compiled, sent to a thread, run.
    const coldRunner = await startRunner(platform, 8, 4, 8);
    const coldSend = sendTo(coldRunner);
    await warmUp(coldSend);
    const cold = await sequentialRow(
      `invoke, cold: first call, ${COLD_MODULES} modules`,
      coldRunner,
      COLD_MODULES,
      (i) => coldSend(variants[i] as string, TENANT),
      () => sleep(SETTLE_MS),
    );
    await coldRunner.close();

    // Looping calls beside the healthy ones: on the default runner, every caller's 10th call loops.
    await refilled();
    const everyTenth = await loadRow(
      `${CALLERS} callers, 1 call in ${LOOP_EVERY} loops`,
      warmRunner,
      warmSend,
      {
        loopEvery: LOOP_EVERY,
      },
    );
    // One more caller, a third tenant's, looping continuously: one thread more, so the limit of calls
    // in flight never makes the others busy.
    const looperRunner = await startRunner(platform, CALLERS + 1, 4, 8);
    const looperSend = sendTo(looperRunner);
    await warmUp(looperSend);
    // Three times the calls: the row is short otherwise, with few looping calls in it.
    const withLooper = await loadRow(`${CALLERS} callers + 1 looping caller`, looperRunner, looperSend, {
      calls: 3 * THROUGHPUT_CALLS,
      looperTenant: LOOPER_TENANT,
    });
    await looperRunner.close();
    const neighbour = await noisyNeighbour();
    const health = (await (await request(`${warmRunner.url}/health`)).body.json()) as {
      threadsReplaced: number;
    };
    memory.push(memoryNow(`after every row (${health.threadsReplaced} of its threads replaced)`, calls));

    const rows = [
      floor,
      fresh,
      freshIdle,
      warm,
      warmBackToBack,
      noWarm,
      cold,
      healthy,
      noWarmLoad,
      withoutHttp.afterIdle,
      withoutHttp.backToBack,
      withoutHttp.load,
      everyTenth,
      withLooper,
    ];
    printTable(rows, floor, fresh, healthy);
    printMemory(memory, 1);
    const replacementCpuMs = await printCosts({
      ...inProcess,
      sha256: shas.echo,
      bytes: echo.bytes,
      fetchable: { internalUrl: api.internalUrl, token: RUNNER_TOKEN, shas: variants },
      count: INSTANCES,
      idleMs: SETTLE_MS,
    });

    // What bounds the looping rows: the callers' own waiting, and the CPU the looping calls take.
    const healthyPerSecond = healthy.perSecond ?? Number.NaN;
    const cores = os.cpus().length;
    const normal = LOOP_EVERY - 1;
    const waiting = (CALLERS * normal * 1000) / (normal * mean(healthy.latencies) + LOOP_TIMEOUT_MS);
    const cpuPerCall = ((healthy.cpu?.own ?? Number.NaN) * cores * 1000) / healthyPerSecond;
    const reached = (everyTenth.perSecond ?? 0) / healthyPerSecond;
    const answered = everyTenth.latencies.length;
    const rowSeconds = answered / (everyTenth.perSecond ?? Number.NaN);
    const ownCoreMs = (everyTenth.cpu?.own ?? Number.NaN) * cores * rowSeconds * 1000;
    const normalShare = (answered * cpuPerCall) / ownCoreMs;
    const busy = everyTenth.cpu ? everyTenth.cpu.own + everyTenth.cpu.others : Number.NaN;
    console.log(
      `\n1 call in ${LOOP_EVERY} loops: ${fmt(everyTenth.perSecond, 0)} calls/s, ×${fmt(reached, 2)} of healthy` +
        `\n  callers' own waiting, even with unlimited CPU: ${CALLERS} × ${normal} / (${normal} × ` +
        `${fmt(mean(healthy.latencies), 2)} ms healthy mean + ${LOOP_TIMEOUT_MS} ms) = ${fmt(waiting, 0)} calls/s ` +
        `(×${fmt(waiting / healthyPerSecond, 2)} of healthy)` +
        `\n  CPU: the cores were ${fmt(100 * busy, 0)}% busy over the row; its ${answered} normal calls, at ` +
        `${fmt(cpuPerCall, 2)} ms CPU each as in the healthy row, took ${fmt(100 * normalShare, 0)}% of this ` +
        `process's CPU; the rest went to its ${everyTenth.loops ?? 0} looping calls (spinning until their ` +
        `deadline) and to replacing their threads (${fmt(replacementCpuMs, 0)} ms CPU each, as measured above)`,
    );
    const machine = runCpu();
    console.log(
      `\nCPU over the whole run: this process ${fmt(machine.own * 100, 0)}% of ${cores} cores, ` +
        `other processes ${fmt(machine.others * 100, 0)}%`,
    );

    console.log('');
    printBreakdown(healthy);
    printBreakdown(noWarmLoad);
    printBreakdown(withoutHttp.load, "the call's state, envelope, redactor and dispatch; no HTTP");
    const p50 = (row: Row) => quantile(row.latencies, 0.5);
    // Like for like: each warm row against the in-process row timed the same way (idle, or back to back).
    const overIdle = p50(warm) - p50(freshIdle);
    const overBackToBack = p50(warmBackToBack) - p50(fresh);
    goal(
      `warm p50 within ${GOAL_WARM_OVER_FRESH_MS} ms of the in-process fresh instance: after ${SETTLE_MS} ms ` +
        `idle ${fmt(p50(warm), 2)} vs ${fmt(p50(freshIdle), 2)} ms (+${fmt(overIdle, 2)}); back to back ` +
        `${fmt(p50(warmBackToBack), 2)} vs ${fmt(p50(fresh), 2)} ms (+${fmt(overBackToBack, 2)})`,
      overIdle <= GOAL_WARM_OVER_FRESH_MS && overBackToBack <= GOAL_WARM_OVER_FRESH_MS,
    );
    // Where the warm call's time over the fresh instance is: the runner's own path, or the HTTP around it.
    console.log(
      `  the same without HTTP (executeExport): after ${SETTLE_MS} ms idle ${fmt(p50(withoutHttp.afterIdle), 2)} ms ` +
        `(+${fmt(p50(withoutHttp.afterIdle) - p50(freshIdle), 2)}); back to back ` +
        `${fmt(p50(withoutHttp.backToBack), 2)} ms (+${fmt(p50(withoutHttp.backToBack) - p50(fresh), 2)})`,
    );
    const perSecond = healthy.perSecond ?? 0;
    goal(
      `at least ${GOAL_CALLS_PER_SECOND} calls/s with ${CALLERS} callers (warm pool): ${fmt(perSecond, 0)}`,
      perSecond >= GOAL_CALLS_PER_SECOND,
    );
    goal(
      `cold p50 under ${GOAL_COLD_P50_MS} ms: ${fmt(p50(cold), 2)} ms (p99 ${fmt(quantile(cold.latencies, 0.99), 2)})`,
      p50(cold) < GOAL_COLD_P50_MS && cold.latencies.length === COLD_MODULES,
    );
    for (const row of [everyTenth, withLooper]) {
      const share = (row.perSecond ?? 0) / healthyPerSecond;
      goal(
        `with looping calls the others reach half the healthy calls/s: ${row.name}: ` +
          `${fmt(row.perSecond, 0)} calls/s, ${fmt(100 * share, 0)}% of healthy`,
        share >= GOAL_LOOPING_SHARE && row.failed === 0,
      );
    }
    printNeighbour(neighbour, neighbourSettings);
  });
}

await main();
