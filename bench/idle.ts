// Idle load (docs/runs.md, "Queue dispatch"): per process role, the SQL statements a second it sends
// while nothing happens (goal ≤ 20), and on the worker the enqueue → first-step latency of runs started
// one after another on an idle worker (goal p50 ≤ 30 ms). The floor is the same worker with the queue
// gate off (WORKER_QUEUE_SAFETY_POLL_MS=0: DBOS polling every 20 ms), measured in the same run.
// Each role runs in a process of its own (bench/idle-role.ts); PostgreSQL's CPU is all of its processes'.
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { freePort } from '../test/support/free-port.ts';
import { withBenchDatabase } from './support.ts';
import { postmasterOf, startMeter } from './usage.ts';

const WINDOW_MS = Number(process.env.IDLE_WINDOW_MS ?? 10_000);
const RUNS = Number(process.env.IDLE_RUNS ?? 30);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ask<T>(child: ChildProcess, question: unknown): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(question as object);
  });
}

async function startRole(role: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(new URL('./idle-role.ts', import.meta.url).pathname, [role], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${role} exited ${code}`)));
  });
  return child;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

await withBenchDatabase('idle-bench-', async (bench) => {
  const postmaster = postmasterOf(bench.dir);
  const rows: string[] = [];
  const configs: [string, string, Record<string, string>][] = [
    ['worker, gate off (floor)', 'worker', { WORKER_QUEUE_SAFETY_POLL_MS: '0' }],
    ['worker', 'worker', {}],
    ['api', 'api', {}],
  ];
  console.log(
    `${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)} at start; idle window ${WINDOW_MS / 1000} s`,
  );
  for (const [label, role, extra] of configs) {
    const env = {
      DATABASE_URL: bench.url,
      DATA_DIR: bench.dir,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      API_INTERNAL_PORT: String(await freePort()),
      APP_RUNNER_URL: 'off',
      APP_RUNNER_TOKEN: 'idle-bench-runner-token',
      APP_CALL_TOKEN_SECRET: 'idle-bench-call-token-secret-0123456789abcdef',
      SECRET_STORE_KEY: '0'.repeat(64),
      // Production settings the api insists on; nothing here is called while idle.
      AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks',
      AUTH_ISSUER: 'idle-bench',
      AUTH_AUDIENCE: 'idle-bench',
      WORKER_EXECUTOR_ID: `idle-bench-${rows.length}`,
      ...extra,
    };
    const child = await startRole(role, env);
    await pause(3_000); // start-up's own statements settle
    const load = os.loadavg()[0] ?? 0;
    await ask(child, { kind: 'statements' });
    const meter = await startMeter(postmaster, async () => 0);
    const first = await ask<{ statements: number }>(child, { kind: 'statements' });
    await pause(WINDOW_MS);
    const last = await ask<{ statements: number; top: [string, number][] }>(child, { kind: 'statements' });
    const used = await meter();
    const perSecond = ((last.statements - first.statements) * 1000) / used.wall;
    let latency = '';
    if (role === 'worker') {
      const { latencies } = await ask<{ latencies: number[] }>(child, { kind: 'latency', runs: RUNS });
      const sorted = [...latencies].sort((a, b) => a - b);
      latency = `p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms (${sorted.length} runs; goal p50 ≤ 30)`;
    }
    const row = [
      `${label.padEnd(26)} ${perSecond.toFixed(1).padStart(7)} statements/s (goal ≤ 20)  PostgreSQL CPU ${((used.postgres / used.wall) * 100).toFixed(1)} %, others ${((used.others / used.wall) * 100).toFixed(1)} %, load ${load.toFixed(1)}  ${latency}`,
      ...last.top.map(
        ([text, n]) => `    ${(n / (used.wall / 1000)).toFixed(1).padStart(6)}/s  ${text.slice(0, 110)}`,
      ),
    ];
    console.log(row.join('\n'));
    rows.push(...row);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  console.log("The machine is shared: the load average and the others' CPU say how noisy these figures are.");
});
