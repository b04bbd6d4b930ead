// The engine's own tables (docs/retention.md "The engine's workflows"): DBOS keeps every workflow it ran —
// its status row, its input, its output and each step's checkpoint — until told to delete it, and its
// queue queries read the status table. A workflow the platform no longer needs goes, through DBOS's own
// API (DBOS.deleteWorkflows, which knows its tables): one that ended (SUCCESS, ERROR, CANCELLED,
// MAX_RECOVERY_ATTEMPTS_EXCEEDED) more than RETENTION_ENGINE_HOURS ago and is either a run's whose run has
// ended (nothing moves the run again, so nothing reads its workflows) or a worker's self-check. A
// workflow still enqueued, delayed or running is never chosen, nor one of a run still open (a run waiting
// on a vendor session keeps the workflow that opened its wait).
import { DBOS } from '@dbos-inc/dbos-sdk';
import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { runOfWorkflowEnded } from '../runs/index.ts';
import { ENDED_WORKFLOW, ENGINE_SCHEMA, SELF_CHECK_WORKFLOW } from '../worker/engine.ts';

/** What the pass's log line counts the workflows deleted under (their status rows, the rest with them). */
export const ENGINE_TARGET = 'dbos.workflow_status';

/** The engine's API for deleting workflows: DBOS's in a worker, a DBOSClient's elsewhere (the bench). */
export interface EngineWorkflows {
  deleteWorkflows(workflowIds: string[]): Promise<void>;
}

/** The launched engine of this process (the worker's). */
export const launchedEngine: EngineWorkflows = {
  deleteWorkflows: (workflowIds) => DBOS.deleteWorkflows(workflowIds),
};

const ENDED = sql.join(
  [...ENDED_WORKFLOW].map((status) => sql`${status}`),
  sql`, `,
);

/**
 * Up to `size` workflows the platform no longer needs that ended before the cut-off, those that ended
 * first first (idx_workflow_status_completed_at).
 */
export async function dueWorkflows(db: Queryable, cutoff: Date, size: number): Promise<string[]> {
  const w = sql.identifier(ENGINE_SCHEMA);
  const { rows } = await db.execute<{ id: string }>(sql`
    select w.workflow_uuid as id
    from ${w}.workflow_status w
    where w.completed_at < ${cutoff.getTime()} and w.status in (${ENDED})
      and (w.name = ${SELF_CHECK_WORKFLOW} or ${runOfWorkflowEnded(sql`w.workflow_uuid`)})
    order by w.completed_at
    limit ${size}`);
  return rows.map((row) => row.id);
}

/**
 * One batch: the due workflows chosen, then deleted by the engine (its own transaction: status, input,
 * output and steps together). Answers how many it chose. Two workers sweeping at once may choose the same
 * ones; the second deletion finds them gone and changes nothing.
 */
export async function deleteDueWorkflows(
  db: Queryable,
  engine: EngineWorkflows,
  cutoff: Date,
  size: number,
): Promise<number> {
  const due = await dueWorkflows(db, cutoff, size);
  if (due.length > 0) await engine.deleteWorkflows(due);
  return due.length;
}
