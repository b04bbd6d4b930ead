// The sweep (docs/runs.md "The sweep"): a run whose row still says running while its DBOS workflow can no
// longer move it — the workflow ended (ERROR, CANCELLED, SUCCESS, MAX_RECOVERY_ATTEMPTS_EXCEEDED), or there
// is none a grace period after the run was written — ends failed `internal`, audited. The worker sweeps
// at start-up and every minute. Ending is idempotent (failOpenRun), so two workers sweeping together end
// a run once. Each pass also deletes Idempotency-Keys past their window (they answer nothing any more).
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../db/pool.ts';
import { ENDED_WORKFLOW, ENGINE_SCHEMA } from '../worker/engine.ts';
import type { RunError } from './model.ts';
import { failOpenRun } from './run-store.ts';
import { runKeyLapsed, workflowRunKeys, workflowRuns } from './tables.ts';

export const SWEEP_INTERVAL_MS = 60_000;
/** How long a run may be without a workflow: the api enqueues it right after writing it, in milliseconds. */
export const NO_WORKFLOW_GRACE_MS = 120_000;
/** Open runs read at a time. */
const PAGE = 500;

export interface OpenRun {
  id: string;
  /** running, or waiting_callback: a run waiting on a vendor session has no workflow until it settles. */
  status: string;
  createdAt: Date;
  /** The DBOS status of the workflow moving the run (its own, or its continuation's); null: none. */
  workflowStatus: string | null;
}

export type Verdict = { end: false } | { end: true; error: RunError };

/** Whether an open run is stranded, and the error it then ends with. */
export function strandedVerdict(
  run: Pick<OpenRun, 'status' | 'createdAt' | 'workflowStatus'>,
  now: number,
  graceMs = NO_WORKFLOW_GRACE_MS,
): Verdict {
  // Its session's wait bounds it, and the resumer moves it on (resumer.ts): never stranded here.
  if (run.status === 'waiting_callback') return { end: false };
  const { workflowStatus } = run;
  if (workflowStatus === null) {
    return now - run.createdAt.getTime() >= graceMs ? { end: true, error: stranded(null) } : { end: false };
  }
  return ENDED_WORKFLOW.has(workflowStatus) ? { end: true, error: stranded(workflowStatus) } : { end: false };
}

const stranded = (workflowStatus: string | null): RunError => ({
  code: 'internal',
  message:
    workflowStatus === null
      ? 'the run’s workflow never started; the sweep ended the run'
      : `the run’s workflow ended (${workflowStatus}) without ending the run; the sweep ended it`,
  details: { reason: 'stranded', workflowStatus },
});

export interface SweepDeps {
  database: Database;
  logger: Logger;
  /** The clock the grace period is read on. */
  now?: () => number;
  graceMs?: number;
}

/** One pass over every open run, in pages; answers the ids of the runs it ended. */
export async function sweepStrandedRuns(deps: SweepDeps): Promise<string[]> {
  const now = (deps.now ?? Date.now)();
  const ended: string[] = [];
  for (let after: string | null = null; ; ) {
    const page = await openRuns(deps.database, after);
    for (const run of page) {
      const verdict = strandedVerdict(run, now, deps.graceMs);
      if (verdict.end && (await failOpenRun(deps.database, run.id, verdict.error))) ended.push(run.id);
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.id ?? null;
  }
  if (ended.length > 0) deps.logger.warn({ runIds: ended }, 'the sweep ended stranded runs');
  return ended;
}

/**
 * Running runs after `after` (by id) with their workflow's status (workflow_runs_running_idx). Runs
 * waiting on a vendor session are not read: the resumer bounds them, and tens of thousands may wait.
 */
async function openRuns(database: Database, after: string | null): Promise<OpenRun[]> {
  const result = await database.db.execute<{
    id: string;
    run_status: string;
    created_at: Date | string;
    status: string | null;
  }>(sql`
    select r.id, r.status as run_status, r.created_at, w.status
    from ${workflowRuns} r
    left join ${sql.identifier(ENGINE_SCHEMA)}.workflow_status w
      on w.workflow_uuid = coalesce(r.workflow_id, r.id::text)
    where r.status = 'running' ${after === null ? sql`` : sql`and r.id > ${after}`}
    order by r.id
    limit ${PAGE}`);
  return result.rows.map((row) => ({
    id: row.id,
    status: row.run_status,
    createdAt: new Date(row.created_at),
    workflowStatus: row.status,
  }));
}

/** Lapsed keys deleted by one statement: a pass deletes them all, a batch at a time. */
const KEY_BATCH = 1_000;

/**
 * Deletes the Idempotency-Keys older than their window; answers how many. A key a start took over
 * meanwhile is kept: the delete checks the age again on the row it locks.
 */
export async function forgetLapsedRunKeys(database: Database): Promise<number> {
  let forgotten = 0;
  for (;;) {
    const result = await database.db.execute(sql`
      delete from ${workflowRunKeys}
      where ${runKeyLapsed} and (${workflowRunKeys.tenantId}, ${workflowRunKeys.key}) in (
        select ${workflowRunKeys.tenantId}, ${workflowRunKeys.key} from ${workflowRunKeys}
        where ${runKeyLapsed} limit ${KEY_BATCH})`);
    const deleted = result.rowCount ?? 0;
    forgotten += deleted;
    if (deleted < KEY_BATCH) return forgotten;
  }
}

export interface RunSweep {
  stop(): Promise<void>;
}

/**
 * Sweeps (stranded runs, then lapsed keys) now and every `intervalMs`, a pass at a time; a failed pass is
 * logged and the next one tries.
 */
export function startRunSweep(deps: SweepDeps & { intervalMs?: number }): RunSweep {
  let pass: Promise<void> | null = null;
  const sweep = () => {
    pass ??= sweepStrandedRuns(deps)
      .then(() => forgetLapsedRunKeys(deps.database))
      .then(() => undefined)
      .catch((error: unknown) => deps.logger.error({ err: error }, 'the run sweep failed'))
      .finally(() => {
        pass = null;
      });
  };
  sweep();
  const timer = setInterval(sweep, deps.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pass;
    },
  };
}
