// Runs benchmark (issues 12 and 32): what the platform adds around an app call made by a workflow run or a
// rule set. The release's http-connector against a loopback vendor double; side by side, IN_FLIGHT at once:
//   0. a bare DBOS workflow of a run's shape (bare-workflow.ts): the engine's and the runner's floor;
//   1. the runner alone: POST /v1/invoke through the runner client, the body runAttempt sends;
//   2. POST /app-installs/vendor/test: one call through the attempt pipeline, from the api;
//   3. single-step runs: POST /workflow-runs of a published workflow with one call_app step, timed to
//      the run completed (one poller reads every run in flight each POLL_MS);
//   4. POST /rule-sets/checks/evaluate: a rule set of 3 app rules (3 calls an evaluation, one after
//      another);
//   5. single-step runs whose named install's circuit is open: refused at once (503 app_circuit_open),
//      the fallback install takes the call — against row 3, the healthy path.
// The rows take turns in ROUNDS rounds, so a load that drifts meanwhile (a shared machine) weighs on all
// of them. For each row it prints the load average, the CPU of this process, of PostgreSQL (the embedded
// server's processes, /proc) and of every other process (/proc/stat), so a figure measured while the
// machine was busy shows itself; and the SQL statements a row sent (every pg client of this process,
// DBOS's included, the poller's not) and the database's committed transactions (pg_stat_database,
// polling included). BENCH_CALL_MODE=inline (the default) or queue (a child workflow on the apps queue);
// BENCH_ONLY=runner,bare,test,runs,evaluate,fallback,telemetry picks rows (e.g. BENCH_ONLY=runs under --cpu-prof). The api,
// worker (DBOS) and runner run in this process on embedded PostgreSQL. Prints figures; never asserts
// timings and is never part of the tests.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { inArray, sql } from 'drizzle-orm';
import pino from 'pino';
import { startEchoVendor } from '../src/app-cli/vendor-double.ts';
import { openDatabase } from '../src/db/pool.ts';
import { appInstallCircuits } from '../src/installs/index.ts';
import { createRunnerClient } from '../src/runner/index.ts';
import type { DefinitionBody } from '../src/runs/index.ts';
import { registerRunWorkflows } from '../src/runs/index.ts';
import { definitions, definitionVersions, workflowRuns } from '../src/runs/tables.ts';
import { startWorker } from '../src/worker/index.ts';
import { bareWorkflow, registerBareWorkflow } from './bare-workflow.ts';
import { PG_STATEMENTS, printPgStatements, resetPgStatements } from './pg-statements.ts';
import { printRunsReport, type Row } from './runs-report.ts';
import { BENCH_RUNNER_TOKEN, benchAdmin, benchApi, startBenchStack, withBenchDatabase } from './support.ts';
import { freePortPair, telemetrySwitch } from './telemetry-switch.ts';
import { countStatements, postmasterOf, startMeter, statementTally, type Usage } from './usage.ts';

const COUNT = Number(process.env.BENCH_RUNS ?? 400);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 10);
const MODE = process.env.BENCH_CALL_MODE === 'queue' ? 'queue' : 'inline';
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? 'runner,bare,test,runs,evaluate,fallback,telemetry').split(','),
);
const POLLER = 'bench-poller';
// BENCH_SQL=1 also tallies the statements by text (the last row's), printed per operation; BENCH_PGSS=1
// prints PostgreSQL's own time by statement over the last row's last stretch (pg-statements.ts).
const TALLY = process.env.BENCH_SQL === '1';
countStatements(POLLER, TALLY);
const INPUT = { method: 'GET', path: '/hello' };
const APP_RULES = 3;

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Json = any;

async function main() {
  await withBenchDatabase('apps-platform-bench-runs-', async ({ dir, url, closers }) => {
    const silent = pino({ level: 'silent' });
    const database = openDatabase(url, { max: 30 });
    closers.push(() => database.close());
    const pollerDb = openDatabase(url, { max: 2, applicationName: POLLER });
    closers.push(() => pollerDb.close());
    const postmaster = postmasterOf(dir);
    // The runner admits IN_FLIGHT calls of the tenant, so no row is turned away busy (16 evaluations in
    // flight may each have a call out; the runs' own bound is 8 attempts a process). The worker is given
    // the same tenant bound, as a deployment gives api, worker and runner the same settings.
    const { runner, api, config, local } = await startBenchStack({ dir, url, closers }, database, silent, {
      APP_RUNNER_CONCURRENCY: String(IN_FLIGHT),
      APP_RUNNER_TENANT_CONCURRENCY: String(IN_FLIGHT),
    });
    const client = createRunnerClient({ baseUrl: runner.url, token: BENCH_RUNNER_TOKEN });
    // The runner call a run's attempt sends (row 1); the bare workflow's step sends it too.
    let runnerAlone = async () => {};
    closers.unshift(() => client.close());
    // DBOS decides at launch whether it traces, and with tracing on it needs the context manager the SDK
    // installs: telemetry is on while the worker launches, then off until its row.
    const switcher = await telemetrySwitch(database.pool, await freePortPair());
    closers.unshift(() => switcher.close());
    if (ONLY.has('telemetry')) await switcher.on();
    const worker = await startWorker({
      databaseUrl: url,
      logger: silent,
      healthPort: null,
      executorId: 'bench-worker',
      appsPerTenant: IN_FLIGHT,
      // Read once, at launch: while telemetry is off, DBOS's spans go to the API's no-op tracer.
      tracing: ONLY.has('telemetry'),
      registerWorkflows: () => {
        registerBareWorkflow(database, () => runnerAlone());
        registerRunWorkflows({
          database,
          logger: silent,
          callMode: MODE,
          tenantConcurrency: IN_FLIGHT,
          attempt: {
            database,
            runner: client,
            secretStoreKey: config.secretStoreKey,
            cacheBudget: config.cacheBudget,
            callTokenSecret: null,
            circuitDefaults: config.circuit,
          },
        });
      },
    });
    closers.unshift(() => worker.close());
    await switcher.off();
    const bare = await bareWorkflow(database, pollerDb, url);
    closers.unshift(() => bare.close());
    const vendor = await startEchoVendor(0);
    closers.unshift(() => vendor.close());

    const { tenantId, token } = await benchAdmin(database, local.signingKey);
    const call = benchApi(closers, api.url, token, IN_FLIGHT);
    const version = (await call('GET', '/apps/http-connector/versions')).items[0];
    await call('POST', '/app-installs', {
      name: 'vendor',
      versionId: version.id,
      enabled: true,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    });
    // `down`: its vendor is down and its circuit open for the whole bench (an hour's open time); every
    // run of `one-call-fallback` is refused by it at once and goes to `vendor`.
    const down = await call('POST', '/app-installs', {
      name: 'down',
      versionId: version.id,
      enabled: true,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    });
    await call('PUT', '/app-installs/down/circuit', { failureThreshold: null, openSeconds: 3600 });
    await database.db.insert(appInstallCircuits).values({
      installId: down.id,
      tenantId,
      state: 'open',
      failures: 5,
      since: sql`now()`,
      openedAt: sql`now()`,
    });
    const publish = async (kind: 'workflow' | 'rule_set', key: string, body: DefinitionBody) => {
      const [definition] = await database.db
        .insert(definitions)
        .values({ tenantId, kind, key, createdBy: 'user:bench' })
        .returning();
      await database.db.insert(definitionVersions).values({
        definitionId: definition?.id as string,
        tenantId,
        version: 1,
        status: 'published',
        body,
        createdBy: 'user:bench',
      });
    };
    await publish('workflow', 'one-call', {
      steps: [
        {
          id: 'call',
          type: 'call_app',
          install: 'vendor',
          action: 'request',
          input: INPUT,
          outputKey: 'vendor',
        },
      ],
    });
    await publish('workflow', 'one-call-fallback', {
      steps: [
        {
          id: 'call',
          type: 'call_app',
          install: 'down',
          action: 'request',
          input: INPUT,
          outputKey: 'vendor',
          fallback: { install: 'vendor', action: 'request', input: INPUT },
        },
      ],
    });
    await publish('rule_set', 'checks', {
      rules: Array.from({ length: APP_RULES }, (_, i) => ({
        key: `vendor-${i + 1}`,
        type: 'app',
        install: 'vendor',
        action: 'request',
        input: INPUT,
        resultPath: 'status',
        failWhen: { notEquals: 200 },
      })),
    });

    const install = await call('GET', '/app-installs/vendor');
    const action = (version.actions as { name: string; timeoutMs: number }[]).find(
      (a) => a.name === 'request',
    );
    runnerAlone = async () => {
      const result = await client.invoke({
        module: { sha256: version.sha256 },
        call: { id: randomUUID(), tenantId, callbackUrl: install.webhookUrl },
        action: 'request',
        idempotencyKey: null,
        input: INPUT,
        config: install.config,
        secrets: {},
        hosts: install.hosts,
        cache: [],
        documents: null,
        timeoutMs: action?.timeoutMs ?? 30_000,
      });
      if (!result.ok) throw new Error(`runner: ${result.code} ${result.message}`);
      const answer = result.value.answer as Json;
      if (answer?.status !== 'ok' || answer.output?.status !== 200)
        throw new Error(`runner: unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
    };
    const testCall = async () => {
      const answer = await call('POST', '/app-installs/vendor/test', { action: 'request', input: INPUT });
      if (answer.status !== 'success' || answer.output?.status !== 200)
        throw new Error(`test call: ${JSON.stringify(answer).slice(0, 300)}`);
    };
    // One poller for every run in flight (one query each POLL_MS, on its own pool, not counted).
    type Waiter = { resolve: () => void; reject: (error: Error) => void };
    const waiting = new Map<string, Waiter>();
    const bareWaiting = new Map<string, Waiter>();
    const settle = (id: string, status: string, error: unknown, from = waiting) => {
      if (status === 'running') return;
      const waiter = from.get(id);
      from.delete(id);
      if (status === 'completed') waiter?.resolve();
      else waiter?.reject(new Error(`run ${status}: ${JSON.stringify(error)}`));
    };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const ids = [...waiting.keys()];
        if (ids.length > 0) {
          const rows = await pollerDb.db
            .select({ id: workflowRuns.id, status: workflowRuns.status, error: workflowRuns.error })
            .from(workflowRuns)
            .where(inArray(workflowRuns.id, ids));
          for (const row of rows) settle(row.id, row.status, row.error);
        }
        const bareIds = [...bareWaiting.keys()];
        if (bareIds.length > 0)
          for (const [id, status] of await bare.statuses(bareIds)) settle(id, status, null, bareWaiting);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    closers.unshift(async () => {
      polling = false;
      await poller;
    });
    const runOf = (workflow: string) => async () => {
      const run = await call('POST', '/workflow-runs', { workflow, subjectId: 'bench' });
      await new Promise<void>((resolve, reject) => waiting.set(run.id, { resolve, reject }));
    };
    const oneRun = runOf('one-call');
    const bareRun = async () => {
      const id = await bare.start();
      await new Promise<void>((resolve, reject) => bareWaiting.set(id, { resolve, reject }));
    };
    const evaluate = async () => {
      const answer = await call('POST', '/rule-sets/checks/evaluate', { data: {}, subjectId: 'bench' });
      if (answer.passed !== true || answer.rules.length !== APP_RULES)
        throw new Error(`evaluation: ${JSON.stringify(answer).slice(0, 300)}`);
    };

    const commits = async () =>
      Number(
        (
          await pollerDb.db.execute(
            sql`select xact_commit from pg_stat_database where datname = current_database()`,
          )
        ).rows[0]?.xact_commit,
      );
    // Transactions given an id (only a transaction that writes gets one): the commits that flush WAL.
    const writes = async () =>
      Number(
        (
          await pollerDb.db.execute(
            sql`select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as next_xid`,
          )
        ).rows[0]?.next_xid,
      );
    const meter = () => startMeter(postmaster, commits, writes);

    const inFlight = async (once: () => Promise<void>, count: number, latencies: number[] | null) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next++ < count) {
            const t = performance.now();
            await once();
            latencies?.push(performance.now() - t);
          }
        }),
      );
    };
    const rowOf = (
      key: string,
      name: string,
      calls: number,
      once: () => Promise<void>,
      telemetry = false,
    ): Row => ({
      key,
      name,
      calls,
      once,
      latencies: [],
      seconds: 0,
      usage: { own: 0, postgres: 0, others: 0, wall: 0, statements: 0, commits: 0, writes: 0 },
      loads: [],
      telemetry,
    });
    const rows = [
      rowOf('runner', '1. runner alone (POST /v1/invoke)', 1, runnerAlone),
      rowOf('bare', '0. bare DBOS workflow, one step (floor)', 1, bareRun),
      rowOf('test', '2. POST /app-installs/vendor/test', 1, testCall),
      rowOf('runs', `3. one-step run (POST → completed, ${MODE})`, 1, oneRun),
      rowOf('evaluate', `4. evaluate, ${APP_RULES} app rules`, APP_RULES, evaluate),
      rowOf('fallback', '5. one-step run, circuit open → fallback', 1, runOf('one-call-fallback')),
      rowOf('telemetry', '6. one-step run, telemetry on', 1, oneRun, true),
    ].filter((row) => ONLY.has(row.key));

    console.log(
      `\nruns benchmark: http-connector ${version.version} against a loopback vendor double; ${COUNT} operations ` +
        `a row in ${ROUNDS} interleaved rounds, ${IN_FLIGHT} in flight (runner admits ${IN_FLIGHT}); ` +
        `call_app mode ${MODE}; ${os.cpus().length} cores, load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}, ` +
        `Node ${process.versions.node}\n`,
    );
    // What the process sends when idle (DBOS polls its queues every 20 ms): part of every row's SQL/op.
    const idle = await meter();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleUsage = await idle();
    const idleStatements = (idleUsage.statements / idleUsage.wall) * 1000;
    for (let round = 0; round < ROUNDS; round++) {
      const count = Math.floor(COUNT / ROUNDS) + (round < COUNT % ROUNDS ? 1 : 0);
      for (const row of rows) {
        if (row.telemetry) await switcher.on();
        await inFlight(row.once, round === 0 ? IN_FLIGHT * 4 : IN_FLIGHT * 2, null);
        row.loads.push(os.loadavg()[0] ?? Number.NaN);
        statementTally.clear();
        // The row's stretch on the clock of a --cpu-prof profile (µs), to read the profile of that stretch.
        if (process.env.BENCH_MARKS === '1')
          console.log(`mark ${row.key} start ${process.hrtime.bigint() / 1000n}`);
        const lastStretch = round === ROUNDS - 1 && row === rows.at(-1);
        if (PG_STATEMENTS && lastStretch) await resetPgStatements(pollerDb.pool);
        const stop = await meter();
        const started = performance.now();
        await inFlight(row.once, count, row.latencies);
        row.seconds += (performance.now() - started) / 1000;
        const used = await stop();
        if (process.env.BENCH_MARKS === '1')
          console.log(`mark ${row.key} end ${process.hrtime.bigint() / 1000n}`);
        for (const k of Object.keys(used) as (keyof Usage)[]) row.usage[k] += used[k];
        if (PG_STATEMENTS && lastStretch) await printPgStatements(pollerDb.pool, row.name, count);
        if (row.telemetry) await switcher.off();
      }
    }

    await printRunsReport(rows, {
      inFlight: IN_FLIGHT,
      appRules: APP_RULES,
      rounds: ROUNDS,
      idleStatements,
      poller: pollerDb,
      telemetryCounts: switcher.counts(),
      tally: TALLY ? statementTally : null,
    });
    console.log('');
  });
}

await main();
process.exit(0);
