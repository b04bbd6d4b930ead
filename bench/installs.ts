// Installs benchmark: what the platform adds around one app call. The release's http-connector, installed
// through the real api as README.md's "Try an app" does, calls a local vendor double; side by side:
//   1. the runner alone: POST /v1/invoke through the api's runner client, with the config, secrets,
//      hosts and input the platform would send for that install;
//   2. POST /app-installs/vendor/test: admission, the quota check, cached values, the runner, metering
//      and the audit row;
//   3. the same with a limits record (currency, a price, three budgets incl. spend), so the quota check
//      sums usage and metering charges spend;
//   4. GET /app-installs/vendor (the install view), for scale.
// The rows take turns in rounds, so a load that drifts meanwhile (a shared machine) weighs on all of them.
// Everything on loopback: embedded PostgreSQL, the real api and runner, the vendor double. Prints figures,
// ratios to the runner alone, the SQL statements a request sent (every pg client of this process) and the
// test call's goals (issue 48: ≥ 300 a second, ≤ 4 statements — bench:runs measures the rate at 16 in
// flight); never asserts timings and is never part of the tests.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startEchoVendor } from '../src/app-cli/vendor-double.ts';
import { openDatabase } from '../src/db/pool.ts';
import { createRunnerClient } from '../src/runner/index.ts';
import { BENCH_RUNNER_TOKEN, benchAdmin, benchApi, startBenchStack, withBenchDatabase } from './support.ts';
import { countStatements, statementsSent } from './usage.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
/** The runner's default per-tenant concurrency: every call of this benchmark is one tenant's. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 30);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SECRET = 'sk-bench-1234567890';
const INPUT = { method: 'GET', path: '/hello' };
const PRICE_MICROS = 1_500;
/** Issue 48's goals for a test call. */
const GOALS = { testCallsPerSecond: 300, statementsPerTestCall: 4 };
countStatements('', false);

interface Row {
  name: string;
  /** Untimed, before each of its rounds (the budgeted row sets the limits record, the plain clears it). */
  before?: () => Promise<void>;
  /** One request; throws on any answer but the expected one. */
  once: () => Promise<void>;
  latencies: number[];
  seconds: number;
  /** Statements sent in the row's timed stretches. */
  statements: number;
}

interface Result {
  name: string;
  perSecond: number;
  p50: number;
  p95: number;
  statementsPer: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** `count` requests with CONCURRENCY in flight; their latencies go to `latencies` unless it is null. */
async function inFlight(once: () => Promise<void>, count: number, latencies: number[] | null) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) {
        const t = performance.now();
        await once();
        latencies?.push(performance.now() - t);
      }
    }),
  );
}

/**
 * Every row in turn, ROUNDS times, REQUESTS a row in all: the rows share whatever else the machine does
 * meanwhile, so their ratios hold even when its load drifts. WARM_UP requests before a row's first round,
 * CONCURRENCY × 2 before each later one (the runner's warm pool back to a row's own rhythm).
 */
async function measure(rows: Row[]): Promise<Result[]> {
  for (let round = 0; round < ROUNDS; round++) {
    const count = Math.floor(REQUESTS / ROUNDS) + (round < REQUESTS % ROUNDS ? 1 : 0);
    for (const row of rows) {
      await row.before?.();
      await inFlight(row.once, round === 0 ? WARM_UP : CONCURRENCY * 2, null);
      const started = performance.now();
      const sent = statementsSent();
      await inFlight(row.once, count, row.latencies);
      row.seconds += (performance.now() - started) / 1000;
      row.statements += statementsSent() - sent;
    }
  }
  return rows.map((row) => {
    const sorted = [...row.latencies].sort((a, b) => a - b);
    return {
      name: row.name,
      perSecond: row.latencies.length / row.seconds,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      statementsPer: row.statements / row.latencies.length,
    };
  });
}

const rowOf = (name: string, once: () => Promise<void>, before?: () => Promise<void>): Row => ({
  name,
  once,
  before,
  latencies: [],
  seconds: 0,
  statements: 0,
});

/** A difference in ms with its sign. */
const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
type Json = any;

async function main() {
  await withBenchDatabase('apps-platform-bench-installs-', async ({ dir, url, closers }) => {
    const silent = pino({ level: 'silent' });
    const database = openDatabase(url, { max: 20 });
    closers.push(() => database.close());

    const { runner, api, local } = await startBenchStack({ dir, url, closers }, database, silent);
    const vendor = await startEchoVendor(0);
    closers.unshift(() => vendor.close());

    const { tenantId, token } = await benchAdmin(database, local.signingKey);
    const call = benchApi(closers, api.url, token, CONCURRENCY);

    // README.md "Try an app": the release version, install (disabled), the secret, enable.
    const versions = await call('GET', '/apps/http-connector/versions');
    const version = versions.items[0];
    const installConfig = { baseUrl: vendor.url, auth: { type: 'apiKey', header: 'X-Api-Key' } };
    await call('POST', '/app-installs', {
      name: 'vendor',
      versionId: version.id,
      enabled: false,
      config: installConfig,
      approveHosts: [vendor.host],
    });
    await call('POST', '/app-installs/vendor/secrets/API_KEY', { value: SECRET });
    const install = await call('PUT', '/app-installs/vendor', {
      versionId: version.id,
      enabled: true,
      config: installConfig,
    });
    if (install.enabled !== true || install.missingSecrets.length !== 0)
      throw new Error(`install not ready: ${JSON.stringify(install).slice(0, 300)}`);
    const action = (version.actions as { name: string; timeoutMs: number }[]).find(
      (a) => a.name === 'request',
    );
    if (!action) throw new Error('http-connector has no request action');

    // 1. The runner alone: the body runAttempt sends for this install (src/calls/attempt.ts).
    const client = createRunnerClient({ baseUrl: runner.url, token: BENCH_RUNNER_TOKEN });
    closers.unshift(() => client.close());
    const runnerAlone = async () => {
      const result = await client.invoke({
        module: { sha256: version.sha256 },
        call: { id: randomUUID(), tenantId, callbackUrl: install.webhookUrl },
        action: 'request',
        idempotencyKey: null,
        input: INPUT,
        config: install.config,
        secrets: { API_KEY: SECRET },
        hosts: install.hosts,
        cache: [],
        documents: null,
        timeoutMs: action.timeoutMs,
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

    const [load1] = os.loadavg();
    console.log(
      `\ninstalls benchmark: http-connector ${version.version} against a loopback vendor double; ` +
        `${REQUESTS} requests a row in ${ROUNDS} interleaved rounds after ${WARM_UP} warm-up, ` +
        `${CONCURRENCY} in flight; ` +
        `${os.cpus().length} cores, load average ${(load1 ?? 0).toFixed(1)} at start, Node ${process.versions.node}\n`,
    );

    const limits = (on: boolean) => () =>
      call(
        'PUT',
        '/app-installs/vendor/limits',
        on
          ? {
              currency: 'EUR',
              prices: { request: PRICE_MICROS },
              budgets: [
                { metric: 'calls', period: 'day', max: 1_000_000_000 },
                { metric: 'http_requests', period: 'month', max: 1_000_000_000 },
                { metric: 'spend', period: 'month', max: 1_000_000_000_000 },
              ],
            }
          : // No currency is allowed in a month that spent (docs/limits-and-metering.md).
            { currency: null, prices: {}, budgets: [] },
      );
    const [alone, plain, budgeted, view] = (await measure([
      rowOf('1. runner alone (POST /v1/invoke)', runnerAlone),
      rowOf('2. POST /app-installs/vendor/test', testCall, limits(false)),
      rowOf('3. ... with a price and three budgets', testCall, limits(true)),
      rowOf('4. GET /app-installs/vendor (install view)', async () => {
        const answer = await call('GET', '/app-installs/vendor');
        if (answer.name !== 'vendor')
          throw new Error(`install view: ${JSON.stringify(answer).slice(0, 300)}`);
      }),
    ])) as [Result, Result, Result, Result];

    const header = [
      'measurement'.padEnd(44),
      'req/s'.padStart(7),
      'p50 ms'.padStart(8),
      'p95 ms'.padStart(8),
      'p50/runner'.padStart(11),
      'p50-runner ms'.padStart(14),
      'req/s runner/row'.padStart(17),
      'SQL/req'.padStart(8),
    ].join(' ');
    console.log(header);
    console.log('-'.repeat(header.length));
    for (const r of [alone, plain, budgeted, view]) {
      console.log(
        [
          r.name.padEnd(44),
          r.perSecond.toFixed(0).padStart(7),
          r.p50.toFixed(2).padStart(8),
          r.p95.toFixed(2).padStart(8),
          `×${(r.p50 / alone.p50).toFixed(2)}`.padStart(11),
          signed(r.p50 - alone.p50).padStart(14),
          `×${(alone.perSecond / r.perSecond).toFixed(2)}`.padStart(17),
          r.statementsPer.toFixed(1).padStart(8),
        ].join(' '),
      );
    }

    // The metering the test calls left: every call counted, the budgeted ones charged.
    const metering = await call('GET', '/app-installs/metering?install=vendor');
    const rows = metering.items as { calls: number; spend?: { currency: string; micros: number }[] }[];
    const calls = rows.reduce((sum, row) => sum + row.calls, 0);
    const spent = rows.flatMap((row) => row.spend ?? []).reduce((sum, s) => sum + s.micros, 0);
    if (spent <= 0) throw new Error(`no spend metered: ${JSON.stringify(metering).slice(0, 300)}`);

    console.log(
      `\nplatform overhead per call (p50 over the runner alone): ` +
        `test call ${signed(plain.p50 - alone.p50)} ms (×${(plain.p50 / alone.p50).toFixed(2)}), ` +
        `with budgets ${signed(budgeted.p50 - alone.p50)} ms (×${(budgeted.p50 / alone.p50).toFixed(2)}); ` +
        `the budgets themselves ${signed(budgeted.p50 - plain.p50)} ms`,
    );
    console.log(
      `throughput at ${CONCURRENCY} in flight: runner alone ${alone.perSecond.toFixed(0)} req/s, ` +
        `test call ${plain.perSecond.toFixed(0)} req/s (runner/test ×${(alone.perSecond / plain.perSecond).toFixed(2)}), ` +
        `with budgets ${budgeted.perSecond.toFixed(0)} req/s (×${(alone.perSecond / budgeted.perSecond).toFixed(2)})`,
    );
    console.log(
      `metered: ${calls} test calls, ${(spent / 1_000_000).toFixed(4)} EUR spent ` +
        `(${PRICE_MICROS} micros a budgeted call)`,
    );
    const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      `\ngoal: ≤ ${GOALS.statementsPerTestCall} statements a test call (a required secret among its reads): ` +
        `${met(plain.statementsPer <= GOALS.statementsPerTestCall)} (${plain.statementsPer.toFixed(1)}; ` +
        `with budgets ${budgeted.statementsPer.toFixed(1)}, the period's use summed)`,
    );
    console.log(
      `goal: ≥ ${GOALS.testCallsPerSecond} test calls a second: ${met(plain.perSecond >= GOALS.testCallsPerSecond)} ` +
        `(${plain.perSecond.toFixed(0)}/s at ${CONCURRENCY} in flight; bench:runs measures it at 16)`,
    );
  });
}

await main();
