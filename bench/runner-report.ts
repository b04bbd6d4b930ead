// What the runner benchmark prints: the table of rows with their ratios, the memory readings, the cost
// lines, and the goals.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { type Memory, mean, quantile, type Row } from './runner-load.ts';

export const fmt = (n: number | null | undefined, digits = 2) =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);
const percent = (n: number | null) => (n === null ? '-' : `${Math.round(n * 100)}%`);
const ratio = (n: number) => `×${fmt(n, n < 10 ? 2 : 0)}`;

/** p50 over the floor, the p50 minus the in-process fresh-instance p50, calls/s over the healthy row. */
export function printTable(rows: Row[], floor: Row, fresh: Row, healthy: Row) {
  const floorP50 = quantile(floor.latencies, 0.5);
  const freshP50 = quantile(fresh.latencies, 0.5);
  const columns: [string, number][] = [
    ['measurement', -40],
    ['runner', 7],
    ['p50 ms', 8],
    ['p99 ms', 8],
    ['mean ms', 8],
    ['calls/s', 8],
    ['p50/floor', 9],
    ['p50-fresh', 10],
    ['/healthy', 9],
    ['CPU', 5],
    ['other', 5],
    ['warm', 5],
    ['loops', 6],
    ['busy', 5],
    ['failed', 6],
  ];
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const width = columns[i]?.[1] ?? 0;
        return width < 0 ? cell.padEnd(-width) : cell.padStart(width);
      })
      .join(' ');
  const header = line(columns.map(([name]) => name));
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const row of rows) {
    const p50 = quantile(row.latencies, 0.5);
    const overFresh = p50 - freshP50;
    console.log(
      line([
        row.name,
        row.runner,
        fmt(p50, 3),
        fmt(quantile(row.latencies, 0.99), 3),
        fmt(mean(row.latencies), 3),
        fmt(row.perSecond, 0),
        ratio(p50 / floorP50),
        `${overFresh >= 0 ? '+' : ''}${fmt(overFresh, 2)}`,
        row.perSecond === null || !healthy.perSecond ? '-' : ratio(row.perSecond / healthy.perSecond),
        percent(row.cpu?.own ?? null),
        percent(row.cpu?.others ?? null),
        percent(row.warm),
        row.loops === null ? '-' : String(row.loops),
        String(row.busy),
        String(row.failed),
      ]),
    );
  }
  console.log(
    'runner: APP_RUNNER_CONCURRENCY/APP_RUNNER_TENANT_CONCURRENCY/APP_RUNNER_WARM_PLUGINS; p50-fresh: ms over ' +
      'the in-process fresh-instance p50;\n/healthy: calls/s over the healthy callers row; CPU, other: this ' +
      'process (every thread) and all other processes over the row, shares of all cores;\nloops: looping calls ' +
      'ended at their deadline (their times are not in the row); busy: 429 answers',
  );
}

/** Growth is counted from readings[baseAt]. */
export function printMemory(readings: Memory[], baseAt = 0) {
  const base = readings[baseAt];
  if (!base) return;
  console.log(
    "\nmemory of the bench process (api, runners, callers in one process), MiB; heap: the main thread's " +
      'V8 heap in use',
  );
  const head = [
    'reading'.padEnd(44),
    'calls',
    '   rss',
    ' VmRSS',
    '    VmSize',
    '  heap',
    '  Δrss',
    '   ΔVmSize',
  ];
  console.log(head.join(' '));
  for (const m of readings) {
    const grow = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 0)}`;
    console.log(
      [
        m.label.padEnd(44),
        String(m.calls).padStart(5),
        fmt(m.rss, 0).padStart(6),
        fmt(m.vmRss, 0).padStart(6),
        fmt(m.vmSize, 0).padStart(10),
        fmt(m.heapUsed, 0).padStart(6),
        grow(m.rss - base.rss).padStart(6),
        grow(m.vmSize - base.vmSize).padStart(10),
      ].join(' '),
    );
  }
}

export interface Cost {
  name: string;
  wallMs: number;
  cpuMs: number;
  /** Print the calls a second the CPU time allows on every core. */
  bound: boolean;
}

/** Wall and CPU time (every thread of the process) per run of `once`, `count` one after another. */
export async function costOf(
  name: string,
  count: number,
  once: (i: number) => Promise<unknown>,
  bound = true,
): Promise<Cost> {
  for (let i = 0; i < 5; i++) await once(i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await once(i + 5);
  const used = process.cpuUsage(cpu);
  return {
    name,
    wallMs: (performance.now() - started) / count,
    cpuMs: (used.user + used.system) / 1000 / count,
    bound,
  };
}

export function printCost(cost: Cost) {
  const cores = os.cpus().length;
  const bound = cost.bound
    ? `  → at most ${fmt((cores * 1000) / cost.cpuMs, 0)} a second on ${cores} cores`
    : '';
  console.log(
    `${cost.name.padEnd(52)} ${fmt(cost.wallMs, 2).padStart(6)} ms wall ${fmt(cost.cpuMs, 2).padStart(6)} ms CPU${bound}`,
  );
}

/**
 * Where a call's CPU went in a row: the main thread (the runner's HTTP, validation, JSON, redaction,
 * dispatch and host functions, and the bench's own callers, which share the process) and the other
 * threads (the sandbox threads' instances and exports, V8's GC helpers, libuv's pool).
 */
export function printBreakdown(
  row: Row,
  mainThread = "runner HTTP, JSON, validation, redaction, dispatch; the bench's callers too",
) {
  const calls = row.latencies.length;
  if (!row.cpu || calls === 0) return;
  const per = (ms: number) => fmt(ms / calls, 3);
  console.log(
    `CPU a call in "${row.name}": ${per(row.cpu.allMs)} ms in all = main thread ${per(row.cpu.mainMs)} ms ` +
      `(${mainThread}) + other threads ` +
      `${per(row.cpu.allMs - row.cpu.mainMs)} ms (sandbox threads: instance and export; GC helpers)`,
  );
}

export function goal(text: string, met: boolean) {
  console.log(`goal: ${text} — ${met ? 'met' : 'MISSED'}`);
}

/** The healthy row alone (a shortened run), with its goal. */
export function printHealthy(healthy: Row, goalPerSecond: number) {
  const perSecond = healthy.perSecond ?? 0;
  console.log(
    `\n${healthy.name}: ${fmt(perSecond, 0)} calls/s, p50 ${fmt(quantile(healthy.latencies, 0.5), 2)} ms, ` +
      `p99 ${fmt(quantile(healthy.latencies, 0.99), 2)} ms; CPU ${percent(healthy.cpu?.own ?? null)} this ` +
      `process, ${percent(healthy.cpu?.others ?? null)} other processes (shares of all cores)`,
  );
  printBreakdown(healthy);
  goal(
    `at least ${goalPerSecond} calls/s with 8 callers (warm pool): ${fmt(perSecond, 0)}`,
    perSecond >= goalPerSecond,
  );
}
