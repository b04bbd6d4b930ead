// What bench/outbound.ts stands on besides bench/support.ts and bench/usage.ts: its child processes (the
// worker, bench/outbound-worker.ts, and the receiver, bench/outbound-receiver.ts) and what they used,
// endpoints and audit rows written straight to the database, the steady load, the floors' rows, and the
// figures (first arrivals, statement times summed, the deliveries' own timings).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { recordAudit } from '../src/audit/trail.ts';
import type { Database } from '../src/db/pool.ts';
import { newSigningSecret, sealEndpointSecret, webhookEndpoints } from '../src/outbound-webhooks/index.ts';
import type { Arrival, ReceiverMessage, ReceiverQuestion } from './outbound-receiver.ts';
import type { OutboundWorkerMessage, StatementTime } from './outbound-worker.ts';
import { startMeter, type Usage } from './usage.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// --- Child processes ----------------------------------------------------------------------------------

interface Child<Q, M> {
  pid: number;
  first: M;
  /** The error lines it logged (level error or fatal): how many, and the messages of the last few. */
  errors: { count: number; messages: string[] };
  /** Sends a question; resolves with the next message. */
  ask(question: Q): Promise<M>;
  /** SIGTERM; resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts `file` (on this Node, through tsx) with `env`; resolves with its first message. */
async function spawnChild<Q, M>(file: string, env: Record<string, string>): Promise<Child<Q, M>> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, file)], {
    cwd: path.join(HERE, '..'),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  let partial = '';
  const errors = { count: 0, messages: [] as string[] };
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-4000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      // The platform logs the level's label (src/logging.ts); pino's number otherwise.
      if (!/"level":("error"|"fatal"|(5\d|60)\b)/.test(line)) continue;
      errors.count += 1;
      const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 200);
      // The innermost cause's message (the driver's, say `deadlock detected`) is the last one logged.
      const err = [...line.matchAll(/"message":"((?:[^"\\]|\\.)*)"/g)].at(-1)?.[1]?.slice(0, 120);
      errors.messages = [...errors.messages, err ? `${msg}: ${err}` : msg].slice(-5);
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting: ((message: M) => void)[] = [];
  let firstMessage: (message: M) => void = () => {};
  const first = new Promise<M>((resolve) => {
    firstMessage = resolve;
  });
  child.on('message', (message: M) => (waiting.shift() ?? firstMessage)(message));
  const ready = await Promise.race([
    first,
    exited.then(() => {
      throw new Error(`${file} exited before it was ready:\n${output}`);
    }),
  ]);
  return {
    pid: child.pid as number,
    first: ready,
    errors,
    ask: (question) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.send(question as object);
      }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface WorkerProcess {
  name: string;
  errors: { count: number; messages: string[] };
  /** CPU ms so far and the statement times since the last reset. */
  usage(reset?: boolean): Promise<{ cpuMs: number; statements: StatementTime[] }>;
  stop(): Promise<void>;
}

export async function startWorkerProcess(name: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child = await spawnChild<{ reset: boolean }, OutboundWorkerMessage>('outbound-worker.ts', env);
  return {
    name,
    errors: child.errors,
    usage: async (reset = false) => {
      const answer = await child.ask({ reset });
      if (answer.kind !== 'usage') throw new Error('the worker answered out of turn');
      return answer;
    },
    stop: child.stop,
  };
}

export interface ReceiverProcess {
  port: number;
  secrets(secrets: string[]): Promise<void>;
  /** Every arrival so far, as of the last poll. */
  arrivals: Arrival[];
  /** Brings its arrivals over; answers the signatures that failed and the CPU ms it used, so far. */
  poll(): Promise<{ badSignatures: number; cpuMs: number }>;
  stop(): Promise<void>;
}

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child = await spawnChild<ReceiverQuestion, ReceiverMessage>('outbound-receiver.ts', {});
  if (child.first.kind !== 'ready') throw new Error('the receiver did not start');
  const arrivals: Arrival[] = [];
  return {
    port: child.first.port,
    secrets: async (secrets) => void (await child.ask({ kind: 'secrets', secrets })),
    arrivals,
    poll: async () => {
      const answer = await child.ask({ kind: 'take' });
      if (answer.kind !== 'taken') throw new Error('the receiver answered out of turn');
      for (const arrival of answer.arrivals) arrivals.push(arrival);
      return { badSignatures: answer.badSignatures, cpuMs: answer.cpuMs };
    },
    stop: child.stop,
  };
}

export interface Stretch extends Usage {
  /** CPU ms of the workers and of the receiver (neither in `others`). */
  workers: number;
  receiver: number;
}

/** Measures a stretch: bench/usage.ts's meter, with the workers' and the receiver's CPU apart. */
export async function meterStretch(
  postmaster: number,
  commits: () => Promise<number>,
  workers: WorkerProcess[],
  receiver: ReceiverProcess,
) {
  const workerCpu = async () =>
    (await Promise.all(workers.map((w) => w.usage()))).reduce((sum, u) => sum + u.cpuMs, 0);
  const receiverCpu = async () => (await receiver.poll()).cpuMs;
  const workersBefore = await workerCpu();
  const receiverBefore = await receiverCpu();
  const stop = await startMeter(postmaster, commits);
  return async (): Promise<Stretch> => {
    const used = await stop();
    const workersUsed = (await workerCpu()) - workersBefore;
    const receiverUsed = (await receiverCpu()) - receiverBefore;
    return {
      ...used,
      others: Math.max(0, used.others - workersUsed - receiverUsed),
      workers: workersUsed,
      receiver: receiverUsed,
    };
  };
}

// --- Rows ---------------------------------------------------------------------------------------------

export const BENCH_EVENT = 'run.completed';

/** `count` enabled endpoints of the tenant, subscribed to BENCH_EVENT, endpoint i at <base>/hooks/<i>. */
export async function addEndpoints(
  database: Database,
  key: Buffer,
  tenantId: string,
  base: string,
  count: number,
): Promise<{ id: string; secret: string }[]> {
  const endpoints = Array.from({ length: count }, () => ({ id: randomUUID(), secret: newSigningSecret() }));
  await database.db.insert(webhookEndpoints).values(
    endpoints.map((e, i) => ({
      id: e.id,
      tenantId,
      url: `${base}/hooks/${i}`,
      events: [BENCH_EVENT],
      createdBy: 'user:bench',
      secretSealed: sealEndpointSecret(key, tenantId, e.id, e.secret),
    })),
  );
  return endpoints;
}

/**
 * Raises `count` runs' ends in one transaction, as the runs layer audits them (recordAudit, action
 * workflow.run.completed on a workflow_run); answers each run's id and when the transaction had committed
 * (the wall clock as the commit returned, epoch ms).
 */
export async function raiseRunsCompleted(
  database: Database,
  tenantId: string,
  count: number,
): Promise<{ runIds: string[]; committedAt: number }> {
  const runIds = Array.from({ length: count }, () => randomUUID());
  await database.db.transaction(async (tx) => {
    for (const runId of runIds)
      await recordAudit(tx, {
        tenantId,
        action: 'workflow.run.completed',
        actor: { type: 'system', id: 'runs', name: null },
        resource: { type: 'workflow_run', id: runId },
        data: { workflowRunId: runId, workflow: 'onboarding', version: 1, subjectId: 'bench-subject' },
      });
  });
  return { runIds, committedAt: performance.timeOrigin + performance.now() };
}

export interface SteadyLoad {
  /** Stops raising; resolves once the last batch committed. */
  stop(): Promise<void>;
  /** Rows raised so far, and the ms the batches' transactions took. */
  raised(): number;
  batchMs: number[];
}

/**
 * Raises `perSecond` rows a second in a batch every `tickMs`, on a fixed schedule (a late batch is
 * followed by the next one at once, its count making up the rows due), each run's commit time into
 * `committed`.
 */
export function steadyLoad(
  database: Database,
  tenantId: string,
  perSecond: number,
  tickMs: number,
  committed: Map<string, number>,
): SteadyLoad {
  let stopped = false;
  let raised = 0;
  const batchMs: number[] = [];
  const started = performance.now();
  const loop = (async () => {
    for (let tick = 1; !stopped; tick++) {
      const due = Math.floor((perSecond * tick * tickMs) / 1000) - raised;
      if (due > 0) {
        const t = performance.now();
        const batch = await raiseRunsCompleted(database, tenantId, due);
        batchMs.push(performance.now() - t);
        for (const runId of batch.runIds) committed.set(runId, batch.committedAt);
        raised += due;
      }
      const wait = started + tick * tickMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
    raised: () => raised,
    batchMs,
  };
}

/**
 * The store floor's rows: `rows` audit rows of the tenant (as recordAudit writes them) and a pending
 * delivery of each to every endpoint, due now, written in SQL as a trail pass writes them.
 */
export async function pendingDeliveries(database: Database, tenantId: string, rows: number): Promise<number> {
  const inserted = await database.db.execute<{ n: number }>(sql`
    with audits as (
      insert into audit_events (tenant_id, action, actor_type, actor_id, resource_type, resource_id, data)
      select ${tenantId}::uuid, 'workflow.run.completed', 'system', 'runs', 'workflow_run', r::text,
        jsonb_build_object('workflowRunId', r::text, 'workflow', 'onboarding', 'version', 1)
      from (select gen_random_uuid() as r from generate_series(1, ${rows})) g
      returning id, tenant_id, resource_id, occurred_at
    ), inserted as (
      insert into webhook_deliveries
        (tenant_id, endpoint_id, event_id, audit_event_id, event_type, occurred_at, workflow_run_id)
      select a.tenant_id, e.id, gen_random_uuid(), a.id, ${BENCH_EVENT}, a.occurred_at, a.resource_id
      from audits a join webhook_endpoints e on e.tenant_id = a.tenant_id
      returning 1
    )
    select count(*)::int as n from inserted`);
  return inserted.rows[0]?.n ?? 0;
}

// --- Figures ------------------------------------------------------------------------------------------

export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe()` reaches `expected`; fails naming `what` after `limitMs`. */
export async function until(
  what: string,
  probe: () => Promise<number>,
  expected: number,
  limitMs: number,
  everyMs = 100,
): Promise<void> {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    const now = await probe();
    if (now >= expected) return;
    if (performance.now() > giveUpAt) throw new Error(`${what}: ${now} of ${expected} after ${limitMs} ms`);
    await sleep(everyMs);
  }
}

/** The first arrival of each delivery (event and endpoint) of the runs in `of`. */
export function firstArrivals(arrivals: Arrival[], of: Map<string, number>): Arrival[] {
  const seen = new Set<string>();
  return arrivals.filter((a) => {
    const key = `${a[1]}/${a[2]}`;
    if (!of.has(a[0]) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The workers' statement times, summed by text. */
export function merged(usages: { statements: StatementTime[] }[]): StatementTime[] {
  const byText = new Map<string, StatementTime>();
  for (const t of usages.flatMap((u) => u.statements)) {
    const seen = byText.get(t.text);
    byText.set(
      t.text,
      seen
        ? {
            ...seen,
            count: seen.count + t.count,
            totalMs: seen.totalMs + t.totalMs,
            maxMs: Math.max(seen.maxMs, t.maxMs),
          }
        : t,
    );
  }
  return [...byText.values()];
}

/**
 * Where the rows' time went, from their deliveries' own columns (the workers' and PostgreSQL's clocks): from
 * the hold's end to the start of the trail pass that wrote the delivery (created_at), from there to its send
 * (last_attempt_at, the sender's clock at the send), and the poster's latency; p50/p95/p99 of each
 * (to_pass_50 … latency_99), and the passes that wrote them.
 */
export async function deliveryBreakdown(database: Database, runIds: string[], holdMs: number) {
  const breakdown = (
    await database.db.execute<Record<string, number>>(sql`
      with d as (
        select extract(epoch from d.created_at - a.occurred_at) * 1000 - ${holdMs} as to_pass,
          extract(epoch from d.last_attempt_at - d.created_at) * 1000 as to_send,
          d.latency_ms::float8 as latency
        from webhook_deliveries d join audit_events a on a.id = d.audit_event_id
        where a.resource_id = any(${sql.param(runIds)}::text[]) and d.status = 'delivered'
      )
      select ${sql.raw(
        ['to_pass', 'to_send', 'latency']
          .flatMap((c) =>
            [0.5, 0.95, 0.99].map(
              (q) => `percentile_cont(${q}) within group (order by ${c}) as ${c}_${q * 100}`,
            ),
          )
          .join(', '),
      )} from d`)
  ).rows[0] as Record<string, number>;
  const passes = await database.db.execute<{ n: string }>(sql`
    select count(distinct d.created_at) as n from webhook_deliveries d join audit_events a on a.id = d.audit_event_id
    where a.resource_id = any(${sql.param(runIds)}::text[])`);
  return { breakdown, passes: Number(passes.rows[0]?.n) };
}
