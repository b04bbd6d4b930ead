// The resumer (docs/runs.md "Waiting on a vendor session"): what makes every waiting run end. Each worker, every second:
// sessions whose run's wait is over time out (a conditional UPDATE, skipping rows another worker holds),
// and every settled session whose run has not moved on gets its continuation started — idempotent by
// workflow id, so the webhook that settled it, a second worker and this pass start it once; a session
// whose continuation is already enqueued or running is left to it. A
// continuation that ended without taking its run (cancelled in the engine, out of recovery attempts)
// leaves the run stranded: it ends failed `internal` here. Idle, a pass is two indexed queries.
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../db/pool.ts';
import { ENDED_WORKFLOW, ENGINE_SCHEMA } from '../worker/engine.ts';
import { markResumed, timeOutDueSessions } from './session-store.ts';
import { appCallbacks } from './tables.ts';

export const RESUME_INTERVAL_MS = 1_000;
/** Sessions taken a pass, of each kind. */
const BATCH = 500;

export interface ResumerDeps {
  database: Database;
  logger: Logger;
  /** Starts the run's continuation for the session (runs/workflows.ts startContinuation). */
  resume(runId: string, sessionId: string): Promise<void>;
  /** Ends a stranded run failed, if it is still open (runs/run-store.ts failOpenRun). */
  failRun(runId: string, error: StrandedError): Promise<unknown>;
}

/** The error a stranded run ends with. */
export interface StrandedError {
  code: 'internal';
  message: string;
  details: { reason: 'stranded'; workflowStatus: string };
}

export interface ResumePass {
  timedOut: number;
  resumed: number;
  stranded: number;
}

/** One pass: waits that are over time out, then each settled session's run is moved on. */
export async function resumePass(deps: ResumerDeps): Promise<ResumePass> {
  const timedOut = (await timeOutDueSessions(deps.database.db, BATCH)).length;
  let resumed = 0;
  let stranded = 0;
  for (const session of await settledSessions(deps.database)) {
    if (session.continuation !== null && ENDED_WORKFLOW.has(session.continuation)) {
      await deps.failRun(session.runId, {
        code: 'internal',
        message: `the run’s continuation ended (${session.continuation}) without moving it on`,
        details: { reason: 'stranded', workflowStatus: session.continuation },
      });
      await markResumed(deps.database.db, session.id);
      stranded++;
      continue;
    }
    await deps.resume(session.runId, session.id);
    resumed++;
  }
  return { timedOut, resumed, stranded };
}

interface SettledSession {
  id: string;
  runId: string;
  /** The DBOS status of its continuation; null: not started yet. */
  continuation: string | null;
}

/**
 * Settled sessions no continuation has taken, with their continuation's status (app_callbacks_unresumed_idx):
 * none started yet, or one that ended. A continuation enqueued or running (the webhook's wake, a pass before
 * this one) is on its way: starting it again would only repeat its enqueue.
 */
async function settledSessions(database: Database): Promise<SettledSession[]> {
  const c = appCallbacks;
  const ended = sql.join(
    [...ENDED_WORKFLOW].map((status) => sql`${status}`),
    sql`, `,
  );
  const result = await database.db.execute<{ id: string; run_id: string; status: string | null }>(sql`
    select c.id, c.workflow_run_id as run_id, w.status
    from ${c} c
    left join ${sql.identifier(ENGINE_SCHEMA)}.workflow_status w
      on w.workflow_uuid = c.workflow_run_id::text || ':' || c.id::text
    where c.status <> 'pending' and c.resumed_at is null and c.workflow_run_id is not null
      and (w.status is null or w.status in (${ended}))
    limit ${BATCH}`);
  return result.rows.map((row) => ({ id: row.id, runId: row.run_id, continuation: row.status }));
}

export interface Resumer {
  stop(): Promise<void>;
}

/** Passes now and every `intervalMs`, one at a time; a failed pass is logged and the next one tries. */
export function startResumer(deps: ResumerDeps & { intervalMs?: number }): Resumer {
  let pass: Promise<void> | null = null;
  const run = () => {
    pass ??= resumePass(deps)
      .then((done) => {
        if (done.timedOut > 0 || done.stranded > 0)
          deps.logger.info(done, 'the resumer moved waiting runs on');
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, 'the resumer’s pass failed'))
      .finally(() => {
        pass = null;
      });
  };
  run();
  const timer = setInterval(run, deps.intervalMs ?? RESUME_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pass;
    },
  };
}
