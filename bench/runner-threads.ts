// The runner of the noisy-neighbour rows in a process of its own, and what Linux tells of that process:
// its OS threads, its resident memory, and the CPU of each of its threads over a window, grouped by the
// names Node 24 gives them (read from /proc/<pid>/task/<tid>/comm): MainThread, WorkerThread (a
// worker_threads Worker with no name: the runner's sandbox threads, its only Workers), V8Worker and
// DelayedTaskSche (V8's platform threads: GC helpers, background compilation), libuv-worker (libuv's
// pool: file system, DNS, crypto). The bench's own callers are not in that process.

import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { spawnRunner } from '../test/support/runner.ts';

/** Linux's clock ticks a second (USER_HZ), what /proc's CPU times count in. */
const TICKS = 100;
const tickMs = 1000 / TICKS;

export interface RunnerChild {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** The real runner (test/support/runner-process.ts) in a child process with these settings. */
export async function startRunnerChild(env: Record<string, string>): Promise<RunnerChild> {
  const { child, url, exited } = await spawnRunner(env);
  return {
    url,
    pid: child.pid as number,
    async close() {
      if (exited()) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // A runner whose threads do not end (a sandbox thread that terminate() cannot stop) is killed.
      const killer = setTimeout(() => {
        console.log('the runner process did not end within 5 s of SIGTERM: killed');
        child.kill('SIGKILL');
      }, 5_000);
      await gone;
      clearTimeout(killer);
    },
  };
}

export const osThreads = (pid: number) => readdirSync(`/proc/${pid}/task`).length;

/** VmRSS of the process, MiB. */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
}

/** utime + stime of a stat line (the process's, or one task's), in ticks; its comm. */
function statOf(text: string): { comm: string; ticks: number } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  // After the comm: state is field 3, utime field 14, stime field 15.
  return { comm: text.slice(open + 1, close), ticks: Number(rest[11]) + Number(rest[12]) };
}

/** CPU ticks the process has used, every thread (those ended too). */
export function processTicks(pid: number): number {
  return statOf(readFileSync(`/proc/${pid}/stat`, 'utf8')).ticks;
}

function tasks(pid: number): Map<number, { comm: string; ticks: number }> {
  const found = new Map<number, { comm: string; ticks: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const tid of tids) {
    try {
      found.set(Number(tid), statOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // Ended between the listing and the read: its last sample stands.
    }
  }
  return found;
}

export const GROUPS = ['main', 'sandbox', 'v8', 'libuv', 'other', 'ended'] as const;
export type Group = (typeof GROUPS)[number];

function groupOf(comm: string): Group {
  if (comm === 'MainThread') return 'main';
  if (comm === 'WorkerThread') return 'sandbox';
  if (comm === 'V8Worker' || comm === 'DelayedTaskSche') return 'v8';
  if (comm === 'libuv-worker') return 'libuv';
  return 'other';
}

export interface ThreadCpu {
  /** CPU ms a second of wall time, by group; `ended`: threads that ended between two samples. */
  msPerSecond: Record<Group, number>;
  /** The whole runner process, ms a second. */
  totalPerSecond: number;
  /** Threads seen, by name (comm), with how many of each. */
  names: Map<string, number>;
  /** Shares of all cores over the window: this bench process, and every process but the two. */
  bench: number;
  others: number;
}

/** Busy and total jiffies of the machine (/proc/stat). */
function machine(): { busy: number; total: number } {
  const values = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
}

/**
 * Samples the runner's threads every `everyMs` until stopped. A thread born in the window counts from
 * zero; one that ends keeps its last sample, and what it used after that is `ended` (the process's own
 * total, which keeps ended threads' time, minus the threads' sum).
 */
export function threadSampler(pid: number, everyMs = 100): { stop(): ThreadCpu } {
  const started = performance.now();
  const startTicks = processTicks(pid);
  const startMachine = machine();
  const startBench = process.cpuUsage();
  const first = tasks(pid);
  const last = new Map(first);
  const sample = () => {
    for (const [tid, task] of tasks(pid)) last.set(tid, task);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const seconds = (performance.now() - started) / 1000;
      const ticks = { main: 0, sandbox: 0, v8: 0, libuv: 0, other: 0, ended: 0 };
      const names = new Map<string, number>();
      for (const [tid, task] of last) {
        ticks[groupOf(task.comm)] += task.ticks - (first.get(tid)?.ticks ?? 0);
        names.set(task.comm, (names.get(task.comm) ?? 0) + 1);
      }
      const all = processTicks(pid) - startTicks;
      const sampled = Object.values(ticks).reduce((a, b) => a + b, 0);
      ticks.ended = Math.max(0, all - sampled);
      const msPerSecond = Object.fromEntries(
        GROUPS.map((group) => [group, (ticks[group] * tickMs) / seconds]),
      ) as Record<Group, number>;
      const now = machine();
      const jiffies = now.total - startMachine.total;
      const used = process.cpuUsage(startBench);
      const bench = (used.user + used.system) / 1000 / (seconds * 1000 * os.cpus().length);
      const runner = all / jiffies;
      return {
        msPerSecond,
        totalPerSecond: (all * tickMs) / seconds,
        names,
        bench,
        others: Math.max(0, (now.busy - startMachine.busy) / jiffies - runner - bench),
      };
    },
  };
}
