import { jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { TenantSettings } from './settings.ts';

export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  settings: jsonb('settings').$type<TenantSettings>().notNull(),
  /** Operator review of the tenant's module publishes (APP_REVIEW_DEFAULT for new tenants). */
  appReview: text('app_review').$type<'off' | 'required'>().notNull().default('off'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
