import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';
import type { Manifest } from '../module/index.ts';

/** One immutable module per publisher, name and version. tenant_id is null for platform versions. */
export const appVersions = pgTable(
  'app_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    publisher: text('publisher').$type<'platform' | 'tenant'>().notNull(),
    tenantId: uuid('tenant_id'),
    platformSource: text('platform_source').$type<'release' | 'operator' | null>(),
    name: text('name').notNull(),
    version: text('version').notNull(),
    status: text('status').$type<'uploaded' | 'published' | 'withdrawn'>().notNull(),
    sha256: text('sha256').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    manifest: jsonb('manifest').$type<Manifest>().notNull(),
    provenance: jsonb('provenance').$type<Record<string, unknown> | null>(),
    uploadedBy: text('uploaded_by'),
    /** Set when the operator withdrew a platform version: a release never republishes it. */
    withdrawnByOperator: boolean('withdrawn_by_operator').notNull().default(false),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    publishedAt: timestamptz('published_at'),
    withdrawnAt: timestamptz('withdrawn_at'),
  },
  (t) => [
    unique('app_versions_publisher_name_version').on(t.tenantId, t.name, t.version).nullsNotDistinct(),
    index('app_versions_name_idx').on(t.name),
    index('app_versions_sha256_idx').on(t.sha256),
  ],
);

/** A tenant's request to publish its own version while approvals are required. */
export const appPublishRequests = pgTable(
  'app_publish_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    versionId: uuid('version_id').notNull(),
    status: text('status').$type<'pending' | 'approved' | 'rejected' | 'withdrawn'>().notNull(),
    /** Four-eyes as the tenant's settings said when the request was made; the decision follows it. */
    fourEyes: boolean('four_eyes').notNull(),
    requestedBy: text('requested_by').notNull(),
    requestedByName: text('requested_by_name'),
    requestedAt: timestamptz('requested_at').notNull().defaultNow(),
    decidedBy: text('decided_by'),
    decidedAt: timestamptz('decided_at'),
    comment: text('comment'),
  },
  (t) => [
    uniqueIndex('app_publish_requests_one_open').on(t.versionId).where(sql`${t.status} = 'pending'`),
    index('app_publish_requests_tenant_idx').on(t.tenantId, t.status, t.requestedAt),
  ],
);

/** The operator's review of a tenant's version while the tenant is under review. */
export const appReviews = pgTable(
  'app_reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    versionId: uuid('version_id').notNull(),
    status: text('status').$type<'pending' | 'approved' | 'rejected' | 'withdrawn'>().notNull(),
    requestedBy: text('requested_by').notNull(),
    requestedAt: timestamptz('requested_at').notNull().defaultNow(),
    decidedBy: text('decided_by'),
    decidedAt: timestamptz('decided_at'),
    comment: text('comment'),
  },
  (t) => [
    uniqueIndex('app_reviews_one_pending').on(t.versionId).where(sql`${t.status} = 'pending'`),
    index('app_reviews_version_idx').on(t.versionId, t.requestedAt),
  ],
);

/**
 * Operator blocks: a module by hash, or every version of a publisher's app (tenant id, or null for the
 * platform, with the app name). A block is lifted by setting lifted_at; it is not a version status.
 */
export const appBlocks = pgTable(
  'app_blocks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sha256: text('sha256'),
    publisherTenantId: uuid('publisher_tenant_id'),
    publisher: text('publisher').$type<'platform' | 'tenant'>(),
    appName: text('app_name'),
    reason: text('reason').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    liftedBy: text('lifted_by'),
    liftedAt: timestamptz('lifted_at'),
  },
  (t) => [index('app_blocks_sha256_idx').on(t.sha256), index('app_blocks_app_idx').on(t.appName)],
);
