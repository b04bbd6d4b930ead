// The operator's quotas of a tenant (docs/limits-and-metering.md "Operator quotas"):
// calls or http_requests per UTC day or month over all the tenant's installs, read-only for tenants.
// The ops command calls these; a change applies from the next call (the check reads quotas every time).
import { and, asc, eq, type Placeholder, sql } from 'drizzle-orm';
import { recordInBothTrails } from '../audit/both-trails.ts';
import type { Actor } from '../audit/trail.ts';
import type { Queryable } from '../db/pool.ts';
import { validationError } from '../http/errors.ts';
import type { BudgetPeriod } from '../installs/index.ts';
import { BUDGET_PERIODS, QUOTA_METRICS, type QuotaMetric, type TenantQuota } from './quotas.ts';
import { appTenantQuotas } from './tables.ts';

export async function tenantQuotasOf(db: Queryable, tenantId: string): Promise<TenantQuota[]> {
  return db
    .select({ metric: appTenantQuotas.metric, period: appTenantQuotas.period, max: appTenantQuotas.max })
    .from(appTenantQuotas)
    .where(eq(appTenantQuotas.tenantId, tenantId))
    .orderBy(asc(appTenantQuotas.metric), asc(appTenantQuotas.period));
}

/**
 * The tenant's quotas as one JSON value, in tenantQuotasOf's order: a subquery a call's other reads take
 * along (call-install.ts resolveCall), so the quota check needs no query of its own.
 */
export const tenantQuotasJson = (tenantId: string | Placeholder) =>
  sql<
    TenantQuota[]
  >`(select coalesce(json_agg(json_build_object('metric', ${appTenantQuotas.metric}, 'period', ${appTenantQuotas.period}, 'max', ${appTenantQuotas.max}) order by ${appTenantQuotas.metric}, ${appTenantQuotas.period}), '[]'::json) from ${appTenantQuotas} where ${appTenantQuotas.tenantId} = ${tenantId})`;

/** The command line hands us text it parsed: the names and the range are checked here, once. */
function assertQuotaKey(metric: string, period: string) {
  const issues = [];
  if (!(QUOTA_METRICS as readonly string[]).includes(metric))
    issues.push({ path: '/metric', message: 'must be calls or http_requests' });
  if (!(BUDGET_PERIODS as readonly string[]).includes(period))
    issues.push({ path: '/period', message: 'must be day or month' });
  if (issues.length > 0) throw validationError(issues, 'not a tenant quota');
}

/** Both trails (the tenant's and the instance's own), about the tenant. */
const auditBoth = (tx: Queryable, tenantId: string, action: string, actor: Actor, data: object) =>
  recordInBothTrails(tx, tenantId, {
    action,
    actor,
    resource: { type: 'tenant', id: tenantId },
    data: { ...data },
  });

/** Sets one quota (replacing its max); audited tenant.app_quota.set with the previous max or null. */
export async function setTenantQuota(
  db: Queryable,
  tenantId: string,
  quota: TenantQuota,
  actor: Actor,
): Promise<TenantQuota> {
  assertQuotaKey(quota.metric, quota.period);
  if (!Number.isSafeInteger(quota.max) || quota.max < 0)
    throw validationError(
      [{ path: '/max', message: 'must be a non-negative integer' }],
      'not a tenant quota',
    );
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ max: appTenantQuotas.max })
      .from(appTenantQuotas)
      .where(keyOf(tenantId, quota.metric, quota.period))
      .for('update');
    await tx
      .insert(appTenantQuotas)
      .values({ tenantId, metric: quota.metric, period: quota.period, max: quota.max })
      .onConflictDoUpdate({
        target: [appTenantQuotas.tenantId, appTenantQuotas.metric, appTenantQuotas.period],
        set: { max: quota.max, updatedAt: sql`now()` },
      });
    const saved = { metric: quota.metric, period: quota.period, max: quota.max };
    await auditBoth(tx, tenantId, 'tenant.app_quota.set', actor, {
      ...saved,
      previousMax: before?.max ?? null,
    });
    return saved;
  });
}

/** Removes one quota; answers what it removed, or null (nothing audited) when none was set. */
export async function removeTenantQuota(
  db: Queryable,
  tenantId: string,
  quota: { metric: QuotaMetric; period: BudgetPeriod },
  actor: Actor,
): Promise<TenantQuota | null> {
  assertQuotaKey(quota.metric, quota.period);
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(appTenantQuotas)
      .where(keyOf(tenantId, quota.metric, quota.period))
      .returning({
        metric: appTenantQuotas.metric,
        period: appTenantQuotas.period,
        max: appTenantQuotas.max,
      });
    if (!removed) return null;
    await auditBoth(tx, tenantId, 'tenant.app_quota.removed', actor, removed);
    return removed;
  });
}

const keyOf = (tenantId: string, metric: QuotaMetric, period: BudgetPeriod) =>
  and(
    eq(appTenantQuotas.tenantId, tenantId),
    eq(appTenantQuotas.metric, metric),
    eq(appTenantQuotas.period, period),
  );
