// Tenants: looked up by id for every request, created by `platform token`, settings read and saved here.
import { eq, sql } from 'drizzle-orm';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Db, Queryable } from '../db/pool.ts';
import { preparedOn } from '../db/prepared.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { defaultTenantSettings } from './default-settings.ts';
import type { TenantSettings } from './settings.ts';
import { tenants } from './tables.ts';

export type Tenant = typeof tenants.$inferSelect;

export const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;

export async function findTenantById(db: Queryable, id: string): Promise<Tenant | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id));
  return row ?? null;
}

/** The tenant of every authenticated request: findTenantById as a query prepared on the pool. */
export async function lookupTenant(db: Db, id: string): Promise<Tenant | null> {
  const [row] = await tenantById(db).execute({ id });
  return row ?? null;
}

const tenantById = preparedOn((db) =>
  db
    .select()
    .from(tenants)
    .where(eq(tenants.id, sql.placeholder('id')))
    .prepare('tenant_by_id'),
);

export async function findTenantByName(db: Queryable, name: string): Promise<Tenant | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.name, name));
  return row ?? null;
}

/**
 * Returns the tenant of that name, creating it with default settings when new (races end in one row).
 * New tenants start under the operator's review as APP_REVIEW_DEFAULT says.
 */
export async function ensureTenant(
  db: Queryable,
  name: string,
  options: { appReview?: 'off' | 'required' } = {},
): Promise<{ tenant: Tenant; created: boolean }> {
  if (!TENANT_NAME.test(name)) throw new Error('tenant name: 1 to 100 lower-case letters, digits or hyphens');
  const [inserted] = await db
    .insert(tenants)
    .values({ name, settings: defaultTenantSettings(), appReview: options.appReview ?? 'off' })
    .onConflictDoNothing({ target: tenants.name })
    .returning();
  if (inserted) return { tenant: inserted, created: true };
  const [existing] = await db.select().from(tenants).where(eq(tenants.name, name));
  if (!existing) throw new Error(`tenant ${name} vanished while being created`);
  return { tenant: existing, created: false };
}

export async function updateTenantSettings(
  database: Database,
  principal: AuthenticatedPrincipal,
  settings: TenantSettings,
  requestId: string,
): Promise<TenantSettings> {
  return database.db.transaction(async (tx) => {
    // Lock the row so two saves cannot both audit the same "before".
    const [current] = await tx.select().from(tenants).where(eq(tenants.id, principal.tenantId)).for('update');
    if (!current) throw new Error('tenant of an authenticated principal is missing');
    await tx
      .update(tenants)
      .set({ settings, updatedAt: new Date() })
      .where(eq(tenants.id, principal.tenantId));
    await recordAudit(tx, {
      tenantId: principal.tenantId,
      action: 'tenant.settings.updated',
      actor: actorOf(principal),
      resource: { type: 'tenant', id: principal.tenantId },
      data: { before: current.settings, after: settings },
      requestId,
    });
    return settings;
  });
}
