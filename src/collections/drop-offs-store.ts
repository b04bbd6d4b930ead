// Drop-off events of the collection terminal (docs/handoff.md "Drop-off events"): the applicant's page
// reports the step of the flow at which the applicant left, with the token of their link. They feed the
// flow's funnel (GET /stats/flows/:key/funnel, another part of the product) and are kept
// RETENTION_SUBMISSION_EVENT_DAYS, at least 90 days, then swept (src/retention/retention.ts). One event per
// submission and step: a repeat is the same drop-off and keeps its first report. A submission holds at most
// MAX_DROP_OFF_STEPS of them, so an applicant's page cannot fill the table.
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { conflict } from '../http/errors.ts';
import { applicantSubmission } from './submissions-store.ts';
import { collectionDropOffEvents } from './tables.ts';

/** The distinct steps one submission may report a drop-off at. */
export const MAX_DROP_OFF_STEPS = 100;

export interface DropOffEvent {
  submissionId: string;
  step: string;
  reportedAt: string;
}

/** Records the drop-off, or finds the one already reported at that step (created: false). */
export async function reportDropOff(
  database: Database,
  principal: AuthenticatedPrincipal,
  submissionId: string,
  step: string,
): Promise<{ created: boolean; event: DropOffEvent }> {
  const submission = await applicantSubmission(database.db, principal, submissionId);
  const scope = and(
    eq(collectionDropOffEvents.tenantId, submission.tenantId),
    eq(collectionDropOffEvents.submissionId, submission.id),
  );
  const viewOf = (row: { step: string; reportedAt: Date }): DropOffEvent => ({
    submissionId: submission.id,
    step: row.step,
    reportedAt: row.reportedAt.toISOString(),
  });
  const [reported] = await database.db
    .select()
    .from(collectionDropOffEvents)
    .where(and(scope, eq(collectionDropOffEvents.step, step)));
  if (reported) return { created: false, event: viewOf(reported) };
  // The cap is read in the insert itself; two steps at once may pass it by one, which is no harm.
  const under = sql`(select count(*) from ${collectionDropOffEvents} where ${scope}) < ${MAX_DROP_OFF_STEPS}`;
  const inserted = await database.db.execute<{ step: string; reported_at: string }>(
    sql`insert into ${collectionDropOffEvents} (tenant_id, submission_id, step)
        select ${submission.tenantId}, ${submission.id}, ${step} where ${under}
        on conflict (submission_id, step) do nothing
        returning step, reported_at`,
  );
  const row = inserted.rows[0];
  if (row) return { created: true, event: viewOf({ step: row.step, reportedAt: new Date(row.reported_at) }) };
  const [raced] = await database.db
    .select()
    .from(collectionDropOffEvents)
    .where(and(scope, eq(collectionDropOffEvents.step, step)));
  if (raced) return { created: false, event: viewOf(raced) };
  throw conflict(`a submission reports drop-offs at ${MAX_DROP_OFF_STEPS} steps at most`, {
    max: MAX_DROP_OFF_STEPS,
  });
}
