// Collection submissions (docs/handoff.md): what an applicant is asked to fill in for one workflow run of
// a subject. The platform keeps only what the apps area needs of them: whose they are, the run whose
// vendor sessions may hand the applicant off, and whether the applicant's link went out (sent). Not tied
// to the run's row: a submission is read by id and tenant, its run looked up when needed.
import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
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
  },
  (t) => [
    index('collection_submissions_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('collection_submissions_run_idx').on(t.workflowRunId),
  ],
);
