// Runs benchmark (issue 12): a published workflow with one call_app step (the release's http-connector
// against a loopback vendor double), RUNS runs with IN_FLIGHT started at once: runs completed per second
// and latency p50/p99 from POST /workflow-runs to the run completed (polled in the database every
// POLL_MS), beside the runner alone at the same concurrency — the platform's share is the difference.
// BENCH_CALL_MODE=inline (steps of the run's own workflow under a semaphore, the default) or queue (a
// child workflow on the apps queue). The api, worker (DBOS) and runner run in this process on embedded
// PostgreSQL. Prints figures; never asserts and is never part of the tests.
import '../src/runner/quiet-wasi.js';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { inArray, sql } from 'drizzle-orm';
import pino from 'pino';
import { startApi } from '../src/api/index.ts';
import { startEchoVendor } from '../src/app-cli/vendor-double.ts';
import { readOrCreateLocalSecrets } from '../src/auth/local-keys.ts';
import { localVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';
import { createRunnerClient } from '../src/runner/client.ts';
import { startRunnerFromConfig } from '../src/runner/index.ts';
import { definitions, definitionVersions, workflowRuns } from '../src/runs/tables.ts';
import { registerRunWorkflows } from '../src/runs/workflows.ts';
import { startWorker } from '../src/worker/index.ts';
import { freePort } from '../test/support/free-port.ts';
import { benchAdmin, withBenchDatabase } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 10);
const MODE = process.env.BENCH_CALL_MODE === 'queue' ? 'queue' : 'inline';
const RUNNER_TOKEN = 'bench-runner-token';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RELEASE_INDEX = path.join(ROOT, 'apps', 'build', 'release.json');

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Json = any;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function closedLoop(count: number, once: () => Promise<void>, inFlight = IN_FLIGHT) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) {
        const t = performance.now();
        await once();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

async function main() {
  await withBenchDatabase('apps-platform-bench-runs-', async ({ dir, url, closers }) => {
    const silent = pino({ level: 'silent' });
    const database = openDatabase(url, { max: 30 });
    closers.push(() => database.close());
    const internalPort = await freePort();
    const runner = await startRunnerFromConfig(
      loadConfig({
        DATABASE_URL: url,
        DATA_DIR: dir,
        RUNNER_PORT: '0',
        HOST: '127.0.0.1',
        APP_RUNNER_TOKEN: RUNNER_TOKEN,
        APP_RUNNER_CACHE_DIR: path.join(dir, 'runner-cache'),
        APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
        APP_RUNNER_TENANT_CONCURRENCY: '8',
        API_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
      }),
      silent,
    );
    closers.unshift(() => runner.close());
    const config = loadConfig({
      DATABASE_URL: url,
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: '0',
      API_INTERNAL_PORT: String(internalPort),
      APP_RUNNER_URL: runner.url,
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
      SECRET_STORE_KEY: randomBytes(32).toString('hex'),
      API_RATE_LIMIT_PER_MINUTE: '0',
      RELEASE_INDEX,
    });
    const local = await readOrCreateLocalSecrets(dir);
    const api = await startApi({
      config,
      database,
      verifier: localVerifier(local.signingKey),
      logger: silent,
    });
    closers.unshift(() => api.close());
    const client = createRunnerClient({ baseUrl: runner.url, token: RUNNER_TOKEN });
    closers.unshift(() => client.close());
    const worker = await startWorker({
      databaseUrl: url,
      logger: silent,
      healthPort: null,
      executorId: 'bench-worker',
      registerWorkflows: () =>
        registerRunWorkflows({
          logger: silent,
          callMode: MODE,
          attempt: {
            database,
            runner: client,
            secretStoreKey: config.secretStoreKey,
            cacheBudget: config.cacheBudget,
            callTokenSecret: null,
          },
        }),
    });
    closers.unshift(() => worker.close());
    const vendor = await startEchoVendor(0);
    closers.unshift(() => vendor.close());

    const { tenantId, token } = await benchAdmin(database, local.signingKey);
    const auth = { authorization: `Bearer ${token}` };
    const call = async (method: string, route: string, body?: unknown): Promise<Json> => {
      const response = await fetch(`${api.url}${route}`, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300)
        throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const version = (await call('GET', '/apps/http-connector/versions')).items[0];
    const installConfig = { baseUrl: vendor.url };
    await call('POST', '/app-installs', {
      name: 'vendor',
      versionId: version.id,
      enabled: true,
      config: installConfig,
      approveHosts: [vendor.host],
    });
    const [definition] = await database.db
      .insert(definitions)
      .values({ tenantId, kind: 'workflow', key: 'one-call', createdBy: 'user:bench' })
      .returning();
    await database.db.insert(definitionVersions).values({
      definitionId: definition?.id as string,
      tenantId,
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

    const install = await call('GET', '/app-installs/vendor');
    const runnerAlone = async () => {
      const result = await client.invoke({
        module: { sha256: version.sha256 },
        call: { id: randomUUID(), tenantId, callbackUrl: null },
        action: 'request',
        idempotencyKey: null,
        input: { method: 'GET', path: '/hello' },
        config: install.config,
        secrets: {},
        hosts: install.hosts,
        cache: [],
        documents: null,
        timeoutMs: 30_000,
      });
      if (!result.ok) throw new Error(`runner: ${result.code} ${result.message}`);
    };
    // One poller for every run in flight (one query each POLL_MS), so waiting costs the database little.
    const waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const ids = [...waiting.keys()];
        if (ids.length > 0) {
          const rows = await database.db
            .select({ id: workflowRuns.id, status: workflowRuns.status, error: workflowRuns.error })
            .from(workflowRuns)
            .where(inArray(workflowRuns.id, ids));
          for (const row of rows) {
            if (row.status === 'running') continue;
            const waiter = waiting.get(row.id);
            waiting.delete(row.id);
            if (row.status === 'completed') waiter?.resolve();
            else waiter?.reject(new Error(`run ${row.status}: ${JSON.stringify(row.error)}`));
          }
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    closers.unshift(async () => {
      polling = false;
      await poller;
    });
    const oneRun = async () => {
      const run = await call('POST', '/workflow-runs', { workflow: 'one-call', subjectId: 'bench' });
      await new Promise<void>((resolve, reject) => waiting.set(run.id, { resolve, reject }));
    };

    const [load1] = os.loadavg();
    console.log(
      `\nruns benchmark (call_app mode ${MODE}): ${RUNS} runs, ${IN_FLIGHT} in flight; ${os.cpus().length} cores, ` +
        `load ${(load1 ?? 0).toFixed(1)}, Node ${process.versions.node}\n`,
    );
    // The runner alone at the concurrency the apps queue allows (APP_RUNNER_CONCURRENCY, 8): more is busy.
    await closedLoop(IN_FLIGHT * 2, runnerAlone, 8);
    await closedLoop(IN_FLIGHT * 2, oneRun);
    let cpu = process.cpuUsage();
    const alone = await closedLoop(RUNS, runnerAlone, 8);
    const aloneCpu = process.cpuUsage(cpu);
    const statements = async () =>
      Number(
        (
          await database.db
            .execute(
              sql`select sum(calls)::bigint as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
            )
            .catch(() => ({ rows: [{ n: Number.NaN }] }))
        ).rows[0]?.n,
      );
    const commits = async () =>
      Number(
        (
          await database.db.execute(
            sql`select xact_commit from pg_stat_database where datname = current_database()`,
          )
        ).rows[0]?.xact_commit,
      );
    const before = await commits();
    const statementsBefore = await statements();
    cpu = process.cpuUsage();
    const runs = await closedLoop(RUNS, oneRun);
    const runsCpu = process.cpuUsage(cpu);
    console.log(
      `database a run: ${((await commits()) - before) / RUNS} transactions (polling included)` +
        `, ${(((await statements()) - statementsBefore) / RUNS).toFixed(0)} statements`,
    );
    const perCall = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1000 / RUNS).toFixed(1);
    console.log(
      `CPU of this process a call: runner alone ${perCall(aloneCpu)} ms, run ${perCall(runsCpu)} ms`,
    );
    const line = (name: string, r: typeof alone) =>
      `${name.padEnd(40)} ${r.perSecond.toFixed(1).padStart(7)}/s  p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms`;
    console.log(line('runner alone (POST /v1/invoke, 8 in flight)', alone));
    console.log(line('one-step run (POST → completed)', runs));
    console.log(`platform's share at p50: ${(runs.p50 - alone.p50).toFixed(1)} ms a run`);
    // Where a run's time goes, from DBOS's own timestamps (ms, medians): queued → dequeued → ended.
    const phases = await database.db.execute(sql`
      select name, percentile_cont(0.5) within group (order by started_at_epoch_ms - created_at) as queued,
             percentile_cont(0.5) within group (order by updated_at - started_at_epoch_ms) as running
      from dbos.workflow_status where name in ('runs.workflow', 'runs.callApp') group by name`);
    for (const row of phases.rows)
      console.log(
        `  ${row.name}: queued ${Number(row.queued).toFixed(1)} ms, running ${Number(row.running).toFixed(1)} ms`,
      );
    console.log('');
  });
}

await main();
process.exit(0);
