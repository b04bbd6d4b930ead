// Where a test file's minutes go (npm run test:profile): the support code marks what it spends starting
// servers and processes, creating the file's database and compiling modules; the setup file adds this
// process's CPU, the CPU of the children it waited for, and the real-time waits the test itself asked for.
// Recording is a few numbers per span, so it is always on; only the profile script prints it.
import fs from 'node:fs';
import { createRequire } from 'node:module';

export type SpanKind = 'starting' | 'database' | 'compiling';

export interface FileProfile {
  /** Milliseconds of wall time spent in each kind of span (overlapping spans of one kind counted once). */
  spans: Record<SpanKind, number>;
  /** Milliseconds of CPU of this process (all its threads: the in-process api, worker and runner). */
  cpuMs: number;
  /** Milliseconds of CPU of the child processes that ended and were waited for (PostgreSQL's apart). */
  childCpuMs: number;
  /** Milliseconds during which a timer of 100 ms or more, set by the test's own code, ran to its end. */
  testSleepMs: number;
}

const KINDS: SpanKind[] = ['starting', 'database', 'compiling'];

/** Finished spans and sleeps of this process, as [from, to] (test files share it when vitest runs them in one). */
const intervals: Record<SpanKind | 'sleeps', [number, number][]> = {
  starting: [],
  database: [],
  compiling: [],
  sleeps: [],
};

/** Runs work, counting its wall time under kind. */
export async function timed<T>(kind: SpanKind, work: () => Promise<T>): Promise<T> {
  const from = performance.now();
  try {
    return await work();
  } finally {
    intervals[kind].push([from, performance.now()]);
  }
}

/** CPU of children waited for (cutime + cstime of /proc/self/stat), in milliseconds; 0 off Linux. */
function childCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of proc(5), counted from the state (field 3) at index 0.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const LONG_MS = 100;
const TEST_CODE = /\/(test|apps\/[^/]+\/test|packages\/[^/]+\/test)\/[^:]*\.ts/;

/**
 * Counts the timers of 100 ms or more that the test's own code (a frame under test/) set and that ran
 * to their end: the sleeps a test sits through. Guards that are cleared or never fire are not waits.
 */
function countTestSleeps(onSlept: (from: number, to: number) => void): void {
  const wrap = <F extends (...args: never[]) => unknown>(original: F, delayAt: number, promise: boolean) =>
    function (this: unknown, ...args: unknown[]) {
      const delay = Number(args[delayAt] ?? 0);
      if (!(delay >= LONG_MS) || !TEST_CODE.test(new Error().stack?.split('\n').slice(2, 6).join('\n') ?? ''))
        return Reflect.apply(original, this, args);
      const from = performance.now();
      if (promise) {
        const result = Reflect.apply(original, this, args) as Promise<unknown>;
        return result.then((value) => {
          onSlept(from, performance.now());
          return value;
        });
      }
      const callback = args[0] as (...rest: unknown[]) => void;
      args[0] = (...rest: unknown[]) => {
        onSlept(from, performance.now());
        callback(...rest);
      };
      return Reflect.apply(original, this, args);
    } as unknown as F;
  globalThis.setTimeout = wrap(globalThis.setTimeout, 1, false);
  const require = createRequire(import.meta.url);
  const promises = require('node:timers/promises') as typeof import('node:timers/promises');
  promises.setTimeout = wrap(promises.setTimeout, 0, true);
  (require('node:module') as typeof import('node:module')).syncBuiltinESMExports();
}

/** The length of the union of intervals (spans or sleeps running at once count once). */
export function unionLength(intervals: readonly (readonly [number, number])[]): number {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

const COUNTING = Symbol.for('apps-platform.test-profile.sleeps');

/** Starts the file's profile (from the setup file); the function answers it at the file's end. */
export function startFileProfile(): () => FileProfile {
  const cpu = process.cpuUsage();
  const children = childCpuMs();
  const started = performance.now();
  const global = globalThis as { [COUNTING]?: boolean };
  if (!global[COUNTING]) {
    global[COUNTING] = true;
    countTestSleeps((from, to) => intervals.sleeps.push([from, to]));
  }
  return () => {
    const used = process.cpuUsage(cpu);
    // This file's own: what began after it started; then forgotten, for the next file in the process.
    const length = (kind: SpanKind | 'sleeps') => {
      const mine = intervals[kind].filter(([from]) => from >= started);
      intervals[kind].length = 0;
      return Math.round(unionLength(mine));
    };
    return {
      spans: Object.fromEntries(KINDS.map((kind) => [kind, length(kind)])) as Record<SpanKind, number>,
      cpuMs: Math.round((used.user + used.system) / 1000),
      childCpuMs: Math.round(childCpuMs() - children),
      testSleepMs: length('sleeps'),
    };
  };
}
