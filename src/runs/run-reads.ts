// What other layers read of a tenant's run, so that none of them queries the runs' tables: a submission
// is made for a run's subject, a run's deliveries are listed only while the tenant has it, the hand-off
// looks at a run's sessions only while the run waits on one, and the retention sweep deletes the engine's
// workflows of a run once the run has ended.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { workflowRuns } from './tables.ts';

/** The subject of the tenant's run; null: the tenant has no run of that id. */
export async function runSubjectOf(db: Queryable, tenantId: string, runId: string): Promise<string | null> {
  const [run] = await db
    .select({ subjectId: workflowRuns.subjectId })
    .from(workflowRuns)
    .where(and(eq(workflowRuns.tenantId, tenantId), eq(workflowRuns.id, runId)));
  return run?.subjectId ?? null;
}

/**
 * A subquery with a row while the tenant's run waits on a vendor session (status waiting_callback), for
 * `exists (…)` in the reader's own query: the wait is read in the same statement as what depends on it.
 */
export const runWaitingOnSession = (db: Queryable, tenantId: string, runId: string) =>
  db
    .select({ one: sql`1` })
    .from(workflowRuns)
    .where(
      and(
        eq(workflowRuns.tenantId, tenantId),
        eq(workflowRuns.id, runId),
        eq(workflowRuns.status, 'waiting_callback'),
      ),
    );

/** A uuid, then the end or `:` and whatever follows: the id of a run's workflow (workflows.ts names them). */
const RUN_WORKFLOW_ID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:|$)';

/**
 * A condition on an engine workflow's id (`workflowId`, a column of the reader's query): the workflow is
 * one of a run's — its own (the run's id), a call_app child (`<runId>:<stepId>`) or a continuation
 * (`<runId>:<sessionId>`) — and that run has ended (completed, failed or cancelled): nothing moves it any
 * more, so nothing reads its workflows.
 */
export const runOfWorkflowEnded = (workflowId: SQL) => sql`exists (
  select from ${workflowRuns} r
  where r.id = (case when ${workflowId} ~ ${RUN_WORKFLOW_ID} then left(${workflowId}, 36)::uuid end)
    and r.status in ('completed', 'failed', 'cancelled'))`;
