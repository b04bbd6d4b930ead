// Outbound webhooks benchmark: deliveries a second sustained from audit row to a receiver's 2xx, and the
// lag from the audit row's commit to its delivery's arrival beyond the trail's ten-second hold, with real
// `platform start --role worker` processes (bench/outbound-worker.ts; BENCH_WORKERS of them, one unless
// told) reading the trail and sending, on embedded PostgreSQL (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true,
// SECRET_STORE_KEY set). One tenant, ENDPOINTS endpoints each subscribed to run.completed, all on one
// receiver in its own process (bench/outbound-receiver.ts: a node http server on 127.0.0.1 that checks each
// signature, notes each arrival and answers 204). Rows:
//   1. floor: the poster alone — DeliveryPoster posting to the same receiver, 64 in flight, each body
//      built, its endpoint's secret opened and signed as the sender does, no database;
//   2. floor: the store alone — the sender (startDeliverySender, in this process) on deliveries written in
//      SQL, with a poster that answers 204 at once: its claims and outcome writes on this PostgreSQL;
//   3. sustained: this process raises RATE audit rows a second (recordAudit, workflow.run.completed on a
//      workflow_run, a batch every TICK_MS in one transaction), each fanning out to ENDPOINTS deliveries,
//      for WARMUP_S s, then SECONDS s measured, then HOLD more. Lag: the arrival minus the row's commit (the
//      wall clock as its transaction returned) minus the hold, for the rows committed in the measured
//      SECONDS. Rate and CPU: arrivals and use in the SECONDS from the hold's end, when every process
//      works on measured rows;
//   4. capacity: BURST rows raised at once; deliveries a second from the first arrival to the last;
//   5-6. fairness (bench/outbound-fairness.ts): the tenant's lag alone, then beside a tenant whose 16
//      endpoints hang.
// Then where the time went: the deliveries' own columns (the pass that wrote it, its send, the poster's
// latency) and the worker's SQL statements timed by text. Knobs: BENCH_ENDPOINTS (20),
// BENCH_ROWS_PER_SECOND (20), BENCH_WARMUP_S (15), BENCH_SECONDS (60), BENCH_WORKERS (1),
// BENCH_FLOOR_POSTS (10000), BENCH_STORE_ROWS (500), BENCH_BURST_ROWS (1000), BENCH_FAIRNESS_ROWS_PER_SECOND
// (5), BENCH_HANGING_ROWS_PER_SECOND (4), BENCH_FAIRNESS_SECONDS (30). Prints figures beside their goals;
// never asserts and is never part of the tests.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { openDatabase } from '../src/db/pool.ts';
import {
  DeliveryPoster,
  eventBody,
  signingSecrets,
  startDeliverySender,
  TRAIL_HOLD_MS,
  webhookEndpoints,
} from '../src/outbound-webhooks/index.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import { freePort } from '../test/support/free-port.ts';
import { FAIRNESS_GOAL_MS, measureFairness } from './outbound-fairness.ts';
import { printFairness, printReport, type Row } from './outbound-report.ts';
import {
  addEndpoints,
  BENCH_EVENT,
  deliveryBreakdown,
  firstArrivals,
  merged,
  meterStretch,
  pendingDeliveries,
  quantile,
  raiseRunsCompleted,
  type Stretch,
  sleep,
  startReceiverProcess,
  startWorkerProcess,
  steadyLoad,
  until,
  type WorkerProcess,
} from './outbound-support.ts';
import { withBenchDatabase } from './support.ts';
import { postmasterOf } from './usage.ts';
import { inFlight } from './webhooks-support.ts';

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ENDPOINTS = knob('BENCH_ENDPOINTS', 20);
const RATE = knob('BENCH_ROWS_PER_SECOND', 20);
const WARMUP_S = knob('BENCH_WARMUP_S', 15);
const SECONDS = knob('BENCH_SECONDS', 60);
const WORKERS = knob('BENCH_WORKERS', 1);
const FLOOR_POSTS = knob('BENCH_FLOOR_POSTS', 10_000);
const STORE_ROWS = knob('BENCH_STORE_ROWS', 500);
const BURST_ROWS = knob('BENCH_BURST_ROWS', 1_000);
const FAIR_RATE = knob('BENCH_FAIRNESS_ROWS_PER_SECOND', 5);
const HANG_RATE = knob('BENCH_HANGING_ROWS_PER_SECOND', 4);
const FAIR_SECONDS = knob('BENCH_FAIRNESS_SECONDS', 30);
const TICK_MS = 100;
const IN_FLIGHT = 64; // the sender's default concurrency
const HOLD = TRAIL_HOLD_MS;
const epochNow = () => performance.timeOrigin + performance.now();

async function main() {
  await withBenchDatabase('apps-platform-bench-outbound-', async ({ dir, url, closers }) => {
    const startLoad = os.loadavg();
    const silent = pino({ level: 'silent' });
    const database = openDatabase(url, { max: 10 });
    closers.push(() => database.close());
    const poller = openDatabase(url, { max: 2, applicationName: 'bench-poller' });
    closers.push(() => poller.close());
    const postmaster = postmasterOf(dir);
    const key = randomBytes(32);
    const { tenant } = await ensureTenant(database.db, 'bench');
    const receiver = await startReceiverProcess();
    closers.unshift(() => receiver.stop());
    const endpoints = await addEndpoints(
      database,
      key,
      tenant.id,
      `http://127.0.0.1:${receiver.port}`,
      ENDPOINTS,
    );
    await receiver.secrets(endpoints.map((e) => e.secret));
    const workers: WorkerProcess[] = [];
    closers.unshift(async () => void (await Promise.all(workers.map((w) => w.stop()))));
    const commits = async () =>
      Number(
        (
          await poller.db.execute(
            sql`select xact_commit from pg_stat_database where datname = current_database()`,
          )
        ).rows[0]?.xact_commit,
      );
    const meter = () => meterStretch(postmaster, commits, workers, receiver);
    const load = () => os.loadavg()[0] ?? Number.NaN;
    const count = async (query: ReturnType<typeof sql>) =>
      Number((await poller.db.execute<{ n: string }>(query)).rows[0]?.n);
    const rows: Row[] = [];

    // 1. The poster alone: what send() does but the database, to the same receiver, 64 in flight.
    const endpointRows = await database.db.select().from(webhookEndpoints);
    const poster = new DeliveryPoster({ allowPrivateNetworks: true });
    const postOnce = async (i: number, latencies?: number[]) => {
      const endpoint = endpointRows[i % endpointRows.length] as (typeof endpointRows)[number];
      const runId = `floor-${randomUUID()}`;
      const t = performance.now();
      const secrets = signingSecrets(key, endpoint, new Date());
      const body = eventBody({
        eventId: randomUUID(),
        eventType: BENCH_EVENT,
        tenantId: tenant.id,
        occurredAt: new Date(),
        resourceType: 'workflow_run',
        resourceId: runId,
        data: { workflowRunId: runId, workflow: 'onboarding', version: 1, subjectId: 'bench-subject' },
        workflowRunId: runId,
      });
      const outcome = await poster.post({
        url: endpoint.url,
        endpointId: endpoint.id,
        eventType: BENCH_EVENT,
        deliveryId: randomUUID(),
        body: JSON.stringify(body),
        secrets: secrets ?? [],
      });
      if (!outcome.delivered) throw new Error(`the floor's post failed: ${outcome.error}`);
      latencies?.push(performance.now() - t);
    };
    await inFlight(IN_FLIGHT * 10, IN_FLIGHT, (i) => postOnce(i));
    {
      const latencies: number[] = [];
      const rowLoad = load();
      const stop = await meter();
      const t = performance.now();
      await inFlight(FLOOR_POSTS, IN_FLIGHT, (i) => postOnce(i, latencies));
      const seconds = (performance.now() - t) / 1000;
      rows.push({
        name: `1. floor: poster alone, ${IN_FLIGHT} in flight`,
        n: FLOOR_POSTS,
        perSecond: FLOOR_POSTS / seconds,
        lags: latencies,
        stretch: await stop(),
        load: rowLoad,
      });
    }
    await poster.close();

    // 2. The store alone: the sender's claims and outcome writes, its poster answering at once.
    {
      const pending = await pendingDeliveries(database, tenant.id, STORE_ROWS);
      await poller.db.execute(sql`vacuum analyze webhook_deliveries`);
      const instant = {
        post: async () => ({ delivered: true, responseCode: 204, latencyMs: 0 }),
        close: async () => {},
      } as unknown as DeliveryPoster;
      const rowLoad = load();
      const stop = await meter();
      const t = performance.now();
      const sender = startDeliverySender({ database, logger: silent, poster: instant, key });
      await until(
        'the store floor delivered',
        () => count(sql`select count(*) as n from webhook_deliveries where status = 'delivered'`),
        pending,
        5 * 60_000,
        20,
      );
      const seconds = (performance.now() - t) / 1000;
      const stretch = await stop();
      await sender.stop();
      rows.push({
        name: `2. floor: sender on the store alone (instant 204)`,
        n: pending,
        perSecond: pending / seconds,
        lags: [],
        stretch,
        load: rowLoad,
      });
      // Its audit rows go too: the trail's cursor stands where the migration put it, so a worker would read them.
      await database.db.execute(sql`delete from webhook_deliveries`);
      await database.db.execute(sql`delete from audit_events where action = 'workflow.run.completed'`);
      await database.db.execute(sql`update webhook_endpoints set last_delivery_at = null`);
      await poller.db.execute(sql`vacuum analyze webhook_deliveries`);
      await poller.db.execute(sql`vacuum analyze webhook_endpoints`);
    }

    // The workers: `platform start --role worker` each, the trail's cursor in place before any row is raised.
    for (let i = 0; i < WORKERS; i++) {
      workers.push(
        await startWorkerProcess(`worker-${i + 1}`, {
          DATABASE_URL: url,
          DATA_DIR: dir,
          HOST: '127.0.0.1',
          WORKER_HEALTH_PORT: String(await freePort()),
          WORKER_EXECUTOR_ID: `bench-outbound-${i + 1}`,
          SECRET_STORE_KEY: key.toString('hex'),
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          APP_RUNNER_URL: 'http://127.0.0.1:9',
          APP_RUNNER_TOKEN: 'bench-outbound-runner-token',
          APP_CALL_TOKEN_SECRET: randomBytes(32).toString('hex'),
        }),
      );
    }
    await until(
      'the trail cursor',
      () => count(sql`select count(*) as n from webhook_trail_cursor`),
      1,
      60_000,
    );

    // 3. Sustained: RATE rows a second, warm-up, SECONDS measured, HOLD more so the measured rows' stretch
    // is steady throughout.
    const committed = new Map<string, number>();
    const loadStarted = epochNow();
    const steady = steadyLoad(database, tenant.id, RATE, TICK_MS, committed);
    await sleep(WARMUP_S * 1000);
    const t0 = epochNow();
    await sleep(HOLD);
    await Promise.all(workers.map((w) => w.usage(true)));
    const steadyLoadAvg = load();
    const stopSteady = await meter();
    const windowStart = epochNow();
    await sleep(SECONDS * 1000);
    const windowEnd = epochNow();
    const steadyStretch = await stopSteady();
    const statements = merged(await Promise.all(workers.map((w) => w.usage())));
    await steady.stop();
    const loadSeconds = (epochNow() - loadStarted) / 1000;
    const raisedRows = steady.raised();
    await until(
      'every delivery of the steady load',
      async () => {
        await receiver.poll();
        return firstArrivals(receiver.arrivals, committed).length;
      },
      raisedRows * ENDPOINTS,
      3 * 60_000,
      250,
    );
    const inWindow = (at: number) => at >= t0 && at < t0 + SECONDS * 1000;
    // A delivery's first arrival: one sent again (its outcome lost, its lease run out) counts once, at its
    // first; the repeats are counted at the end.
    const firsts = firstArrivals(receiver.arrivals, committed);
    const measured = firsts.filter((a) => inWindow(committed.get(a[0]) as number));
    const lags = measured.map((a) => a[3] - (committed.get(a[0]) as number) - HOLD);
    const arrivedInWindow = firsts.filter((a) => a[3] >= windowStart && a[3] < windowEnd).length;
    rows.push({
      name: `3. sustained: ${RATE} rows/s × ${ENDPOINTS} endpoints`,
      n: arrivedInWindow,
      perSecond: (arrivedInWindow * 1000) / (windowEnd - windowStart),
      lags,
      stretch: steadyStretch,
      load: steadyLoadAvg,
    });
    // Arrivals a second in each whole 5 s of the window, and the lag's trend across it.
    const buckets = new Array(Math.round((windowEnd - windowStart) / 5000)).fill(0) as number[];
    for (const a of firsts) {
      const bucket = Math.floor((a[3] - windowStart) / 5000);
      if (bucket >= 0 && bucket < buckets.length) buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    const thirds = [0, 1, 2].map((k) =>
      quantile(
        measured
          .filter((a) => {
            const c = (committed.get(a[0]) as number) - t0;
            return c >= (k * SECONDS * 1000) / 3 && c < ((k + 1) * SECONDS * 1000) / 3;
          })
          .map((a) => a[3] - (committed.get(a[0]) as number) - HOLD),
        0.99,
      ),
    );

    // Where the measured rows' time went, from the deliveries' own columns.
    const ids = [...committed.entries()].filter(([, at]) => inWindow(at)).map(([id]) => id);
    const { breakdown, passes } = await deliveryBreakdown(poller, ids, HOLD);

    // 4. Capacity: a backlog of BURST rows raised at once; from its first arrival to its last.
    const burst = new Map<string, number>();
    for (let done = 0; done < BURST_ROWS; done += 100) {
      const batch = await raiseRunsCompleted(database, tenant.id, Math.min(100, BURST_ROWS - done));
      for (const runId of batch.runIds) burst.set(runId, batch.committedAt);
    }
    const burstArrived = async () => {
      await receiver.poll();
      return firstArrivals(receiver.arrivals, burst).length;
    };
    await until('the backlog’s first delivery', burstArrived, 1, 60_000, 20);
    const burstLoad = load();
    await Promise.all(workers.map((w) => w.usage(true)));
    const stopBurst = await meter();
    await until('the backlog delivered', burstArrived, BURST_ROWS * ENDPOINTS, 10 * 60_000, 50);
    const delivered = sql`select count(*) as n from webhook_deliveries where status = 'delivered'`;
    const writtenAtLastArrival = (await count(delivered)) - raisedRows * ENDPOINTS;
    const burstStretch = await stopBurst();
    const burstStatements = merged(await Promise.all(workers.map((w) => w.usage())));
    const burstTimes = firstArrivals(receiver.arrivals, burst).map((a) => a[3]);
    const burstSpan = Math.max(...burstTimes) - Math.min(...burstTimes);
    // The sender writes outcomes behind its posts: how long after the last arrival the last was written.
    await until(
      'the backlog’s outcomes written',
      () => count(delivered),
      (raisedRows + BURST_ROWS) * ENDPOINTS,
      10 * 60_000,
      20,
    );
    const outcomesBehindMs = epochNow() - Math.max(...burstTimes);
    rows.push({
      name: `4. capacity: a backlog of ${BURST_ROWS} rows × ${ENDPOINTS}`,
      n: burstTimes.length,
      perSecond: (burstTimes.length * 1000) / burstSpan,
      lags: [],
      stretch: burstStretch as Stretch,
      load: burstLoad,
    });
    const { badSignatures } = await receiver.poll();
    // Deliveries that arrived more than once (sent again once their lease ran out), over the whole run.
    const eventKeys = receiver.arrivals
      .filter((a) => committed.has(a[0]) || burst.has(a[0]))
      .map((a) => `${a[1]}/${a[2]}`);
    const duplicates = eventKeys.length - new Set(eventKeys).size;

    // 5-6. Fairness: the tenant's lag alone, then beside a tenant whose endpoints hang.
    const fairness = await measureFairness({
      database,
      key,
      tenantId: tenant.id,
      endpoints: ENDPOINTS,
      receiver,
      rate: FAIR_RATE,
      hangRate: HANG_RATE,
      seconds: FAIR_SECONDS,
      holdMs: HOLD,
      tickMs: TICK_MS,
      meter,
      load,
    });
    rows.push(fairness.alone, fairness.beside);

    printReport({
      rows,
      startLoad,
      endpoints: ENDPOINTS,
      rate: RATE,
      workers: WORKERS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_S,
      raisedRows,
      batchMs: steady.batchMs,
      loadSeconds,
      measuredRows: ids.length,
      buckets: buckets.map((n) => n / 5),
      lagP99ByThird: thirds,
      duplicates,
      badSignatures,
      breakdown,
      passes,
      statements,
      burstStatements,
      outcomesBehindMs,
      writtenAtLastArrival,
      workerErrors: workers.map((w) => ({ name: w.name, ...w.errors })),
    });
    printFairness(fairness, {
      goalMs: FAIRNESS_GOAL_MS,
      rate: FAIR_RATE,
      hangRate: HANG_RATE,
      endpoints: ENDPOINTS,
    });
  });
}

await main();
process.exit(0);
