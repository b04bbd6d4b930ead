// Runner benchmark: what a sandboxed call costs. Side by side, in one run: the floor (the echo module
// called in-process, no worker, no HTTP), POST /v1/invoke with a warm instance and without one (a runner
// with APP_RUNNER_WARM_PLUGINS=0), and calls per second with 8 concurrent callers. Everything runs on
// loopback: embedded PostgreSQL, the real api internal listener serving the module, the real runners.
// Then what one sandbox instance costs (a bare worker thread, an Extism instance in one), which bounds
// the calls per second a runner can reach with a thread per call. Prints figures and ratios to the
// floor; never part of the tests.
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
import { startRunnerFromConfig } from '../src/runner/index.ts';
import { REFUSING_BINDING } from '../src/runner/host/refusal.ts';
import { SandboxPool } from '../src/runner/threads/sandbox-pool.ts';
import { buildFixture } from '../test/support/assemblyscript.ts';
import { insertVersionRow } from '../test/support/runner.ts';
import { withBenchDatabase } from './support.ts';

const CALLS = Number(process.env.BENCH_RUNNER_CALLS ?? 300);
const THROUGHPUT_CALLS = Number(process.env.BENCH_RUNNER_THROUGHPUT_CALLS ?? 1000);
const CALLERS = Number(process.env.BENCH_RUNNER_CALLERS ?? 8);
const INSTANCES = Number(process.env.BENCH_RUNNER_INSTANCES ?? 50);
const WARM_UP = 30;
const SETTLE_MS = Number(process.env.BENCH_RUNNER_SETTLE_MS ?? 20);
const MEMORY_MIB = 16;
const RUNNER_TOKEN = 'bench-runner-token';
/** Callers are spread over two tenants so the default limits (8 a process, 4 a tenant) hold 8 callers. */
const TENANTS = [randomUUID(), randomUUID()];

const GOAL_WARM_OVER_FLOOR_MS = 3;
const GOAL_CALLS_PER_SECOND = 300;

interface Row {
  name: string;
  latencies: number[];
  perSecond: number | null;
  warm: number | null;
  busy: number;
  failed: number;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

/** What the runner's /v1/invoke body carries for the echo module, with a fresh call id each time. */
function invokeBody(sha256: string, tenantId: string) {
  return {
    module: { sha256 },
    call: { id: randomUUID(), tenantId },
    action: 'echo',
    idempotencyKey: 'bench-key',
    config: { greeting: 'hello {{secret:API_KEY}}' },
    secrets: { API_KEY: 'sk-bench-123456' },
    hosts: ['api.vendor.test'],
    input: { n: 1, text: 'a short input, as most calls carry' },
    timeoutMs: 5000,
  };
}

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
  latencies,
  perSecond: null,
  warm: null,
  busy: 0,
  failed: 0,
});

/** The floor: one in-process instance (no worker, no HTTP), invoke called with a runner-sized envelope. */
async function measureFloor(module: WebAssembly.Module, envelope: string): Promise<Row> {
  const plugin = await createPlugin({ wasm: [{ module }] }, inProcessOptions);
  const latencies = await timed(CALLS, async () => {
    const text = (await plugin.call('invoke', envelope))?.text() ?? '';
    if (!text.startsWith('{"status":"ok"')) throw new Error(`floor: unexpected answer ${text.slice(0, 200)}`);
  });
  await plugin.close();
  return inProcessRow('floor: in-process call', latencies);
}

/** In-process, a fresh instance for every call (instantiation and start code included), no worker. */
async function measureFreshInProcess(module: WebAssembly.Module, envelope: string): Promise<Row> {
  const latencies = await timed(CALLS, async () => {
    const plugin = await createPlugin({ wasm: [{ module }] }, inProcessOptions);
    await plugin.call('invoke', envelope);
    await plugin.close();
  });
  return inProcessRow('in-process, fresh instance a call', latencies);
}

interface Outcome {
  status: number;
  warm: boolean | null;
  ms: number;
}

type Caller = (tenantId: string) => Promise<Outcome>;

function caller(url: string, sha256: string, agent: Agent): Caller {
  return async (tenantId) => {
    const t = performance.now();
    const response = await request(`${url}/v1/invoke`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${RUNNER_TOKEN}` },
      body: JSON.stringify(invokeBody(sha256, tenantId)),
    });
    const body = (await response.body.json()) as { warm?: boolean; answer?: { status?: string } };
    const ms = performance.now() - t;
    if (response.statusCode === 200 && body.answer?.status !== 'ok')
      throw new Error(`unexpected answer ${JSON.stringify(body).slice(0, 200)}`);
    return { status: response.statusCode, warm: typeof body.warm === 'boolean' ? body.warm : null, ms };
  };
}

function rowOf(name: string, outcomes: Outcome[], seconds: number | null): Row {
  const ok = outcomes.filter((o) => o.status === 200);
  const warmKnown = ok.filter((o) => o.warm !== null);
  return {
    name,
    latencies: ok.map((o) => o.ms),
    perSecond: seconds === null ? null : ok.length / seconds,
    warm: warmKnown.length ? warmKnown.filter((o) => o.warm).length / warmKnown.length : null,
    busy: outcomes.filter((o) => o.status === 429).length,
    failed: outcomes.filter((o) => o.status !== 200 && o.status !== 429).length,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (untimed) until the runner's warm pool holds `count` instances again (10 s at most), then
 * SETTLE_MS more: a call then meets the pool as it usually is, ready for a while, rather than at the
 * moment the last instance's thread has just started.
 */
async function poolRefilled(url: string, count: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const response = await request(`${url}/health`);
    const health = (await response.body.json()) as { warmPlugins: number };
    if (health.warmPlugins >= count) break;
    await sleep(5);
  }
  await sleep(SETTLE_MS);
}

/** One caller, one call after another; `between` runs untimed before each call. */
async function measureSequential(name: string, call: Caller, between: () => Promise<void>): Promise<Row> {
  const tenantId = TENANTS[0] as string;
  for (let i = 0; i < WARM_UP; i++) await call(tenantId);
  const outcomes: Outcome[] = [];
  for (let i = 0; i < CALLS; i++) {
    await between();
    outcomes.push(await call(tenantId));
  }
  return rowOf(name, outcomes, null);
}

/** CALLERS concurrent callers (spread over two tenants) until THROUGHPUT_CALLS calls are answered. */
async function measureThroughput(name: string, call: Caller, before: () => Promise<void>): Promise<Row> {
  await before();
  const outcomes: Outcome[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, i) => {
      const tenantId = TENANTS[i % TENANTS.length] as string;
      while (next++ < THROUGHPUT_CALLS) outcomes.push(await call(tenantId));
    }),
  );
  return rowOf(name, outcomes, (performance.now() - started) / 1000);
}

interface Cost {
  name: string;
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time (every thread of the process) per run of `once`, one after another. */
async function costOf(name: string, once: () => Promise<void>): Promise<Cost> {
  for (let i = 0; i < 5; i++) await once();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < INSTANCES; i++) await once();
  const used = process.cpuUsage(cpu);
  return {
    name,
    wallMs: (performance.now() - started) / INSTANCES,
    cpuMs: (used.user + used.system) / 1000 / INSTANCES,
  };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fmt = (n: number | null, digits = 2) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(digits));

function printTable(rows: Row[], floorP50: number) {
  const header = [
    'measurement'.padEnd(40),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'mean ms'.padStart(8),
    'calls/s'.padStart(8),
    'p50/floor'.padStart(10),
    'p50-floor ms'.padStart(13),
    'warm'.padStart(5),
    'busy'.padStart(5),
    'failed'.padStart(7),
  ].join(' ');
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const row of rows) {
    const p50 = quantile(row.latencies, 0.5);
    console.log(
      [
        row.name.padEnd(40),
        fmt(p50, 3).padStart(8),
        fmt(quantile(row.latencies, 0.99), 3).padStart(8),
        fmt(mean(row.latencies), 3).padStart(8),
        fmt(row.perSecond, 0).padStart(8),
        `×${fmt(p50 / floorP50, p50 / floorP50 < 10 ? 2 : 0)}`.padStart(10),
        `+${fmt(p50 - floorP50, 2)}`.padStart(13),
        (row.warm === null ? '-' : `${Math.round(row.warm * 100)}%`).padStart(5),
        String(row.busy).padStart(5),
        String(row.failed).padStart(7),
      ].join(' '),
    );
  }
}

async function main() {
  await withBenchDatabase('apps-platform-bench-runner-', async ({ dir, url, closers }) => {
    const apiConfig = loadConfig({
      DATABASE_URL: url,
      DATA_DIR: dir,
      PORT: '0',
      API_INTERNAL_PORT: '0',
      HOST: '127.0.0.1',
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
    });
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

    // The echo fixture, capped as an upload would be, stored where the internal listener serves it and
    // used by a published version (runners are served published modules only).
    const capped = capMemory(await buildFixture('echo'), MEMORY_MIB);
    if (!('bytes' in capped)) throw new Error(capped.message);
    const sha256 = await storage.put(capped.bytes);
    await insertVersionRow(database, sha256);
    const module = await WebAssembly.compile(capped.bytes);

    const startRunner = async (warmPlugins: number) => {
      const config = loadConfig({
        DATABASE_URL: url,
        DATA_DIR: dir,
        RUNNER_PORT: '0',
        HOST: '127.0.0.1',
        APP_RUNNER_TOKEN: RUNNER_TOKEN,
        APP_RUNNER_CACHE_DIR: path.join(dir, `runner-cache-${warmPlugins}`),
        APP_RUNNER_WARM_PLUGINS: String(warmPlugins),
        API_INTERNAL_URL: api.internalUrl,
      });
      const runner = await startRunnerFromConfig(config, silent);
      closers.unshift(() => runner.close());
      return runner;
    };
    const warmRunner = await startRunner(8);
    const coldRunner = await startRunner(0);
    const agent = new Agent({ connections: CALLERS * 2, keepAliveTimeout: 30_000 });
    closers.unshift(() => agent.close());
    const warmCall = caller(warmRunner.url, sha256, agent);
    const coldCall = caller(coldRunner.url, sha256, agent);
    const refilled = () => poolRefilled(warmRunner.url, 2);
    const noPause = async () => {};

    const [load1] = os.loadavg();
    console.log(
      `\nrunner benchmark: echo module (${capped.bytes.byteLength} bytes, ${MEMORY_MIB} MiB cap), ` +
        `${CALLS} sequential calls a row, ${THROUGHPUT_CALLS} calls with ${CALLERS} callers over ` +
        `${TENANTS.length} tenants; ${os.cpus().length} cores, load average ${fmt(load1 ?? null, 1)} at start, ` +
        `Node ${process.versions.node}\n`,
    );
    const envelope = envelopeOf(invokeBody(sha256, TENANTS[0] as string));
    const floor = await measureFloor(module, envelope);
    const warm = await measureSequential('POST /v1/invoke, warm (pool refilled)', warmCall, refilled);
    const rows: Row[] = [
      floor,
      await measureFreshInProcess(module, envelope),
      warm,
      await measureSequential('POST /v1/invoke, warm pool, back to back', warmCall, noPause),
      await measureSequential('POST /v1/invoke, cold (no warm pool)', coldCall, noPause),
    ];
    const throughput = await measureThroughput(`${CALLERS} callers, warm pool`, warmCall, refilled);
    rows.push(throughput);
    rows.push(await measureThroughput(`${CALLERS} callers, cold (no warm pool)`, coldCall, noPause));
    const floorP50 = quantile(floor.latencies, 0.5);
    printTable(rows, floorP50);

    // What one instance costs: the part of a call no warm pool takes away under sustained load.
    const sandbox = new SandboxPool({ threads: 1, warmCapacity: 0, warmIdleMs: 60_000 });
    closers.unshift(() => sandbox.close());
    const costs = [
      await costOf('worker thread, bare (start, answer, end)', async () => {
        const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', {
          eval: true,
        });
        await new Promise((resolve) => worker.once('message', resolve));
        await worker.terminate();
      }),
      await costOf('sandbox thread call (fresh instance)', async () => {
        const { result } = await sandbox.run(
          { sha256, module, maxPages: MEMORY_MIB * 16 },
          { exportName: 'invoke', input: envelope, deadlineMs: 5000, binding: REFUSING_BINDING },
        );
        if (result.kind !== 'answered') throw new Error(`instance: ${result.kind}`);
      }),
    ];
    console.log(`\nwhat one instance costs (${INSTANCES} one after another; CPU of every thread)`);
    for (const cost of costs) {
      console.log(
        `${cost.name.padEnd(44)} ${fmt(cost.wallMs, 1).padStart(6)} ms wall ${fmt(cost.cpuMs, 1).padStart(6)} ms CPU` +
          `  → at most ${fmt((os.cpus().length * 1000) / cost.cpuMs, 0)} a second on ${os.cpus().length} cores`,
      );
    }

    const warmP50 = quantile(warm.latencies, 0.5);
    const over = warmP50 - floorP50;
    const perSecond = throughput.perSecond ?? 0;
    console.log(
      `\ngoal: warm p50 within ${GOAL_WARM_OVER_FLOOR_MS} ms of the floor: ${fmt(warmP50, 2)} ms, ` +
        `${fmt(over, 2)} ms over the floor (×${fmt(warmP50 / floorP50, 0)}) — ` +
        `${over <= GOAL_WARM_OVER_FLOOR_MS ? 'met' : 'MISSED'}`,
    );
    console.log(
      `goal: at least ${GOAL_CALLS_PER_SECOND} calls/s with ${CALLERS} callers (warm pool): ` +
        `${fmt(perSecond, 0)} calls/s — ${perSecond >= GOAL_CALLS_PER_SECOND ? 'met' : 'MISSED'}`,
    );
  });
}

await main();
