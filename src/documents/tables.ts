// Subjects' documents (docs/documents.md): one row per upload, its bytes in object storage under
// `<tenantId>/<id>`. The row is written after the bytes, so a row always has bytes behind it (an object
// whose row never came is an orphan no one reads).
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';
import type { DocumentStatus, RejectionReason } from './check-rules.ts';

export const subjectDocuments = pgTable(
  'subject_documents',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    /** The subject as the tenant names it (as a run's subjectId). */
    subjectId: text('subject_id').notNull(),
    name: text('name').notNull(),
    /** The declared type's essence (`application/pdf`), one the check knows. */
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    /** Hex SHA-256 of the bytes as uploaded; reads refuse stored bytes that no longer match it. */
    sha256: text('sha256').notNull(),
    status: text('status').$type<DocumentStatus>().notNull().default('pending'),
    /** Why the check rejected it; null unless rejected. */
    reason: text('reason').$type<RejectionReason>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    checkedAt: timestamptz('checked_at'),
    createdBy: text('created_by').notNull(),
  },
  (t) => [
    index('subject_documents_subject_idx').on(t.tenantId, t.subjectId, t.createdAt),
    // The check's sweep reads the pending ones oldest first: small, since documents leave pending.
    index('subject_documents_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending'`),
    check('subject_documents_status_check', sql`${t.status} in ('pending', 'clean', 'rejected')`),
    check('subject_documents_reason_check', sql`(${t.status} = 'rejected') = (${t.reason} is not null)`),
  ],
);
