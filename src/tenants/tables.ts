import { jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns.ts';
import type { TenantSettings } from './settings.ts';

export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  settings: jsonb('settings').$type<TenantSettings>().notNull(),
  /** Operator review of the tenant's module publishes (APP_REVIEW_DEFAULT for new tenants). */
  appReview: text('app_review').$type<'off' | 'required'>().notNull().default('off'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
