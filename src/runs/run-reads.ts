// What other layers read of a tenant's run, so that none of them queries the runs' tables: a submission
// is made for a run's subject, a run's deliveries are listed only while the tenant has it, and the
// hand-off looks at a run's sessions only while the run waits on one.
import { and, eq, sql } from 'drizzle-orm';
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
