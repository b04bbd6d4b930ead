// What bench/outbound.ts prints: its rows side by side with the floors, where the measured rows' time
// went, and each figure beside its goal (met or MISSED, never asserted).
import os from 'node:os';
import type { Fairness } from './outbound-fairness.ts';
import { quantile, type Stretch } from './outbound-support.ts';
import type { StatementTime } from './outbound-worker.ts';

export const GOAL = { perSecond: 300, lagP99Ms: 3000 };

export interface Row {
  name: string;
  /** Deliveries (row 1: posts) the row counts. */
  n: number;
  perSecond: number;
  /** Row 1: each post's latency; row 3: each delivery's lag beyond the hold; ms. */
  lags: number[];
  stretch: Stretch;
  load: number;
}

export interface Report {
  rows: Row[];
  startLoad: number[];
  endpoints: number;
  rate: number;
  workers: number;
  seconds: number;
  warmupSeconds: number;
  raisedRows: number;
  measuredRows: number;
  loadSeconds: number;
  /** The load generator's transactions, ms each. */
  batchMs: number[];
  /** Row 3: arrivals a second in each 5 s of its window. */
  buckets: number[];
  /** Row 3: the lag's p99 of the rows committed in each third of the measured seconds. */
  lagP99ByThird: number[];
  /** Rows 3-4: arrivals beyond the first of a delivery (event and endpoint). */
  duplicates: number;
  badSignatures: number;
  /** Percentiles (to_pass_50 … latency_99) over the measured rows' deliveries, ms. */
  breakdown: Record<string, number>;
  /** Trail passes that wrote the measured rows' deliveries. */
  passes: number;
  /** The workers' statements in row 3's window, and in row 4's. */
  statements: StatementTime[];
  burstStatements: StatementTime[];
  /** Row 4: from its last arrival to its last outcome written, ms; and the outcomes written at that arrival. */
  outcomesBehindMs: number;
  writtenAtLastArrival: number;
  /** What each worker logged at level error. */
  workerErrors: { name: string; count: number; messages: string[] }[];
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(0));
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
const perDelivery = (cpu: number, n: number) => (cpu / n).toFixed(3);

/** Which part of the worker a statement is: the trail reader's pass, the sender's claim, its outcome writes. */
function partOf(text: string): string {
  if (
    /pg_try_advisory_xact_lock|pg_snapshot_xmin|webhook_trail_cursor|events as materialized|xact_id >=/.test(
      text,
    )
  )
    return 'trail pass';
  if (
    /^update webhook_deliveries d set next_attempt_at|^select c\.id, e\.id as endpoint_id|from "(audit_events|webhook_endpoints)" where/.test(
      text,
    )
  )
    return 'claim';
  // The outcome writes one by one (drizzle's, quoted) or a batch at once (with the endpoints' lock).
  if (
    /^update "?webhook_(deliveries|endpoints)"?( [de])? set|^select id from webhook_endpoints where/.test(
      text,
    )
  )
    return 'outcome writes';
  if (/^(begin|commit|rollback)$/i.test(text)) return 'begin/commit (passes, outcome writes)';
  return 'other (engine, sweeps)';
}

export function printReport(report: Report): void {
  const { rows } = report;
  console.log(
    `\noutbound webhooks benchmark: ${report.workers} \`platform start --role worker\` process(es); one tenant, ` +
      `${report.endpoints} endpoints on one receiver process; ${os.cpus().length} cores, load average at start ` +
      `${report.startLoad.map((l) => l.toFixed(2)).join(' ')}, Node ${process.versions.node}\n`,
  );
  const header = [
    'measurement'.padEnd(46),
    'deliv/s'.padStart(8),
    'p50'.padStart(6),
    'p95'.padStart(6),
    'p99'.padStart(6),
    'bench ms'.padStart(9),
    'worker ms'.padStart(10),
    'rcvr ms'.padStart(8),
    'PG ms'.padStart(7),
    'others'.padStart(7),
    'load'.padStart(6),
  ].join(' ');
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const r of rows) {
    const s = r.stretch;
    console.log(
      [
        r.name.padEnd(46),
        r.perSecond.toFixed(0).padStart(8),
        ms(quantile(r.lags, 0.5)).padStart(6),
        ms(quantile(r.lags, 0.95)).padStart(6),
        ms(quantile(r.lags, 0.99)).padStart(6),
        perDelivery(s.own, r.n).padStart(9),
        perDelivery(s.workers, r.n).padStart(10),
        perDelivery(s.receiver, r.n).padStart(8),
        perDelivery(s.postgres, r.n).padStart(7),
        (s.others / s.wall).toFixed(2).padStart(7),
        r.load.toFixed(2).padStart(6),
      ].join(' '),
    );
  }
  const [floor, store, steady, capacity] = rows;
  console.log(
    `\ndeliv/s: deliveries arriving at the receiver a second (row 1: posts); p50/p95/p99: row 1 a post's ` +
      `latency (body, secret opened, signed, posted, answered), row 3 the lag from the audit row's commit to ` +
      `its delivery's arrival minus the ${10} s hold, ms; bench, worker, rcvr, PG: CPU ms a delivery of this ` +
      `process (row 1 the poster, row 2 the sender, rows 3-4 the load generator), the worker process(es), the ` +
      `receiver, PostgreSQL; others: CPU of every other process on the machine, in cores; load: 1-minute ` +
      `load average at the row's start.`,
  );
  if (steady) {
    const s = steady.stretch;
    const cores = (cpu: number) => (cpu / s.wall).toFixed(2);
    console.log(
      `\nrow 3: ${report.rate} rows a second raised (${report.rate * report.endpoints} deliveries a second ` +
        `offered) for ${report.loadSeconds.toFixed(0)} s in a transaction every 100 ms (p50 ` +
        `${ms(quantile(report.batchMs, 0.5))} ms, p99 ${ms(quantile(report.batchMs, 0.99))} ms): ` +
        `${report.warmupSeconds} s warm-up, ${report.seconds} s measured (${report.measuredRows} rows, ` +
        `${report.measuredRows * report.endpoints} deliveries), the hold's 10 s more; ${report.raisedRows} rows ` +
        `in all, every delivery arrived. Rate and CPU over the ${(s.wall / 1000).toFixed(0)} s from the measured rows' hold's ` +
        `end: cores used by the load generator ${cores(s.own)}, worker(s) ${cores(s.workers)}, receiver ` +
        `${cores(s.receiver)}, PostgreSQL ${cores(s.postgres)}, others ${cores(s.others)}; ` +
        `${((s.commits / s.wall) * 1000).toFixed(0)} commits a second.`,
    );
    console.log(
      `arrivals a second by 5 s: ${report.buckets.map((b) => b.toFixed(0)).join(' ')}; lag p99 by third of ` +
        `the measured rows: ${report.lagP99ByThird.map(ms).join(', ')} ms; lag max ${ms(quantile(steady.lags, 1))} ms`,
    );
    const b = report.breakdown;
    const three = (c: string) =>
      `p50 ${ms(b[`${c}_50`] as number)}, p95 ${ms(b[`${c}_95`] as number)}, p99 ${ms(b[`${c}_99`] as number)} ms`;
    console.log(
      `\nwhere the measured rows' time went (the deliveries' columns): from the hold's end to the start of the ` +
        `trail pass that wrote the delivery: ${three('to_pass')} (${report.passes} passes, one every ` +
        `${((report.seconds * 1000) / report.passes).toFixed(0)} ms); from that pass's start to the send: ` +
        `${three('to_send')}; the poster's latency (send to answer): ${three('latency')}.`,
    );
    printStatements(`row 3's ${(s.wall / 1000).toFixed(0)} s`, report.statements, s.wall / 1000);
  }
  if (capacity) {
    console.log(
      `\nrow 4: ${capacity.n} deliveries; as the last arrived, ${report.writtenAtLastArrival} outcomes of them were ` +
        `written, the last one ` +
        `${(report.outcomesBehindMs / 1000).toFixed(1)} s after the last arrival (each claimed delivery's lease: 60 s). ` +
        `Over the run (rows 3 and 4): ${report.duplicates} deliveries arrived twice or more, ` +
        `${report.badSignatures} signatures failed at the receiver.`,
    );
    printStatements(
      `row 4's ${(capacity.stretch.wall / 1000).toFixed(0)} s`,
      report.burstStatements,
      capacity.stretch.wall / 1000,
    );
  }

  for (const w of report.workerErrors)
    console.log(
      `\n${w.name} logged ${w.count} errors${w.count ? `; the last: ${w.messages.join(' | ')}` : ''}`,
    );

  const steadyRate = steady?.perSecond ?? Number.NaN;
  const offered = report.rate * report.endpoints;
  const p99 = quantile(steady?.lags ?? [], 0.99);
  console.log(
    `\ngoal: ≥ ${GOAL.perSecond} deliveries a second sustained: ${verdict(steadyRate >= GOAL.perSecond)} ` +
      `(${steadyRate.toFixed(0)}/s of ${offered}/s offered${steadyRate >= offered * 0.97 ? ', kept up' : ', fell behind'}; ` +
      `a backlog drained at ${capacity?.perSecond.toFixed(0)}/s; floors: poster alone ${floor?.perSecond.toFixed(0)}/s, ` +
      `sender on the store alone ${store?.perSecond.toFixed(0)}/s; other processes used ` +
      `${steady ? (steady.stretch.others / steady.stretch.wall).toFixed(2) : '—'} of ${os.cpus().length} cores)`,
  );
  console.log(
    `goal: lag p99 < ${GOAL.lagP99Ms / 1000} s beyond the hold: ${verdict(p99 < GOAL.lagP99Ms)} ` +
      `(p99 ${ms(p99)} ms, p95 ${ms(quantile(steady?.lags ?? [], 0.95))} ms, p50 ` +
      `${ms(quantile(steady?.lags ?? [], 0.5))} ms at ${steadyRate.toFixed(0)} deliveries a second)\n`,
  );
}

/** The workers' statements over `seconds`: by part of the worker, then the heaviest by text. */
function printStatements(stretch: string, statements: StatementTime[], seconds: number): void {
  const parts = new Map<string, { count: number; totalMs: number; maxMs: number }>();
  for (const t of statements) {
    const part = parts.get(partOf(t.text)) ?? { count: 0, totalMs: 0, maxMs: 0 };
    part.count += t.count;
    part.totalMs += t.totalMs;
    part.maxMs = Math.max(part.maxMs, t.maxMs);
    parts.set(partOf(t.text), part);
  }
  console.log(
    `\nthe worker's SQL statements over ${stretch} (each from the query to its answer in the worker's ` +
      `clock), by part: statements a second, ms of statement time a second, mean and max ms:`,
  );
  for (const [part, t] of [...parts].sort((x, y) => y[1].totalMs - x[1].totalMs))
    console.log(
      `  ${part.padEnd(40)} ${(t.count / seconds).toFixed(1).padStart(7)}/s ` +
        `${(t.totalMs / seconds).toFixed(0).padStart(5)} ms/s  mean ${(t.totalMs / t.count).toFixed(2).padStart(6)}  ` +
        `max ${t.maxMs.toFixed(0).padStart(5)}`,
    );
  console.log('  the heaviest statements:');
  for (const t of [...statements].sort((x, y) => y.totalMs - x.totalMs).slice(0, 8))
    console.log(
      `  ${(t.count / seconds).toFixed(1).padStart(7)}/s ${(t.totalMs / seconds).toFixed(0).padStart(5)} ms/s  mean ` +
        `${(t.totalMs / t.count).toFixed(2).padStart(6)}  max ${t.maxMs.toFixed(0).padStart(5)}  ${t.text.slice(0, 100)}`,
    );
}

/** Rows 5-6's goal: the tenant's lag p99 beside a tenant whose endpoints hang, within goalMs of it alone. */
export function printFairness(
  fairness: Fairness,
  at: { goalMs: number; rate: number; hangRate: number; endpoints: number },
): void {
  const alone = quantile(fairness.alone.lags, 0.99);
  const beside = quantile(fairness.beside.lags, 0.99);
  console.log(
    `\nrows 5-6: the bench tenant raised ${at.rate} rows a second (${at.rate * at.endpoints} deliveries a second ` +
      `to its ${at.endpoints} endpoints) each time; beside it (row 6) a tenant raised ${at.hangRate} rows a second ` +
      `(${fairness.hangingRows} rows, ${at.hangRate * 16} deliveries a second) to 16 endpoints on a listener that ` +
      `took ${fairness.hungConnections} connections and answered none (each send held for the 10 s timeout).`,
  );
  console.log(
    `goal: another tenant's lag p99 within ${at.goalMs / 1000} s of its lag alone, beside a tenant whose 16 ` +
      `endpoints hang: ${verdict(beside - alone <= at.goalMs)} (p99 ${ms(beside)} ms beside, ${ms(alone)} ms ` +
      `alone, ${beside - alone >= 0 ? '+' : ''}${ms(beside - alone)} ms; p50 ${ms(quantile(fairness.beside.lags, 0.5))} ` +
      `beside, ${ms(quantile(fairness.alone.lags, 0.5))} alone; load average ${fairness.beside.load.toFixed(2)} ` +
      `beside, ${fairness.alone.load.toFixed(2)} alone)`,
  );
}
