// What bench/webhooks.ts stands on besides bench/support.ts and bench/usage.ts: the worker in a child
// process (bench/webhooks-worker.ts) and what it used, signed vendor completions, operations in flight,
// waiting runs copied in SQL, and waits on the database's state.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type SQL, sql } from 'drizzle-orm';
import { signedWebhook } from '../packages/app-testing/src/index.ts';
import type { Database } from '../src/db/pool.ts';
import { startMeter, type Usage } from './usage.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// --- The worker process -------------------------------------------------------------------------------

export interface WorkerUsage {
  statements: number;
  cpuMs: number;
  rssBytes: number;
  /** Statements by text since the question that started the tally (on the question that stops it). */
  tally: [string, number][];
}

/** start: clear the tally and tally from now; stop: answer the tally and stop; keep: as it was. */
export interface WorkerQuestion {
  tally: 'start' | 'stop' | 'keep';
}

export type WorkerMessage = { kind: 'ready' } | { kind: 'usage'; usage: WorkerUsage };

export interface WorkerProcess {
  pid: number;
  /** From the spawn to `ready` (the engine launched, its queues checked, the background started). */
  readyMs: number;
  /** Spawn time (performance.now()). */
  spawnedAt: number;
  usage(tally?: WorkerQuestion['tally']): Promise<WorkerUsage>;
  /** Resident and peak resident memory (/proc/<pid>/status VmRSS, VmHWM), bytes. */
  memory(): { rss: number; peak: number };
  /** SIGTERM, as a deployment stops it; answers the ms until it exited. */
  stop(): Promise<number>;
}

/** Starts bench/webhooks-worker.ts with `env` (on this Node, through tsx); resolves once it is ready. */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(HERE, 'webhooks-worker.ts')],
    {
      cwd: path.join(HERE, '..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const answers: ((usage: WorkerUsage) => void)[] = [];
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  child.on('message', (message: WorkerMessage) => {
    if (message.kind === 'ready') ready();
    else answers.shift()?.(message.usage);
  });
  await Promise.race([
    isReady,
    exited.then(() => {
      throw new Error(`the worker exited before it was ready:\n${output}`);
    }),
  ]);
  const pid = child.pid as number;
  return {
    pid,
    readyMs: performance.now() - spawnedAt,
    spawnedAt,
    usage: (tally = 'keep') =>
      new Promise((resolve) => {
        answers.push(resolve);
        child.send({ tally } satisfies WorkerQuestion);
      }),
    memory: () => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
      return { rss: kib('VmRSS'), peak: kib('VmHWM') };
    },
    stop: async () => {
      const t = performance.now();
      child.kill('SIGTERM');
      await exited;
      return performance.now() - t;
    },
  };
}

export interface Stretch extends Usage {
  /** CPU ms of the worker process (not in `others`). */
  worker: number;
  workerStatements: number;
}

/** Measures a stretch: bench/usage.ts's meter, with the worker's CPU and statements apart. */
export async function meterStretch(
  postmaster: number,
  commits: () => Promise<number>,
  worker: WorkerProcess,
) {
  const before = await worker.usage();
  const stop = await startMeter(postmaster, commits);
  return async (): Promise<Stretch> => {
    const used = await stop();
    const after = await worker.usage();
    const workerCpu = after.cpuMs - before.cpuMs;
    return {
      ...used,
      others: Math.max(0, used.others - workerCpu),
      worker: workerCpu,
      workerStatements: after.statements - before.statements,
    };
  };
}

// --- Figures ------------------------------------------------------------------------------------------

export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

/** Runs `once(i)` for i in 0…count-1, `inFlight` at a time. */
export async function inFlight(count: number, inFlight: number, once: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      for (let i = next++; i < count; i = next++) await once(i);
    }),
  );
}

// --- Vendor completions -------------------------------------------------------------------------------

/** The http-connector's webhook config the bench installs: hmac over the body, ids in the body. */
export const WEBHOOK_CONFIG = {
  scheme: 'hmac',
  externalIdFrom: { json: '/job/id' },
  eventIdFrom: { json: '/eventId' },
};

/** A vendor's signed completion of job `externalId`, as the install's webhook receives it. */
export function signedCompletion(secret: string, externalId: string) {
  const body = JSON.stringify({
    job: { id: externalId },
    eventId: `evt-${randomUUID()}`,
    status: 'completed',
    decision: 'approved',
  });
  return signedWebhook({ secret, body });
}

export interface Delivered {
  /** When it was sent (Date.now()), the ms until the answer, and when that came. */
  sentEpoch: number;
  answerMs: number;
  answeredEpoch: number;
}

/** POSTs one signed completion of `externalId` to the install's webhook; it must settle its session. */
export async function deliverCompletion(
  apiUrl: string,
  installId: string,
  secret: string,
  externalId: string,
): Promise<Delivered> {
  const signed = signedCompletion(secret, externalId);
  const sentEpoch = Date.now();
  const sentAt = performance.now();
  const response = await fetch(`${apiUrl}/webhooks/app-installs/${installId}`, {
    method: 'POST',
    headers: signed.headers,
    body: Buffer.from(signed.body),
  });
  const text = await response.text();
  const answerMs = performance.now() - sentAt;
  if (response.status !== 202 || !text.includes('"received":true'))
    throw new Error(`webhook for ${externalId}: ${response.status} ${text.slice(0, 300)}`);
  return { sentEpoch, answerMs, answeredEpoch: sentEpoch + answerMs };
}

// --- The database's state -----------------------------------------------------------------------------

/** Polls until `count()` reaches `expected` (a count may throw to give up); fails naming `what` after `limitMs`. */
export async function untilCount(
  what: string,
  count: () => Promise<number>,
  expected: number,
  limitMs: number,
  everyMs = 100,
) {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    const now = await count();
    if (now >= expected) return;
    if (performance.now() > giveUpAt) throw new Error(`${what}: ${now} of ${expected} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export const runsIn = async (db: Database['db'], status: string, ids?: string[]) =>
  Number(
    (
      await db.execute<{ n: string }>(
        ids
          ? sql`select count(*) as n from workflow_runs where status = ${status} and id = any(${sql.param(ids)}::uuid[])`
          : sql`select count(*) as n from workflow_runs where status = ${status}`,
      )
    ).rows[0]?.n,
  );

/** The rows of a table (the bench's report of what the database holds). */
export const countRows = async (db: Database['db'], table: string) =>
  Number((await db.execute<{ n: string }>(sql.raw(`select count(*) as n from ${table}`))).rows[0]?.n);

/** When each run completed (the worker's clock as it wrote the run's end), epoch ms. */
export async function completedAt(db: Database['db'], ids: string[]): Promise<Map<string, number>> {
  const rows = await db.execute<{ id: string; at: string }>(
    sql`select id, (extract(epoch from completed_at) * 1000)::float8 as at from workflow_runs
        where id = any(${sql.param(ids)}::uuid[]) and status = 'completed'`,
  );
  return new Map(rows.rows.map((row) => [row.id, Number(row.at)]));
}

/** The pending sessions runs wait on: run id and external id. */
export async function waitingSessions(db: Database['db']) {
  const rows = await db.execute<{ run: string; external: string }>(
    sql`select workflow_run_id as run, external_id as external from app_callbacks
        where status = 'pending' and workflow_run_id is not null order by created_at`,
  );
  return rows.rows.map((row) => ({ runId: row.run, externalId: row.external }));
}

/**
 * Copies waiting runs: `count` new runs, each a copy of one of `templates` (round robin) with new ids —
 * its run row (its context's `<outputKey>ExternalId` the copy's own), its steps, its pending session (a
 * new external id), its pending invocation record, and the engine's rows of its ended workflow
 * (dbos.workflow_status, dbos.operation_outputs), so the database holds what that many real waiting
 * runs leave. Rows are copied whole through jsonb (every column, whatever the schema adds), the ids
 * replaced. One transaction a batch; answers the copies' external ids.
 */
export async function copyWaitingRuns(
  database: Database,
  templates: string[],
  count: number,
  externalKey: string,
  batch = 5_000,
): Promise<string[]> {
  const externals: string[] = [];
  for (let done = 0; done < count; done += batch) {
    const n = Math.min(batch, count - done);
    const template = Array.from({ length: n }, (_, i) => templates[(done + i) % templates.length] as string);
    const run = template.map(() => randomUUID());
    const session = template.map(() => randomUUID());
    const external = template.map((_, i) => `copy-${done + i}-${randomUUID().slice(0, 8)}`);
    externals.push(...external);
    const map = sql`(select * from unnest(${sql.param(template)}::uuid[], ${sql.param(run)}::uuid[], ${sql.param(session)}::uuid[], ${sql.param(external)}::text[])
      as m(template, run, session, external))`;
    // Each table: its rows of the templates, joined to the new ids, whole through jsonb with the ids
    // replaced (lateral: a function's `.*` in the select list would run it once a column).
    const copies: [table: string, join: string, replaced: string][] = [
      [
        'workflow_runs',
        't.id = m.template',
        `'id', m.run, 'context', t.context || jsonb_build_object('${externalKey}', m.external)`,
      ],
      ['workflow_run_steps', 't.run_id = m.template', `'run_id', m.run`],
      [
        'app_callbacks',
        't.workflow_run_id = m.template',
        `'id', m.session, 'workflow_run_id', m.run, 'external_id', m.external`,
      ],
      [
        'app_invocations',
        't.workflow_run_id = m.template',
        `'id', gen_random_uuid(), 'workflow_run_id', m.run`,
      ],
      ['dbos.workflow_status', 't.workflow_uuid = m.template::text', `'workflow_uuid', m.run::text`],
      ['dbos.operation_outputs', 't.workflow_uuid = m.template::text', `'workflow_uuid', m.run::text`],
    ];
    await insertCopies(database, map, copies);
  }
  return externals;
}

/**
 * Copies ended runs: `count` new runs, each a copy of one of `templates` (completed runs, round robin) with
 * a new id — its run row and steps, and every engine row of its workflows (its own, `<runId>`, and its
 * continuation's, `<runId>:<sessionId>`: status, input, output, steps), the workflow ids' run part
 * replaced. So the engine's tables hold what that many runs ended over months leave. One transaction a
 * batch; answers nothing (the copies are only weight).
 */
export async function copyEndedRuns(database: Database, templates: string[], count: number, batch = 5_000) {
  for (let done = 0; done < count; done += batch) {
    const n = Math.min(batch, count - done);
    const template = Array.from({ length: n }, (_, i) => templates[(done + i) % templates.length] as string);
    const run = template.map(() => randomUUID());
    const map = sql`(select * from unnest(${sql.param(template)}::uuid[], ${sql.param(run)}::uuid[]) as m(template, run))`;
    const workflowId = `m.run::text || substr(t.workflow_uuid, 37)`;
    const copies: [table: string, join: string, replaced: string][] = [
      ['workflow_runs', 't.id = m.template', `'id', m.run`],
      ['workflow_run_steps', 't.run_id = m.template', `'run_id', m.run`],
      ...['workflow_status', 'workflow_input', 'workflow_output', 'operation_outputs'].map(
        (table): [string, string, string] => [
          `dbos.${table}`,
          'left(t.workflow_uuid, 36) = m.template::text',
          `'workflow_uuid', ${workflowId}`,
        ],
      ),
    ];
    await insertCopies(database, map, copies);
  }
}

/**
 * For each `[table, join, replaced]`: the rows of `table` that `join` matches to the map `m` (template →
 * copy), inserted again with the fields `replaced` names set from the map. One transaction.
 */
async function insertCopies(
  database: Database,
  map: SQL,
  copies: [table: string, join: string, replaced: string][],
) {
  await database.db.transaction(async (tx) => {
    for (const [table, join, replaced] of copies) {
      await tx.execute(
        sql
          .raw(`insert into ${table} select r.* from ${table} t join `)
          .append(map)
          .append(
            sql.raw(
              ` m on ${join} cross join lateral jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object(${replaced})) r`,
            ),
          ),
      );
    }
  });
}
