// Command start-up benchmark (issue 44 item 9): how long a person waits for `ops --help`, `app --help`,
// `platform --help` and `platform token` (against a running platform, as the README has it), each run as a
// person runs it (a new node process on the bin), the median of BENCH_TIMES runs beside its goal. Also
// the cost of the one build a change of src/ brings (scripts/cli-build.js). Prints wall and CPU time with
// the machine's load (docs/operations.md "The commands' build" keeps the figures before and after); never
// asserts timings and is never part of the tests.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { build } from '../scripts/cli-build.js';
import { freePort } from '../test/support/free-port.ts';
import { bin, startPlatformCommand } from './platform-command.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const TIMES = Number(process.env.BENCH_TIMES ?? 7);

interface Line {
  what: string;
  /** Median wall time, and the median CPU time (user + system) of the process. */
  ms: number;
  cpuMs?: number;
  goalMs?: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** GNU time, when installed: the CPU a run took, which a loaded machine inflates less than its wall time. */
const GNU_TIME = '/usr/bin/time';
const hasGnuTime = await fs.access(GNU_TIME).then(
  () => true,
  () => false,
);

/** The medians of running `args` (node and its arguments) to its end, TIMES times. */
async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; cpuMs?: number }> {
  const walls: number[] = [];
  const cpus: number[] = [];
  const cpuFile = path.join(os.tmpdir(), `apps-platform-bench-cli-${process.pid}.time`);
  for (let i = 0; i < TIMES; i++) {
    const started = performance.now();
    if (hasGnuTime) {
      await run(GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], { env, cwd: ROOT });
      const [user, system] = (await fs.readFile(cpuFile, 'utf8')).trim().split(/\s+/).map(Number);
      walls.push(performance.now() - started);
      cpus.push(((user ?? 0) + (system ?? 0)) * 1000);
    } else {
      await run(process.execPath, args, { env, cwd: ROOT });
      walls.push(performance.now() - started);
    }
  }
  await fs.rm(cpuFile, { force: true });
  return { ms: median(walls), ...(cpus.length > 0 ? { cpuMs: median(cpus) } : {}) };
}

async function main() {
  const lines: Line[] = [];
  const load = os.loadavg()[0]?.toFixed(1);
  const builtAt = performance.now();
  await build();
  lines.push({
    what: 'build of the commands after a change of src/ (once)',
    ms: performance.now() - builtAt,
  });

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-bench-cli-'));
  await fs.chmod(dataDir, 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: String(await freePort()),
    API_INTERNAL_PORT: String(await freePort()),
    RUNNER_PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
  };
  lines.push({ what: 'ops --help', ...(await timed([bin('ops'), '--help'], env)), goalMs: 300 });
  lines.push({ what: 'app --help', ...(await timed([bin('app'), '--help'], env)), goalMs: 300 });
  lines.push({ what: 'platform --help', ...(await timed([bin('platform'), '--help'], env)), goalMs: 300 });

  const stop = await startPlatformCommand(env);
  try {
    const token = [bin('platform'), 'token', '--tenant', 'acme', '--role', 'admin'];
    lines.push({ what: 'platform token (platform running)', ...(await timed(token, env)), goalMs: 1000 });
    lines.push({ what: 'ops audit (platform running)', ...(await timed([bin('ops'), 'audit'], env)) });
  } finally {
    await stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }

  const cores = os.cpus().length;
  process.stdout.write(
    `command start-up, median of ${TIMES} runs (load average ${load} on ${cores} cores)\n`,
  );
  process.stdout.write(`  ${''.padEnd(52)}   wall       cpu\n`);
  for (const { what, ms, cpuMs, goalMs } of lines) {
    const cpu = cpuMs === undefined ? '' : `${Math.round(cpuMs)} ms`;
    const goal =
      goalMs === undefined ? '' : `  goal ≤ ${goalMs} ms (wall): ${ms <= goalMs ? 'met' : 'NOT met'}`;
    const wall = `${Math.round(ms)} ms`;
    process.stdout.write(`  ${what.padEnd(52)} ${wall.padStart(9)} ${cpu.padStart(9)}${goal}\n`);
  }
}

await main();
