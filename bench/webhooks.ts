// Vendor webhooks benchmark: what a vendor's completion costs from the webhook to the run it wakes, and
// what many runs waiting on their sessions cost the worker. The release http-connector's request_async
// against a loopback vendor double (its hmac webhook scheme), a workflow of one call_app step on it:
//   1. floor: the runner alone answering the connector's handle_webhook (POST /v1/webhooks/handle through
//      the runner client, the body the api sends), IN_FLIGHT at once;
//   2. vendor webhooks completing distinct sessions: COMPLETIONS real runs (started through the api, run by
//      the worker until they wait on their sessions), then one signed completion per session, IN_FLIGHT at
//      once: completions a second, the webhook's answer, the time from the answer to the run `completed`
//      (the worker's clock as it writes the run's end), CPU and SQL statements a completion;
//   3. many waiting runs: WAITING runs in `waiting_callback`. TEMPLATES of them are real runs; the rest are
//      copies of those made in SQL (bench/webhooks-support.ts copyWaitingRuns): a waiting run is only rows
//      — its run row, its steps, its session, its pending invocation record, and the engine's rows of its
//      ended workflow — with no workflow in memory, so a copy with new ids is what a real one leaves.
//      Then: the worker's resident memory, its idle SQL statements a second over 10 s (the resumer's and
//      DBOS's polling, by text), PROBES completions at PROBE_IN_FLIGHT while WAITING wait (3b) against the
//      same before the copies (3a), one pass of the run sweep, PROBES completions with ENDED ended runs'
//      workflows accumulated in the engine's tables (3c: copies of row 2's completed runs, their own and
//      their continuations' workflows) and again once the retention sweep's engine part deleted them
//      through DBOS's API (3d), and a restart (SIGTERM, a completion delivered while it is down, a new
//      worker: the time until that run completes). Row 2 tallies both sides' statements by text.
// The api and runner run in this process; the worker in its own (bench/webhooks-worker.ts: `platform start
// --role worker` as deployed), so its memory and restart are its own. Beside each row: the CPU of this
// process, of the worker, of PostgreSQL and of every other process (`others`, in cores), the load average,
// and the statements both processes sent. Knobs: BENCH_WAITING (20000), BENCH_COMPLETIONS (1000),
// BENCH_TEMPLATES (200), BENCH_IN_FLIGHT (32), BENCH_PROBES (200), BENCH_PROBE_IN_FLIGHT (4), BENCH_ENDED
// (50000; WAITING - TEMPLATES must leave 3 × PROBES + 1 copies). Prints
// figures beside their goals; never asserts and is never part of the tests.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { startVendorDouble } from '../packages/app-testing/src/index.ts';
import { openDatabase } from '../src/db/pool.ts';
import { deleteDueWorkflows } from '../src/retention/engine-workflows.ts';
import { drainPair } from '../src/retention/retention.ts';
import { BATCH_SIZE } from '../src/retention/retention-rules.ts';
import { createRunnerClient } from '../src/runner/index.ts';
import { sweepStrandedRuns } from '../src/runs/sweep.ts';
import { ENGINE_SCHEMA } from '../src/worker/engine.ts';
import { BENCH_RUNNER_TOKEN, benchAdmin, benchApi, startBenchStack, withBenchDatabase } from './support.ts';
import { countStatements, postmasterOf, statementsSent, statementTally, tallyStatements } from './usage.ts';
import { printReport, type Row, type Tally } from './webhooks-report.ts';
import {
  completedAt,
  copyEndedRuns,
  copyWaitingRuns,
  countRows,
  deliverCompletion,
  inFlight,
  meterStretch,
  runsIn,
  signedCompletion,
  startWorkerProcess,
  untilCount,
  WEBHOOK_CONFIG,
  type WorkerProcess,
  waitingSessions,
} from './webhooks-support.ts';

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const WAITING = knob('BENCH_WAITING', 20_000);
const COMPLETIONS = knob('BENCH_COMPLETIONS', 1_000);
const TEMPLATES = knob('BENCH_TEMPLATES', 200);
const IN_FLIGHT = knob('BENCH_IN_FLIGHT', 32);
const PROBES = knob('BENCH_PROBES', 200);
const PROBE_IN_FLIGHT = knob('BENCH_PROBE_IN_FLIGHT', 4);
const ENDED = knob('BENCH_ENDED', 50_000);
const IDLE_MS = 10_000;
const POLLER = 'bench-poller';
const SECRET = 'whsec-bench-webhooks';
const OUTPUT_KEY = 'verification';
countStatements(POLLER, false);

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Json = any;

async function main() {
  await withBenchDatabase('apps-platform-bench-webhooks-', async ({ dir, url, closers }) => {
    const silent = pino({ level: 'silent' });
    const database = openDatabase(url, { max: 30 });
    closers.push(() => database.close());
    const poller = openDatabase(url, { max: 2, applicationName: POLLER });
    closers.push(() => poller.close());
    const postmaster = postmasterOf(dir);
    // The runner admits IN_FLIGHT calls of the tenant, so the floor is never answered busy; the api's
    // deliveries and the worker keep to the same bounds, as a deployment gives every role one setting.
    const bounds = {
      APP_RUNNER_CONCURRENCY: String(IN_FLIGHT),
      APP_RUNNER_TENANT_CONCURRENCY: String(IN_FLIGHT),
    };
    const { runner, api, config, local } = await startBenchStack(
      { dir, url, closers },
      database,
      silent,
      bounds,
      bounds,
    );
    const client = createRunnerClient({ baseUrl: runner.url, token: BENCH_RUNNER_TOKEN });
    closers.unshift(() => client.close());
    let jobs = 0;
    const vendor = await startVendorDouble([
      { method: 'POST', path: '/jobs', respond: () => ({ json: { id: `job-${++jobs}` } }) },
    ]);
    closers.unshift(() => vendor.close());
    const workerEnv = {
      ...bounds,
      DATABASE_URL: url,
      DATA_DIR: dir,
      APP_RUNNER_URL: runner.url,
      APP_RUNNER_TOKEN: BENCH_RUNNER_TOKEN,
      APP_CALL_TOKEN_SECRET: randomBytes(32).toString('hex'),
      SECRET_STORE_KEY: config.secretStoreKey?.toString('hex') ?? '',
      WORKER_EXECUTOR_ID: 'bench-worker',
    };
    let worker: WorkerProcess = await startWorkerProcess(workerEnv);
    closers.unshift(async () => void (await worker.stop()));
    const memory = { fresh: worker.memory().rss, waiting: 0, many: 0, restarted: 0, peak: 0 };

    const { token } = await benchAdmin(database, local.signingKey);
    const call = benchApi(closers, api.url, token, IN_FLIGHT);
    const version = (await call('GET', '/apps/http-connector/versions')).items[0];
    const installConfig = { baseUrl: vendor.url, webhook: WEBHOOK_CONFIG };
    const install = await call('POST', '/app-installs', {
      name: 'kyc',
      versionId: version.id,
      enabled: false,
      config: installConfig,
      approveHosts: [vendor.host],
    });
    await call('POST', '/app-installs/kyc/secrets/WEBHOOK_SECRET', { value: SECRET });
    await call('PUT', '/app-installs/kyc', { versionId: version.id, enabled: true, config: installConfig });
    const step = {
      id: 'verify',
      type: 'call_app',
      install: 'kyc',
      action: 'request_async',
      input: { method: 'POST', path: '/jobs', body: {} },
      outputKey: OUTPUT_KEY,
    };
    await call('POST', '/workflow-definitions', { key: 'verify', body: { steps: [step] } });
    await call('POST', '/workflow-definitions/verify/publish');

    // Real waiting runs: COMPLETIONS for row 2, TEMPLATES for row 3 (kept waiting, copied later).
    const realRuns = COMPLETIONS + TEMPLATES;
    const setupStarted = performance.now();
    const runIds: string[] = [];
    await inFlight(realRuns, IN_FLIGHT, async () => {
      runIds.push((await call('POST', '/workflow-runs', { workflow: 'verify', subjectId: 'bench' })).id);
    });
    await untilCount(
      'runs waiting',
      async () => {
        if ((await runsIn(poller.db, 'failed')) > 0) throw new Error('a run failed while starting');
        return runsIn(poller.db, 'waiting_callback');
      },
      realRuns,
      30 * 60_000,
      250,
    );
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    memory.waiting = worker.memory().rss;
    const sessions = new Map((await waitingSessions(poller.db)).map((s) => [s.runId, s.externalId]));
    const rowTwo = runIds
      .slice(0, COMPLETIONS)
      .map((runId) => ({ runId, externalId: sessions.get(runId) as string }));
    const templates = runIds.slice(COMPLETIONS);

    const commits = async () =>
      Number(
        (
          await poller.db.execute(
            sql`select xact_commit from pg_stat_database where datname = current_database()`,
          )
        ).rows[0]?.xact_commit,
      );
    const meter = () => meterStretch(postmaster, commits, worker);
    const load = () => os.loadavg()[0] ?? Number.NaN;
    console.log(
      `\nvendor webhooks benchmark: http-connector ${version.version} request_async and its hmac webhook; ` +
        `${IN_FLIGHT} in flight (runner admits ${IN_FLIGHT}); ${os.cpus().length} cores, load average ` +
        `${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}, Node ${process.versions.node}; ${realRuns} real runs set up waiting in ` +
        `${setupSeconds.toFixed(1)} s (${(realRuns / setupSeconds).toFixed(0)} runs/s)\n`,
    );

    // 1. The floor: the runner alone, the same module, config, secret and signed body shape.
    const floorOnce = async () => {
      const signed = signedCompletion(SECRET, `job-floor-${randomUUID()}`);
      const result = await client.handleWebhook({
        module: { sha256: version.sha256 },
        call: { id: randomUUID(), tenantId: install.tenantId, callbackUrl: null },
        config: install.config,
        secrets: { WEBHOOK_SECRET: SECRET },
        hosts: install.hosts,
        cache: null,
        request: {
          method: 'POST',
          headers: signed.headers,
          query: {},
          bodyBase64: Buffer.from(signed.body).toString('base64'),
        },
      });
      if (!result.ok) throw new Error(`runner: ${result.code} ${result.message}`);
      if ((result.value.answer as Json)?.status !== 'event')
        throw new Error(`runner: ${JSON.stringify(result.value.answer).slice(0, 300)}`);
    };
    const rows: Row[] = [];
    await inFlight(IN_FLIGHT * 4, IN_FLIGHT, floorOnce);
    {
      const floorLoad = load();
      const answers: number[] = [];
      const stop = await meter();
      const t = performance.now();
      await inFlight(COMPLETIONS, IN_FLIGHT, async () => {
        const s = performance.now();
        await floorOnce();
        answers.push(performance.now() - s);
      });
      const seconds = (performance.now() - t) / 1000;
      rows.push({
        name: '1. floor: runner alone, handle_webhook',
        n: COMPLETIONS,
        seconds,
        answers,
        toCompleted: [],
        stretch: await stop(),
        load: floorLoad,
      });
    }

    /**
     * Delivers a completion of each session, `at` at once; the row ends when their runs completed. With
     * `tally`, both sides' statements are tallied by text over the row.
     */
    const completions = async (
      name: string,
      targets: { runId: string; externalId: string }[],
      at: number,
      tally = false,
    ) => {
      const rowLoad = load();
      const delivered: { runId: string; answeredEpoch: number; sentEpoch: number; answerMs: number }[] = [];
      if (tally) {
        statementTally.clear();
        tallyStatements(true);
        await worker.usage('start');
      }
      const stop = await meter();
      const t = performance.now();
      await inFlight(targets.length, at, async (i) => {
        const target = targets[i] as { runId: string; externalId: string };
        delivered.push({
          runId: target.runId,
          ...(await deliverCompletion(api.url, install.id, SECRET, target.externalId)),
        });
      });
      const seconds = (performance.now() - t) / 1000;
      const ids = targets.map((target) => target.runId);
      await untilCount(
        'runs completed',
        () => runsIn(poller.db, 'completed', ids),
        ids.length,
        5 * 60_000,
        20,
      );
      const stretch = await stop();
      let statements: Tally | null = null;
      if (tally) {
        tallyStatements(false);
        statements = { api: [...statementTally], worker: (await worker.usage('stop')).tally };
      }
      const done = await completedAt(poller.db, ids);
      const row: Row = {
        name,
        n: targets.length,
        seconds,
        answers: delivered.map((d) => d.answerMs),
        toCompleted: delivered.map((d) => (done.get(d.runId) as number) - d.answeredEpoch),
        stretch,
        load: rowLoad,
      };
      const end = Math.max(...done.values());
      const start = Math.min(...delivered.map((d) => d.sentEpoch));
      return { row, runsPerSecond: (targets.length * 1000) / (end - start), statements };
    };

    // 2. Completions of distinct sessions: the first few warm the path (not measured).
    const warm = Math.min(IN_FLIGHT * 2, Math.floor(COMPLETIONS / 10));
    await completions('warm-up', rowTwo.slice(0, warm), IN_FLIGHT);
    const two = await completions(
      `2. webhooks completing sessions, ${IN_FLIGHT} in flight`,
      rowTwo.slice(warm),
      IN_FLIGHT,
      true,
    );
    rows.push(two.row);

    // 3. Many waiting runs. First a probe with only the templates waiting, on PROBES fresh copies.
    const copies = async (count: number) => {
      const externals = await copyWaitingRuns(database, templates, count, `${OUTPUT_KEY}ExternalId`);
      const rowsOf = await poller.db.execute<{ run: string; external: string }>(
        sql`select workflow_run_id as run, external_id as external from app_callbacks where external_id = any(${sql.param(externals)}::text[])`,
      );
      return rowsOf.rows.map((r) => ({ runId: r.run, externalId: r.external }));
    };
    const probeBefore = await copies(PROBES);
    rows.push(
      (await completions(`3a. a completion, ${TEMPLATES + PROBES} waiting`, probeBefore, PROBE_IN_FLIGHT))
        .row,
    );
    const copyStarted = performance.now();
    const many = await copies(WAITING - TEMPLATES);
    const copySeconds = (performance.now() - copyStarted) / 1000;
    const waitingNow = await runsIn(poller.db, 'waiting_callback');
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    // Idle with WAITING waiting: what the worker sends (tallied by text), and its memory.
    await worker.usage('start');
    const idleOwn = statementsSent();
    const idleStop = await meter();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = await idleStop();
    const idleOwnStatements = statementsSent() - idleOwn;
    const idleTally = (await worker.usage('stop')).tally.sort((a, b) => b[1] - a[1]);
    memory.many = worker.memory().rss;

    // While WAITING wait: completions (row 3b), then one pass of the run sweep (each worker's at start-up
    // and every minute: it pages through every open run, the waiting ones included).
    const three = await completions(
      `3b. a completion, ${waitingNow} waiting`,
      many.slice(0, PROBES),
      PROBE_IN_FLIGHT,
    );
    rows.push(three.row);
    const sweepStop = await meter();
    await sweepStrandedRuns({ database, logger: silent });
    const sweep = await sweepStop();

    // Months of ended runs: ENDED copies of row 2's completed runs and their workflows accumulated in the
    // engine's tables (row 3c), then the retention sweep's engine part deleting them through DBOS's API,
    // as a worker's pass does once they are older than RETENTION_ENGINE_HOURS (row 3d).
    const endedStarted = performance.now();
    await copyEndedRuns(
      database,
      rowTwo.map((target) => target.runId),
      ENDED,
    );
    const endedCopySeconds = (performance.now() - endedStarted) / 1000;
    const workflowRows = await countRows(poller.db, 'dbos.workflow_status');
    rows.push(
      (
        await completions(
          `3c. …and ${workflowRows} engine workflows`,
          many.slice(PROBES, 2 * PROBES),
          PROBE_IN_FLIGHT,
        )
      ).row,
    );
    const engineClient = await DBOSClient.create({
      systemDatabaseUrl: url,
      systemDatabaseSchemaName: ENGINE_SCHEMA,
    });
    const engineStop = await meter();
    // Every ended run's workflow is due: the cut-off an hour from now.
    const swept = await drainPair(
      (size) => deleteDueWorkflows(database.db, engineClient, new Date(Date.now() + 3_600_000), size),
      { batchSize: BATCH_SIZE, maxBatches: Number.MAX_SAFE_INTEGER },
    );
    const engineSweep = await engineStop();
    await engineClient.destroy();
    const workflowsLeft = await countRows(poller.db, 'dbos.workflow_status');
    rows.push(
      (
        await completions(
          `3d. …swept to ${workflowsLeft} workflows`,
          many.slice(2 * PROBES, 3 * PROBES),
          PROBE_IN_FLIGHT,
        )
      ).row,
    );

    // A restart: stop the worker, deliver a completion while it is down, start a new one.
    const restartRun = many[3 * PROBES];
    if (!restartRun) throw new Error('no waiting run for the restart');
    memory.peak = worker.memory().peak;
    const stopMs = await worker.stop();
    const downAnswer = await deliverCompletion(api.url, install.id, SECRET, restartRun.externalId);
    worker = await startWorkerProcess(workerEnv);
    await untilCount(
      'the run after the restart',
      () => runsIn(poller.db, 'completed', [restartRun.runId]),
      1,
      5 * 60_000,
      20,
    );
    const restartMs = performance.now() - worker.spawnedAt;
    memory.restarted = worker.memory().rss;
    memory.peak = Math.max(memory.peak, worker.memory().peak);

    const tables: [string, number][] = [];
    for (const table of [
      'workflow_runs',
      'app_callbacks',
      'app_invocations',
      'dbos.workflow_status',
      'dbos.operation_outputs',
    ]) {
      tables.push([table, await countRows(poller.db, table)]);
    }
    printReport({
      rows,
      warm,
      runsPerSecond: two.runsPerSecond,
      tally: two.statements,
      probes: PROBES,
      probeInFlight: PROBE_IN_FLIGHT,
      setup: {
        realRuns,
        seconds: setupSeconds,
        copied: WAITING - TEMPLATES,
        copySeconds,
        waiting: waitingNow,
      },
      tables,
      memory,
      idle: { stretch: idle, ownStatements: idleOwnStatements, tally: idleTally },
      sweep,
      ended: {
        runs: ENDED,
        copySeconds: endedCopySeconds,
        workflows: workflowRows,
        deleted: swept.rows,
        left: workflowsLeft,
        stretch: engineSweep,
      },
      restart: {
        waiting: waitingNow - 3 * PROBES,
        stopMs,
        downAnswerMs: downAnswer.answerMs,
        readyMs: worker.readyMs,
        completedMs: restartMs,
      },
    });
  });
}

await main();
process.exit(0);
