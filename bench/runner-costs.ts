// The runner benchmark's measurements without a runner: the echo module called in-process (the floor,
// and a fresh instance a call), and what one instance and the parts of a cold call cost.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { HOST_FUNCTIONS } from '../src/module/index.ts';
import {
  drawSecretTag,
  executeExport,
  HOST_REQUEST_BYTES,
  type HostBridge,
  instantiate,
  MAX_HOST_REQUESTS,
  REFUSING_BINDING,
  readingWithoutSecrets,
  runExport,
  SandboxPool,
  tagConfig,
} from '../src/runner/index.ts';
import { cpuMeter, type invokeBody, quantile, type Row, sleep } from './runner-load.ts';
import { costOf, fmt, printCost } from './runner-report.ts';

/** The envelope the runner hands the module for that body (docs/module-contract.md), built the same way. */
export function envelopeOf(body: ReturnType<typeof invokeBody>): string {
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
const refusals = Object.fromEntries(
  HOST_FUNCTIONS.map((name) => [name, JSON.stringify({ error: `${name} refused`, refused: true })]),
);
const host: HostBridge = {
  refusals,
  limits: HOST_REQUEST_BYTES,
  maxRequests: MAX_HOST_REQUESTS,
  ask: (_seq, name) => refusals[name] as string,
};
const decoder = new TextDecoder();

async function timed(
  count: number,
  warmUp: number,
  once: () => Promise<void>,
  idleMs = 0,
): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await once();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
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
  cpu: null,
  busy: 0,
  failed: 0,
});

export interface InProcess {
  module: WebAssembly.Module;
  maxPages: number;
  envelope: string;
  calls: number;
  warmUp: number;
}

/** The floor: one in-process instance (no thread, no HTTP), invoke called with a runner-sized envelope. */
export async function measureFloor(at: InProcess): Promise<Row> {
  // One instance for every call: its kernel keeps each call's blocks, well within the memory limit.
  const prepared = instantiate(at, host);
  let seq = 0;
  const latencies = await timed(at.calls, at.warmUp, async () => {
    const output = runExport(prepared, ++seq, 'invoke', at.envelope);
    if (!(output instanceof Uint8Array)) throw new Error('floor: the answer is larger than 1 MiB');
    const text = decoder.decode(output);
    if (!text.startsWith('{"status":"ok"')) throw new Error(`floor: unexpected answer ${text.slice(0, 200)}`);
  });
  return inProcessRow('floor: in-process call', latencies);
}

/**
 * In-process, a fresh instance for every call (instantiation and start code included), no thread;
 * idleMs untimed before each call, as the refilled warm row waits (an idle machine wakes slower).
 */
export async function measureFreshInProcess(at: InProcess, idleMs = 0): Promise<Row> {
  const latencies = await timed(
    at.calls,
    at.warmUp,
    async () => {
      runExport(instantiate(at, host), 1, 'invoke', at.envelope);
    },
    idleMs,
  );
  const name =
    idleMs > 0 ? `in-process, fresh instance, ${idleMs} ms idle` : 'in-process, fresh instance a call';
  return inProcessRow(name, latencies);
}

/** What measureWithoutHttp answers: the load row, and one call at a time after idling and back to back. */
export interface WithoutHttp {
  load: Row;
  afterIdle: Row;
  backToBack: Row;
}

/** The pool of the rows without HTTP: the healthy row's threads and warm instances, its one tenant all 8. */
const POOL_WITHOUT_HTTP = { threads: 8, warmCapacity: 8, warmIdleMs: 60_000, tenantConcurrency: 8 };
const POOL_WITHOUT_HTTP_SETTINGS = '8/8/8';

/**
 * The runner's own path of a call without its HTTP: executeExport (the call's state, envelope, redactor,
 * dispatch and the thread's answer) on a sandbox pool, warm (POOL_WITHOUT_HTTP). Against the
 * HTTP rows it shows what Node's HTTP on both sides costs: `callers` at once (its main-thread CPU a call
 * moves less from run to run than the HTTP rows', which share the main thread with the bench's callers),
 * and one call at a time after `idleMs` of idling and back to back.
 */
export async function measureWithoutHttp(
  at: InProcess & { sha256: string },
  body: ReturnType<typeof invokeBody>,
  load: { callers: number; calls: number; idleMs: number },
): Promise<WithoutHttp> {
  const pool = new SandboxPool(POOL_WITHOUT_HTTP);
  const module = { sha256: at.sha256, module: at.module, maxPages: at.maxPages };
  const deps = {
    modules: { get: async () => module },
    sandbox: pool,
    apiInternalUrl: 'http://127.0.0.1:9',
    bind: () => REFUSING_BINDING,
  };
  const call = () =>
    executeExport(deps, {
      sha256: at.sha256,
      exportName: 'invoke',
      call: body.call,
      config: body.config,
      secrets: body.secrets,
      hosts: body.hosts,
      cache: [],
      documents: null,
      timeoutMs: body.timeoutMs,
      fields: { action: body.action, idempotencyKey: body.idempotencyKey, input: body.input },
    });
  const loop = async (total: number, into: number[]) => {
    let left = total;
    await Promise.all(
      Array.from({ length: load.callers }, async () => {
        while (left-- > 0) {
          const started = performance.now();
          await call();
          into.push(performance.now() - started);
        }
      }),
    );
  };
  try {
    await loop(at.warmUp * load.callers, []);
    const latencies: number[] = [];
    const cpu = cpuMeter();
    const started = performance.now();
    await loop(load.calls, latencies);
    const seconds = (performance.now() - started) / 1000;
    const used = cpu();
    const once = async () => {
      await call();
    };
    const afterIdle = await timed(at.calls, at.warmUp, once, load.idleMs);
    const backToBack = await timed(at.calls, at.warmUp, once);
    const row = (name: string, latencies: number[]) => ({
      ...inProcessRow(name, latencies),
      runner: POOL_WITHOUT_HTTP_SETTINGS,
    });
    return {
      load: {
        ...row(`${load.callers} callers, no HTTP (executeExport)`, latencies),
        perSecond: load.calls / seconds,
        cpu: used,
      },
      afterIdle: row(`warm, no HTTP, ${load.idleMs} ms idle`, afterIdle),
      backToBack: row('warm, no HTTP, back to back', backToBack),
    };
  } finally {
    await pool.close();
  }
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

export interface CostSubjects extends InProcess {
  sha256: string;
  bytes: Uint8Array;
  /** Stored modules the api internal listener serves, fetched with `token`. */
  fetchable: { internalUrl: string; token: string; shas: string[] };
  count: number;
  idleMs: number;
}

/**
 * What one instance costs, and the parts of a cold call, each `count` times one after another. Answers
 * the CPU milliseconds of a thread's replacement (what a call past its deadline costs besides its own).
 */
export async function printCosts(at: CostSubjects): Promise<number> {
  console.log(`\nwhat one instance costs (${at.count} one after another; CPU of every thread)`);
  printCost(
    await costOf('worker thread, bare (start, answer, end)', at.count, async () => {
      const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', { eval: true });
      await new Promise((resolve) => worker.once('message', resolve));
      await worker.terminate();
    }),
  );
  const call = async (pool: SandboxPool) => {
    const { result } = await pool.run(
      { sha256: at.sha256, module: at.module, maxPages: at.maxPages },
      {
        exportName: 'invoke',
        input: at.envelope,
        deadlineMs: 5000,
        binding: REFUSING_BINDING,
        reading: readingWithoutSecrets('invoke'),
      },
    );
    if (result.kind !== 'answered') throw new Error(`instance: ${result.kind}`);
  };
  const onePool = () => new SandboxPool({ threads: 1, warmCapacity: 0, warmIdleMs: 60_000 });
  // What a call past its deadline costs besides its own time: its thread is ended and a new one started.
  const replacement = await costOf(
    'sandbox thread start, first call, end (a replacement)',
    Math.ceil(at.count / 2),
    async () => {
      const pool = onePool();
      try {
        await call(pool);
      } finally {
        await pool.close();
      }
    },
  );
  printCost(replacement);
  const sandbox = onePool();
  try {
    printCost(await costOf('sandbox thread call (fresh instance, no HTTP)', at.count, () => call(sandbox)));
  } finally {
    await sandbox.close();
  }
  printCost(
    await costOf(
      'cold part: compile a new module (WebAssembly.compile)',
      at.count,
      (i) => WebAssembly.compile(distinctBytes(at.bytes, i)),
      false,
    ),
  );
  const { internalUrl, token, shas } = at.fetchable;
  printCost(
    await costOf(
      'cold part: fetch a module from the api internal listener',
      at.count,
      async (i) => {
        const response = await request(`${internalUrl}/internal/app-modules/${shas[i % shas.length]}`, {
          headers: { authorization: `Bearer ${token}` },
        });
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
  const backToBack = await roundTripP50(echoer, 0);
  const afterIdle = await roundTripP50(echoer, at.idleMs);
  await echoer.terminate();
  console.log(
    `${'thread message round trip p50, back to back'.padEnd(52)} ${fmt(backToBack, 3).padStart(6)} ms; ` +
      `after ${at.idleMs} ms idle ${fmt(afterIdle, 3)} ms (each hop of a call wakes an idle thread)`,
  );
  return replacement.cpuMs;
}
