// Scale-out bench (issue 32, goal 6): two workers, two runners and two apis, each a real
// `platform start --role …` child process, on one embedded PostgreSQL. RUNS single-step runs (the release's
// http-connector against a loopback vendor double) are started across both apis; once about a third have
// ended, worker 1 is SIGKILLed and started again with the same WORKER_EXECUTOR_ID, as an orchestrator
// restarts a pod (docs/operations.md "Production topology"). Checks (exit 1 if one fails): every run
// terminal, ended once (one workflow.run.completed|failed audit event per run), both workers took runs
// (dbos.workflow_status.executor_id), both runners took calls (their /v1/invoke request count on
// METRICS_PORT). Prints runs a second, statements and commits per run, connections per role, with the
// load average and the CPU of PostgreSQL and of every other process. BENCH_SCALE_RUNS shrinks it (default
// 2000). Never part of the tests.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { startEchoVendor } from '../src/app-cli/vendor-double.ts';
import { openDatabase } from '../src/db/pool.ts';
import { definitions, definitionVersions } from '../src/runs/tables.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import { signToken } from '../test/auth/sign.ts';
import { freePort } from '../test/support/free-port.ts';
import { BIN, baseEnv, ROOT } from '../test/support/processes.ts';
import { withBenchDatabase } from './support.ts';
import { postmasterOf, startMeter } from './usage.ts';

const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_SCALE_IN_FLIGHT ?? 32);
const ISSUER = 'https://idp.scale-out.example/';
const AUDIENCE = 'apps-platform';
const RELEASE_INDEX = path.join(ROOT, 'apps', 'build', 'release.json');

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Json = any;

/** `platform start --role <role>`; resolves once `health` answers 200. */
async function startRole(role: string, env: Record<string, string>, health: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'start', '--role', role], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: baseEnv({ ...env, HOST: '127.0.0.1', LOG_LEVEL: 'error' }),
  });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the ${role} exited before it was healthy`);
    if ((await fetch(health).catch(() => null))?.status === 200) return child;
    if (i > 1800) throw new Error(`the ${role} was not healthy in 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const stop = async (child: ChildProcess | null, signal: NodeJS.Signals = 'SIGTERM') => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill(signal);
  await closed;
};

/** The /v1/invoke requests a runner answered: its http.server.request.duration count on /metrics. */
async function invokesOf(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('http_server_request_duration') && line.includes('_count'))
    .filter((line) => line.includes('/v1/invoke'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function main() {
  await withBenchDatabase('apps-platform-bench-scale-', async ({ dir, url, closers }) => {
    const database = openDatabase(url, { max: 4, applicationName: 'bench-scale-poller' });
    closers.push(() => database.close());
    const postmaster = postmasterOf(dir);
    const pair = await generateKeyPair('ES256');
    const keys = JSON.stringify({
      keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }],
    });
    const jwks = http.createServer((_q, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(keys),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => jwks.close(() => resolve())));
    const vendor = await startEchoVendor(0);
    closers.unshift(() => vendor.close());

    const ports = {
      runners: [await freePort(), await freePort()],
      metrics: [await freePort(), await freePort()],
      apis: [await freePort(), await freePort()],
      internal: [await freePort(), await freePort()],
    };
    const shared = {
      DATABASE_URL: url,
      DATA_DIR: dir,
      APP_RUNNER_URL: ports.runners.map((port) => `http://127.0.0.1:${port}`).join(','),
      APP_RUNNER_TOKEN: 'scale-out-runner-token',
      APP_CALL_TOKEN_SECRET: 'scale-out-call-token-secret',
      SECRET_STORE_KEY: 'cd'.repeat(32),
      APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
      APP_RUNNER_CONCURRENCY: '16',
      APP_RUNNER_TENANT_CONCURRENCY: '16',
      RELEASE_INDEX,
    };
    const children: (ChildProcess | null)[] = [];
    closers.unshift(async () => {
      for (const child of children) await stop(child);
    });
    for (const [i, port] of ports.runners.entries()) {
      const env = {
        ...shared,
        RUNNER_PORT: String(port),
        METRICS_PORT: String(ports.metrics[i]),
        OTEL_TRACES_SAMPLER: 'always_off',
        APP_RUNNER_CACHE_DIR: path.join(dir, `runner-cache-${i}`),
        API_INTERNAL_URL: `http://127.0.0.1:${ports.internal[i]}`,
      };
      children.push(await startRole('runner', env, `http://127.0.0.1:${port}/health`));
    }
    for (const [i, port] of ports.apis.entries()) {
      const env = {
        ...shared,
        PORT: String(port),
        API_INTERNAL_PORT: String(ports.internal[i]),
        API_RATE_LIMIT_PER_MINUTE: '0',
        AUTH_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
      };
      children.push(await startRole('api', env, `http://127.0.0.1:${port}/health`));
    }
    const workerEnv = async (i: number) => {
      const health = await freePort();
      return {
        env: { ...shared, WORKER_EXECUTOR_ID: `scale-worker-${i}`, WORKER_HEALTH_PORT: String(health) },
        health: `http://127.0.0.1:${health}/healthz`,
      };
    };
    const workers: ChildProcess[] = [];
    for (const i of [0, 1]) {
      const { env, health } = await workerEnv(i);
      const child = await startRole('worker', env, health);
      workers.push(child);
      children.push(child);
    }

    const { tenant } = await ensureTenant(database.db, 'scale');
    const token = await signToken(
      pair.privateKey,
      { tenant: tenant.id, sub: 'user:bench', roles: ['admin'] },
      { kid: 'k1', issuer: ISSUER, audience: AUDIENCE },
    );
    const apiUrls = ports.apis.map((port) => `http://127.0.0.1:${port}`);
    const call = async (apiUrl: string, method: string, route: string, body?: unknown): Promise<Json> => {
      const response = await fetch(`${apiUrl}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300)
        throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const api0 = apiUrls[0] as string;
    const version = (await call(api0, 'GET', '/apps/http-connector/versions')).items[0];
    await call(api0, 'POST', '/app-installs', {
      name: 'vendor',
      versionId: version.id,
      enabled: true,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    });
    const [definition] = await database.db
      .insert(definitions)
      .values({ tenantId: tenant.id, kind: 'workflow', key: 'one-call', createdBy: 'user:bench' })
      .returning();
    await database.db.insert(definitionVersions).values({
      definitionId: definition?.id as string,
      tenantId: tenant.id,
      version: 1,
      status: 'published',
      body: {
        steps: [
          {
            id: 'call',
            type: 'call_app',
            install: 'vendor',
            action: 'request',
            input: { method: 'GET', path: '/hello' },
            outputKey: 'vendor',
          },
        ],
      },
      createdBy: 'user:bench',
    });

    const commits = async () =>
      Number(
        (
          await database.pool.query(
            `select xact_commit from pg_stat_database where datname = current_database()`,
          )
        ).rows[0]?.xact_commit,
      );
    const ended = async () =>
      Number(
        (
          await database.pool.query(
            `select count(*) as n from workflow_runs where tenant_id = $1 and status not in ('running', 'waiting_callback')`,
            [tenant.id],
          )
        ).rows[0]?.n,
      );
    const statementsNow = async () => {
      const row = await database.pool
        .query(`select sum(calls)::bigint as n from pg_stat_statements`)
        .catch(() => null);
      return row ? Number(row.rows[0]?.n) : null;
    };
    const connections = async () =>
      (
        await database.pool.query(
          `select coalesce(application_name, '') as name, count(*)::int as n from pg_stat_activity
            where datname = current_database() group by 1 order by 1`,
        )
      ).rows as { name: string; n: number }[];

    const load0 = os.loadavg()[0] ?? 0;
    const statementsStart = await statementsNow();
    const meter = await startMeter(postmaster, commits);
    const started = performance.now();
    let next = 0;
    let peakConnections: { name: string; n: number }[] = [];
    const starter = async () => {
      while (next < RUNS) {
        const n = next++;
        await call(apiUrls[n % 2] as string, 'POST', '/workflow-runs', {
          workflow: 'one-call',
          subjectId: `subject-${n}`,
        });
      }
    };
    const starting = Promise.all(Array.from({ length: IN_FLIGHT }, starter));
    // Worker 1 is killed once a third of the runs have ended, and started again with its executor id.
    let killedAt = 0;
    for (;;) {
      const done = await ended();
      if (done >= RUNS / 3) {
        killedAt = done;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    peakConnections = await connections();
    await stop(workers[1] as ChildProcess, 'SIGKILL');
    const { env, health } = await workerEnv(1);
    const restarted = await startRole('worker', env, health);
    children.push(restarted);
    await starting;
    const allStarted = performance.now();
    for (;;) {
      if ((await ended()) >= RUNS) break;
      if (performance.now() - allStarted > 300_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const usage = await meter();
    const statementsEnd = await statementsNow();
    const load1 = os.loadavg()[0] ?? 0;

    const q = async (text: string) => (await database.pool.query(text, [tenant.id])).rows;
    const statuses = await q(
      `select status, count(*)::int as n from workflow_runs where tenant_id = $1 group by 1 order by 1`,
    );
    const audit = await q(
      `select count(*)::int as events, count(distinct resource_id)::int as runs from audit_events
        where tenant_id = $1 and action in ('workflow.run.completed', 'workflow.run.failed')`,
    );
    const executors = await q(
      `select w.executor_id, count(*)::int as n from workflow_runs r
         join dbos.workflow_status w on w.workflow_uuid = coalesce(r.workflow_id, r.id::text)
        where r.tenant_id = $1 group by 1 order by 1`,
    );
    const invokes = await Promise.all(ports.metrics.map(invokesOf));
    const total = statuses.reduce((sum: number, row: Json) => sum + row.n, 0);
    const open = statuses
      .filter((row: Json) => ['running', 'waiting_callback'].includes(row.status))
      .reduce((sum: number, row: Json) => sum + row.n, 0);

    const f = (n: number, d = 1) => n.toFixed(d);
    console.log(
      `scale-out: ${RUNS} single-step runs, 2 apis, 2 workers, 2 runners, ${IN_FLIGHT} starts in flight`,
    );
    console.log(
      `  load average (1 min) ${f(load0, 2)} → ${f(load1, 2)} on ${os.cpus().length} cores (a shared machine: figures are noisy)`,
    );
    console.log(
      `  worker scale-worker-1 SIGKILLed after ${killedAt} runs ended, restarted with the same executor id`,
    );
    console.log(`  runs: ${JSON.stringify(statuses)} (open: ${open})`);
    console.log(`  end audit events: ${audit[0]?.events} for ${audit[0]?.runs} runs`);
    console.log(`  workers' share (dbos executor_id): ${JSON.stringify(executors)}`);
    console.log(`  runners' share (/v1/invoke answered): ${JSON.stringify(invokes)}`);
    console.log(`  ${f(RUNS / seconds)} runs/s overall (${f(seconds)} s, the kill and restart included)`);
    console.log(
      `  PostgreSQL: ${f(usage.commits / RUNS)} commits a run` +
        (statementsStart !== null && statementsEnd !== null
          ? `, ${f((statementsEnd - statementsStart) / RUNS)} statements a run (pg_stat_statements)`
          : ' (pg_stat_statements not loaded)') +
        `, ${f(usage.commits / seconds, 0)} commits/s`,
    );
    console.log(
      `  CPU: PostgreSQL ${f(usage.postgres / 1000)} s (${f(usage.postgres / RUNS, 2)} ms a run), ` +
        `the six processes and everything else ${f(usage.others / 1000)} s, this bench ${f(usage.own / 1000)} s, wall ${f(seconds)} s`,
    );
    console.log(`  connections by application_name (at the kill): ${JSON.stringify(peakConnections)}`);
    console.log(`  connections by application_name (at the end): ${JSON.stringify(await connections())}`);

    const problems: string[] = [];
    if (total !== RUNS || open !== 0) problems.push(`${total} runs, ${open} not ended`);
    if (audit[0]?.events !== RUNS || audit[0]?.runs !== RUNS) problems.push('runs not ended exactly once');
    if (executors.length < 2 || executors.some((row: Json) => row.n === 0))
      problems.push('a worker took no run');
    if (invokes.some((n) => n === 0)) problems.push('a runner took no call');
    if (invokes.reduce((a, b) => a + b, 0) < RUNS) problems.push('fewer runner calls than runs');
    console.log(problems.length === 0 ? '  checks: all passed' : `  CHECKS FAILED: ${problems.join('; ')}`);
    if (problems.length > 0) process.exitCode = 1;
  });
}

await main();
