// The runner benchmark's callers: one POST /v1/invoke as the api sends it, the load shapes the table
// measures (one caller after another, closed-loop callers with or without looping calls among them),
// and what each shape's outcomes make of a row.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { type Agent, request } from 'undici';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
export const quantile = (values: number[], q: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

/** echo answers at once; spin loops until its deadline (the hostile fixture), LOOP_TIMEOUT_MS here. */
export type Kind = 'echo' | 'spin';
export const LOOP_TIMEOUT_MS = 200;

/** What the runner's /v1/invoke body carries, with a fresh call id each time. */
export function invokeBody(sha256: string, tenantId: string, kind: Kind = 'echo') {
  return {
    module: { sha256 },
    call: { id: randomUUID(), tenantId },
    action: kind,
    idempotencyKey: 'bench-key',
    config: { greeting: 'hello {{secret:API_KEY}}' },
    secrets: { API_KEY: 'sk-bench-123456' },
    hosts: ['api.vendor.test'],
    input: { n: 1, text: 'a short input, as most calls carry' },
    timeoutMs: kind === 'spin' ? LOOP_TIMEOUT_MS : 5000,
  };
}

export interface Outcome {
  status: number;
  warm: boolean | null;
  ms: number;
  /** A looping call (expected to end 504 timeout), not one of the calls the row measures. */
  looping: boolean;
}

export interface Runner {
  url: string;
  /** APP_RUNNER_CONCURRENCY/APP_RUNNER_TENANT_CONCURRENCY/APP_RUNNER_WARM_PLUGINS */
  settings: string;
  close(): Promise<void>;
}

export type Send = (sha256: string, tenantId: string, kind?: Kind) => Promise<Outcome>;

/** One POST /v1/invoke, timed from the request to the whole answer read. */
export function sender(runner: Runner, agent: Agent, token: string): Send {
  return async (sha256, tenantId, kind = 'echo') => {
    const t = performance.now();
    const response = await request(`${runner.url}/v1/invoke`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(invokeBody(sha256, tenantId, kind)),
    });
    const body = (await response.body.json()) as { warm?: boolean; answer?: { status?: string } };
    const ms = performance.now() - t;
    if (kind === 'echo' && response.statusCode === 200 && body.answer?.status !== 'ok')
      throw new Error(`unexpected answer ${JSON.stringify(body).slice(0, 200)}`);
    const warm = typeof body.warm === 'boolean' ? body.warm : null;
    return { status: response.statusCode, warm, ms, looping: kind === 'spin' };
  };
}

export interface Row {
  name: string;
  runner: string;
  latencies: number[];
  perSecond: number | null;
  warm: number | null;
  /** Looping calls that ended at their deadline as expected; null: the row has none. */
  loops: number | null;
  /** CPU over the row's time, shares of all cores. */
  cpu: Cpu | null;
  busy: number;
  failed: number;
}

/** A row of the answered measured calls; `seconds` gives calls/s. Busy (429) is not failed. */
export function rowOf(
  name: string,
  runner: string,
  outcomes: Outcome[],
  seconds: number | null,
  cpu: Cpu | null = null,
): Row {
  const measured = outcomes.filter((o) => !o.looping);
  const looping = outcomes.filter((o) => o.looping);
  const ok = measured.filter((o) => o.status === 200);
  const warmKnown = ok.filter((o) => o.warm !== null);
  const failed = (o: Outcome) => o.status !== 429 && o.status !== (o.looping ? 504 : 200);
  return {
    name,
    runner,
    latencies: ok.map((o) => o.ms),
    perSecond: seconds === null ? null : ok.length / seconds,
    warm: warmKnown.length ? warmKnown.filter((o) => o.warm).length / warmKnown.length : null,
    loops: looping.length ? looping.filter((o) => o.status === 504).length : null,
    cpu,
    busy: outcomes.filter((o) => o.status === 429).length,
    failed: outcomes.filter(failed).length,
  };
}

/** `count` calls one after another; `between` runs untimed before each. */
export async function oneAfterAnother(
  count: number,
  call: (i: number) => Promise<Outcome>,
  between: () => Promise<void> = async () => {},
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < count; i++) {
    await between();
    outcomes.push(await call(i));
  }
  return outcomes;
}

export interface Load {
  /** Measured calls in all (echo), shared by the callers. */
  calls: number;
  callers: number;
  /** Caller i's tenant is tenants[i % tenants.length]. */
  tenants: string[];
  /** Every caller's every nth call loops instead (staggered between callers); none when unset. */
  loopEvery?: number;
  /** A tenant whose one extra caller sends looping calls only, for as long as the others run. */
  looperTenant?: string;
}

/**
 * Closed-loop callers (each sends its next call when its last one is answered) until `calls` echo calls
 * are made. seconds: from the start to the last echo answer (a looping call still under way is not
 * counted in the time); cpu: the CPU used over that time.
 */
export async function closedLoop(send: Send, shas: Record<Kind, string>, load: Load) {
  const outcomes: Outcome[] = [];
  let tickets = load.calls;
  let running = true;
  const cpu = cpuMeter();
  const started = performance.now();
  let lastAnswer = started;
  const { looperTenant, loopEvery } = load;
  const looper = (async () => {
    while (running && looperTenant !== undefined) outcomes.push(await send(shas.spin, looperTenant, 'spin'));
  })();
  await Promise.all(
    Array.from({ length: load.callers }, async (_, i) => {
      const tenantId = load.tenants[i % load.tenants.length] as string;
      for (let k = 0; ; k++) {
        const kind: Kind = loopEvery && (k + i) % loopEvery === loopEvery - 1 ? 'spin' : 'echo';
        if (kind === 'echo' && tickets-- <= 0) return;
        outcomes.push(await send(shas[kind], tenantId, kind));
        if (kind === 'echo') lastAnswer = performance.now();
      }
    }),
  );
  const used = cpu();
  running = false;
  await looper;
  return { outcomes, seconds: (lastAnswer - started) / 1000, cpu: used };
}

export interface Cpu {
  /** This process, every thread: a share of all cores. */
  own: number;
  /** Every other process on the machine (/proc/stat), a share of all cores: what disturbs the row. */
  others: number;
  /** CPU ms of this process's main thread (HTTP both sides, the runner's own work) and of every thread. */
  mainMs: number;
  allMs: number;
}

/** CPU ms the main thread has used (its scheduler statistics, Linux); NaN elsewhere. */
function mainThreadMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total jiffies of the machine, every core (Linux only). */
function machineJiffies(): { busy: number; total: number } | null {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const values = fields.slice(1, 9).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** Starts measuring; the function returned answers the CPU used since. */
export function cpuMeter(): () => Cpu {
  const started = performance.now();
  const ours = process.cpuUsage();
  const machine = machineJiffies();
  const main = mainThreadMs();
  return () => {
    const used = process.cpuUsage(ours);
    const allMs = (used.user + used.system) / 1000;
    const own = allMs / ((performance.now() - started) * os.cpus().length);
    const now = machineJiffies();
    const busy = now && machine ? (now.busy - machine.busy) / (now.total - machine.total) : Number.NaN;
    return { own, others: Math.max(0, busy - own), mainMs: mainThreadMs() - main, allMs };
  };
}

/** Waits (10 s at most) until the process, every thread counted, uses under 10% of a core. */
export async function quiet(): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const cpu = process.cpuUsage();
    await sleep(100);
    const used = process.cpuUsage(cpu);
    if ((used.user + used.system) / 1000 < 10) return;
  }
}

/** Waits (10 s at most) until the runner's warm pool holds `count` instances, then `settleMs` more. */
export async function poolRefilled(url: string, count: number, settleMs: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const response = await request(`${url}/health`);
    const health = (await response.body.json()) as { warmPlugins: number };
    if (health.warmPlugins >= count) break;
    await sleep(5);
  }
  await sleep(settleMs);
}

export interface Memory {
  label: string;
  calls: number;
  /** MiB: process.memoryUsage().rss and heapUsed (main thread), /proc/self/status VmRSS and VmSize. */
  rss: number;
  heapUsed: number;
  vmRss: number;
  vmSize: number;
}

const MIB = 1024 * 1024;

function statusKiB(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : Number.NaN;
}

export function memoryNow(label: string, calls: number): Memory {
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {}
  const usage = process.memoryUsage();
  return {
    label,
    calls,
    rss: usage.rss / MIB,
    heapUsed: usage.heapUsed / MIB,
    vmRss: statusKiB(status, 'VmRSS') / 1024,
    vmSize: statusKiB(status, 'VmSize') / 1024,
  };
}

/** A full collection of the main thread's heap (the sandbox threads' heaps are out of reach). */
export function collectMainThread(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}
