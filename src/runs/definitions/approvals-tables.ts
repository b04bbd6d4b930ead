// Approvals of definitions (docs/runs.md "Approvals of definitions"): a publish held for another holder of
// definitions:publish. The request pins the draft version it was asked for; at most one is open per
// definition (a partial unique index), and while it is open the draft does not change.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../../db/columns.ts';
import type { DefinitionKind } from '../model.ts';
import { definitions, definitionVersions } from '../tables.ts';

export type ApprovalStatus = 'open' | 'approved' | 'rejected' | 'withdrawn';
/** What opened the request: a publish, or a rename's rewrite publish (docs/runs.md "Who calls an install"). */
export type ApprovalOrigin = 'publish' | 'rename';

export const definitionApprovals = pgTable(
  'definition_approvals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    definitionId: uuid('definition_id')
      .notNull()
      .references(() => definitions.id, { onDelete: 'cascade' }),
    /** The definition's kind and key (neither ever changes): the list filters on them. */
    kind: text('kind').$type<DefinitionKind>().notNull(),
    key: text('key').notNull(),
    /** The pinned version: the draft when requested, published by the approval. */
    versionId: uuid('version_id')
      .notNull()
      .references(() => definitionVersions.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    status: text('status').$type<ApprovalStatus>().notNull().default('open'),
    origin: text('origin').$type<ApprovalOrigin>().notNull(),
    /** The tenant's four-eyes setting in force when requested, which the decision follows. */
    fourEyes: boolean('four_eyes').notNull(),
    requestedBy: text('requested_by').notNull(),
    requestedByName: text('requested_by_name'),
    requestedAt: timestamptz('requested_at').notNull().defaultNow(),
    decidedBy: text('decided_by'),
    decidedAt: timestamptz('decided_at'),
    /** The decider's comment (approve, reject), or null. */
    comment: text('comment'),
  },
  (t) => [
    uniqueIndex('definition_approvals_one_open').on(t.definitionId).where(sql`${t.status} = 'open'`),
    index('definition_approvals_tenant_idx').on(t.tenantId, t.status, t.requestedAt),
  ],
);
