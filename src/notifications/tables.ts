import { index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';

/**
 * Console notifications. A notification goes to the holders of a permission in a tenant (audience), or
 * to one principal (recipient); read marks are per principal.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    kind: text('kind').notNull(),
    audiencePermission: text('audience_permission'),
    recipient: text('recipient'),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [index('notifications_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const notificationReads = pgTable(
  'notification_reads',
  {
    notificationId: uuid('notification_id').notNull(),
    principal: text('principal').notNull(),
    readAt: timestamptz('read_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.notificationId, t.principal] })],
);
