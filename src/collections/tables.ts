// Collection submissions (docs/handoff.md): what an applicant is asked to fill in for one workflow run of
// a subject. The platform keeps only what the apps area needs of them: whose they are, the run whose
// vendor sessions may hand the applicant off, whether the applicant's link went out (sent), and the
// collection terminal's reports about them (an expired link's request for a new one, drop-off events).
// Not tied to the run's row: a submission is read by id and tenant, its run looked up when needed.
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';

/** open: created, the link not sent yet; sent: the applicant has the link (hand-off may start). */
export type SubmissionStatus = 'open' | 'sent';

export const collectionSubmissions = pgTable(
  'collection_submissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    subjectId: text('subject_id').notNull(),
    workflowRunId: uuid('workflow_run_id').notNull(),
    status: text('status').$type<SubmissionStatus>().notNull().default('open'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    /** The audit actor id of its creator (a user or a machine). */
    createdBy: text('created_by').notNull(),
    /** When it was first sent; null while open. */
    sentAt: timestamptz('sent_at'),
    /** When its applicant last asked for a new link (an audited request); null: never. */
    linkRequestedAt: timestamptz('link_requested_at'),
  },
  (t) => [
    index('collection_submissions_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('collection_submissions_run_idx').on(t.workflowRunId),
  ],
);

/**
 * Drop-off events of the collection terminal: the applicant left the flow at a step. One per submission
 * and step (a repeat is the same drop-off); kept RETENTION_SUBMISSION_EVENT_DAYS (at least 90), then swept.
 */
export const collectionDropOffEvents = pgTable(
  'collection_drop_off_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    submissionId: uuid('submission_id').notNull(),
    /** The flow's step the applicant left at, as the terminal names it. */
    step: text('step').notNull(),
    reportedAt: timestamptz('reported_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('collection_drop_off_events_submission_step_idx').on(t.submissionId, t.step),
    index('collection_drop_off_events_tenant_reported_idx').on(t.tenantId, t.reportedAt),
  ],
);
