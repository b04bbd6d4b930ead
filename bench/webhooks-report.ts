// What bench/webhooks.ts prints: its rows side by side with the floor, what many waiting runs cost the
// worker, and each figure beside its goal (met or MISSED, never asserted).
import os from 'node:os';
import { quantile, type Stretch } from './webhooks-support.ts';

/**
 * Issue 48's goals: 200 completions a second, which on the bench's 2 cores leaves 10 ms of CPU a
 * completion for every process (api and runner, worker, PostgreSQL); the statements of each side a
 * completion (STATEMENT_GOAL below); the rest as issue 32 set them.
 */
export const GOAL = { perSecond: 200, rss: 1024 ** 3, restartMs: 60_000, probeP99: 250 };
/** CPU ms a completion the goal leaves on this many cores. */
const cpuBudgetMs = (cores: number) => (cores * 1000) / GOAL.perSecond;
/** Statements a completion each side sends at most: what the work needs (docs/callbacks.md "Benchmark"). */
export const STATEMENT_GOAL = { api: 15, worker: 15 };

/** Row 2's statements by text, each side (its first 150 characters, and how many it sent in the row). */
export interface Tally {
  api: [string, number][];
  worker: [string, number][];
}

export interface Row {
  name: string;
  n: number;
  seconds: number;
  /** The webhook's (row 1: the runner's) answer, ms. */
  answers: number[];
  /** From the webhook's answer to the run completed, ms, in the order of `answers`; empty for the floor. */
  toCompleted: number[];
  stretch: Stretch;
  load: number;
}

export interface Report {
  rows: Row[];
  /** Row 2: the completions warmed up first, and runs completed end to end a second. */
  warm: number;
  runsPerSecond: number;
  /** Row 2's statements by text, each side. */
  tally: Tally | null;
  probes: number;
  probeInFlight: number;
  setup: { realRuns: number; seconds: number; copied: number; copySeconds: number; waiting: number };
  /** Rows of each table once the copies were made. */
  tables: [string, number][];
  memory: { fresh: number; waiting: number; many: number; restarted: number; peak: number };
  idle: { stretch: Stretch; ownStatements: number; tally: [string, number][] };
  /** One pass of the run sweep, run from this process with the waiting runs in place. */
  sweep: Stretch;
  restart: { waiting: number; stopMs: number; downAnswerMs: number; readyMs: number; completedMs: number };
  /** Ended runs copied with their workflows (rows 3c), and the engine's retention deleting them (3d). */
  ended: {
    runs: number;
    copySeconds: number;
    workflows: number;
    deleted: number;
    left: number;
    stretch: Stretch;
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(1));
const mib = (b: number) => `${(b / 1024 ** 2).toFixed(0)} MiB`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
const cores = (s: Stretch) => (s.others / s.wall).toFixed(2);

export function printReport(report: Report): void {
  const { rows, setup, memory, idle, sweep, restart, ended } = report;
  const header = [
    'measurement'.padEnd(44),
    'ops/s'.padStart(6),
    'ans p50'.padStart(8),
    'ans p99'.padStart(8),
    '→done p50'.padStart(10),
    '→done p99'.padStart(10),
    'api+rnr ms'.padStart(11),
    'worker ms'.padStart(10),
    'PG ms'.padStart(6),
    'SQL api+wkr'.padStart(12),
    'others'.padStart(7),
    'load'.padStart(6),
  ].join(' ');
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const r of rows) {
    const s = r.stretch;
    console.log(
      [
        r.name.padEnd(44),
        (r.n / r.seconds).toFixed(0).padStart(6),
        ms(quantile(r.answers, 0.5)).padStart(8),
        ms(quantile(r.answers, 0.99)).padStart(8),
        ms(quantile(r.toCompleted, 0.5)).padStart(10),
        ms(quantile(r.toCompleted, 0.99)).padStart(10),
        (s.own / r.n).toFixed(2).padStart(11),
        (s.worker / r.n).toFixed(2).padStart(10),
        (s.postgres / r.n).toFixed(2).padStart(6),
        `${(s.statements / r.n).toFixed(1)}+${(s.workerStatements / r.n).toFixed(1)}`.padStart(12),
        `${((s.others / s.wall) * 100).toFixed(0)}%`.padStart(7),
        r.load.toFixed(2).padStart(6),
      ].join(' '),
    );
  }
  const [, two, before, three, accumulated, swept] = rows;
  console.log(
    `\nops/s: webhook answers (row 1: the runner's) a second; ans: the webhook's answer, ms; →done: from the ` +
      `answer to the run completed (the worker's clock as it writes the run's end), ms; api+rnr, worker, PG: CPU ms ` +
      `an operation of this process (api, runner), the worker process and PostgreSQL, until the runs completed; ` +
      `SQL api+wkr: statements this process and the worker sent an operation (DBOS's included, the bench's poller's ` +
      `not); others: CPU of every other process, in cores; load: 1-minute load average at the row's start. Row 2: ` +
      `${two?.n} completions (${report.warm} more warmed up first), runs completed end to end at ` +
      `${report.runsPerSecond.toFixed(0)} a second. Rows 3a/3b: ${report.probes} completions, ` +
      `${report.probeInFlight} in flight.`,
  );
  console.log(
    `\nwaiting runs: ${setup.realRuns} real ones set up at ${(setup.realRuns / setup.seconds).toFixed(0)} a second; ` +
      `${setup.copied} copied in SQL in ${setup.copySeconds.toFixed(1)} s (${(setup.copied / setup.copySeconds).toFixed(0)} ` +
      `a second); ${setup.waiting} waiting for the idle stretch; rows then: ` +
      report.tables.map(([table, n]) => `${table} ${n}`).join(', '),
  );
  console.log(
    `worker resident memory: fresh ${mib(memory.fresh)}, ${setup.realRuns} waiting ${mib(memory.waiting)}, ` +
      `${setup.waiting} waiting ${mib(memory.many)}, new worker after the restart ${mib(memory.restarted)}; ` +
      `peak ${mib(memory.peak)}`,
  );
  const perSecond = (n: number) => ((n / idle.stretch.wall) * 1000).toFixed(1);
  // The resumer's statements name the sessions' table; DBOS's its schema (its transactions' BEGIN and COMMIT
  // too); the rest is the platform's other sweeps.
  const kinds = { resumer: 0, engine: 0, other: 0 };
  for (const [text, n] of idle.tally) {
    if (text.includes('app_callbacks')) kinds.resumer += n;
    else if (text.includes('workflow_runs'))
      kinds.other += n; // the run sweep's, which joins DBOS's table
    else if (text.includes('"dbos"') || text === 'BEGIN' || text === 'COMMIT') kinds.engine += n;
    else kinds.other += n;
  }
  console.log(
    `idle ${(idle.stretch.wall / 1000).toFixed(0)} s with ${setup.waiting} waiting: the worker sent ` +
      `${perSecond(idle.stretch.workerStatements)} statements a second, this process (api, runner) ` +
      `${perSecond(idle.ownStatements)}; CPU a second: worker ${perSecond(idle.stretch.worker)} ms, PostgreSQL ` +
      `${perSecond(idle.stretch.postgres)} ms, this process ${perSecond(idle.stretch.own)} ms (others ` +
      `${cores(idle.stretch)} cores). Of the worker's, a second: the resumer's ${perSecond(kinds.resumer)}, DBOS's ` +
      `${perSecond(kinds.engine)}, others ${perSecond(kinds.other)}; by text:`,
  );
  for (const [text, n] of idle.tally.slice(0, 10)) console.log(`  ${perSecond(n).padStart(7)}  ${text}`);
  console.log(
    `one pass of the run sweep (each worker's, at start-up and every minute) with ${setup.waiting} waiting: ` +
      `${sweep.wall.toFixed(0)} ms, ${sweep.statements} statements, PostgreSQL ${sweep.postgres.toFixed(0)} ms ` +
      `and this process ${sweep.own.toFixed(0)} ms of CPU`,
  );
  console.log(
    `ended runs: ${ended.runs} copied with their workflows in ${ended.copySeconds.toFixed(1)} s, so the engine held ` +
      `${ended.workflows} workflows (row 3c); the retention sweep's engine part deleted ${ended.deleted} through ` +
      `DBOSClient.deleteWorkflows in ${(ended.stretch.wall / 1000).toFixed(1)} s (${(ended.deleted / (ended.stretch.wall / 1000)).toFixed(0)} ` +
      `a second; PostgreSQL ${(ended.stretch.postgres / 1000).toFixed(1)} s and this process ` +
      `${(ended.stretch.own / 1000).toFixed(1)} s of CPU), leaving ${ended.left}, the open runs' own (row 3d)`,
  );
  console.log(
    `restart with ${restart.waiting} waiting: the worker stopped (SIGTERM) in ${restart.stopMs.toFixed(0)} ms; a ` +
      `completion delivered meanwhile answered in ${restart.downAnswerMs.toFixed(0)} ms; the new worker was ready ` +
      `${(restart.readyMs / 1000).toFixed(1)} s after its spawn, and that run completed ` +
      `${(restart.completedMs / 1000).toFixed(1)} s after it`,
  );

  if (two && report.tally) printSides(two, report.tally);

  const twoPerSecond = two ? two.n / two.seconds : Number.NaN;
  const sentToDone = (row: Row | undefined) =>
    row ? row.answers.map((a, i) => a + (row.toCompleted[i] as number)) : [];
  const probeP99 = quantile(sentToDone(three), 0.99);
  console.log(
    `\ngoal: ≥ ${GOAL.perSecond} completions a second: ${verdict(twoPerSecond >= GOAL.perSecond)} ` +
      `(${twoPerSecond.toFixed(0)}/s; other processes used ${two ? cores(two.stretch) : '—'} of ` +
      `${os.cpus().length} cores)`,
  );
  console.log(
    `goal: the worker ≤ 1 GiB resident with ${setup.waiting} waiting: ${verdict(memory.peak <= GOAL.rss)} ` +
      `(peak ${mib(memory.peak)})`,
  );
  console.log(
    `goal: a restarted worker completes a run within ${GOAL.restartMs / 1000} s: ` +
      `${verdict(restart.completedMs <= GOAL.restartMs)} (${(restart.completedMs / 1000).toFixed(1)} s)`,
  );
  console.log(
    `goal: p99 of a webhook completing its run (sent → run completed) ≤ ${GOAL.probeP99} ms while ` +
      `${setup.waiting} wait: ${verdict(probeP99 <= GOAL.probeP99)} (${probeP99.toFixed(0)} ms, p50 ` +
      `${quantile(sentToDone(three), 0.5).toFixed(0)} ms; other processes used ${three ? cores(three.stretch) : '—'} ` +
      `cores; before the copies, row 3a: p99 ${quantile(sentToDone(before), 0.99).toFixed(0)} ms)`,
  );
  for (const [label, row] of [
    [`with ${ended.workflows} engine workflows accumulated (row 3c)`, accumulated],
    [`once the engine's retention swept them (row 3d)`, swept],
  ] as const) {
    const p99 = quantile(sentToDone(row), 0.99);
    console.log(
      `goal: that p99 ≤ ${GOAL.probeP99} ms ${label}: ${verdict(p99 <= GOAL.probeP99)} (${p99.toFixed(0)} ms, ` +
        `p50 ${quantile(sentToDone(row), 0.5).toFixed(0)} ms; other processes used ${row ? cores(row.stretch) : '—'} cores)`,
    );
  }
  console.log('');
}

/** Row 2 side by side: each side's statements and CPU a completion beside the goals, and its statements by text. */
function printSides(row: Row, tally: Tally): void {
  const s = row.stretch;
  const per = (n: number) => (n / row.n).toFixed(1);
  const budget = cpuBudgetMs(os.cpus().length);
  const total = (s.own + s.worker + s.postgres) / row.n;
  console.log(
    `\na completion, each side (row 2, ${row.n} completions): api ${per(s.statements)} statements (goal ≤ ` +
      `${STATEMENT_GOAL.api}: ${verdict(s.statements / row.n <= STATEMENT_GOAL.api)}), ${per(s.own)} ms of CPU with ` +
      `the runner; worker ${per(s.workerStatements)} statements (goal ≤ ${STATEMENT_GOAL.worker}: ` +
      `${verdict(s.workerStatements / row.n <= STATEMENT_GOAL.worker)}), ${per(s.worker)} ms of CPU; PostgreSQL ` +
      `${per(s.postgres)} ms; in all ${total.toFixed(1)} ms of CPU (goal ≤ ${budget.toFixed(0)} ms, what ` +
      `${GOAL.perSecond} a second leaves on ${os.cpus().length} cores: ${verdict(total <= budget)})`,
  );
  for (const [side, entries] of [
    ['api', tally.api],
    ['worker', tally.worker],
  ] as const) {
    console.log(`  ${side}, statements a completion by text:`);
    for (const [text, n] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, 24))
      console.log(`  ${per(n).padStart(7)}  ${text}`);
  }
}
