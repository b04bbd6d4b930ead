import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz, xid8 } from '../db/columns.ts';

/**
 * The audit trail: one row per recorded change, written in the change's own transaction.
 * tenant_id is null for the operator's instance trail. id only grows, so readers page by it; it is one
 * sequence for every tenant and never leaves the platform (a tenant would count the others' records
 * between two of its own). public_id is the id answers carry: a version 7 UUID, the time of writing to
 * the millisecond then random bits (audit_uuid_v7, migration 0019). xact_id is the writing transaction's
 * id: ids are given out at insert and rows commit in another order, so a follower of the trail reads by
 * transaction below the oldest one still running (outbound-webhooks/fan-out/fan-out-store.ts).
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    publicId: uuid('public_id').notNull().default(sql`audit_uuid_v7(clock_timestamp())`),
    tenantId: uuid('tenant_id'),
    action: text('action').notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name'),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    requestId: text('request_id'),
    occurredAt: timestamptz('occurred_at').notNull().defaultNow(),
    xactId: xid8('xact_id').notNull().default(sql`pg_current_xact_id()`),
  },
  (table) => [
    index('audit_events_tenant_id_idx').on(table.tenantId, table.id.desc()),
    index('audit_events_tenant_action_idx').on(
      table.tenantId,
      sql`${table.action} text_pattern_ops`,
      table.id,
    ),
    index('audit_events_occurred_at_idx').on(table.occurredAt),
    index('audit_events_xact_id_idx').on(table.xactId),
    uniqueIndex('audit_events_public_id_idx').on(table.publicId),
  ],
);
