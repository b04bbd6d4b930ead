// The operator's quotas of a tenant against the real database (docs/limits-and-metering.md "Operator
// quotas"): set, replace and remove, audited in the tenant's trail and the instance's.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { removeTenantQuota, setTenantQuota, tenantQuotasOf } from '../../src/calls/tenant-quotas.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { ApiError } from '../../src/http/errors.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';

let database: Database;
beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
});
afterAll(async () => database?.close());

const OPERATOR = { type: 'operator' as const, id: 'grace', name: 'grace' };
const tenantOf = async (name: string) => (await ensureTenant(database.db, name)).tenant.id;

describe('tenant quotas', () => {
  const trail = (tenantId: string | null, action: string) =>
    database.db
      .select({
        tenantId: auditEvents.tenantId,
        actor: { type: auditEvents.actorType, id: auditEvents.actorId, name: auditEvents.actorName },
        resource: { type: auditEvents.resourceType, id: auditEvents.resourceId },
        data: auditEvents.data,
      })
      .from(auditEvents)
      .where(
        and(
          tenantId === null ? isNull(auditEvents.tenantId) : eq(auditEvents.tenantId, tenantId),
          eq(auditEvents.action, action),
        ),
      )
      .orderBy(asc(auditEvents.id));

  it('sets, replaces and removes a quota, audited in the tenant’s trail and the instance’s', async () => {
    const tenantId = await tenantOf('quota-set');
    expect(
      await setTenantQuota(database.db, tenantId, { metric: 'calls', period: 'month', max: 1000 }, OPERATOR),
    ).toEqual({
      metric: 'calls',
      period: 'month',
      max: 1000,
    });
    await setTenantQuota(database.db, tenantId, { metric: 'calls', period: 'month', max: 500 }, OPERATOR);
    await setTenantQuota(database.db, tenantId, { metric: 'http_requests', period: 'day', max: 0 }, OPERATOR);
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([
      { metric: 'calls', period: 'month', max: 500 },
      { metric: 'http_requests', period: 'day', max: 0 },
    ]);
    const resource = { type: 'tenant', id: tenantId };
    expect(await trail(tenantId, 'tenant.app_quota.set')).toEqual([
      {
        tenantId,
        actor: OPERATOR,
        resource,
        data: { metric: 'calls', period: 'month', max: 1000, previousMax: null },
      },
      {
        tenantId,
        actor: OPERATOR,
        resource,
        data: { metric: 'calls', period: 'month', max: 500, previousMax: 1000 },
      },
      {
        tenantId,
        actor: OPERATOR,
        resource,
        data: { metric: 'http_requests', period: 'day', max: 0, previousMax: null },
      },
    ]);
    const instance = (await trail(null, 'tenant.app_quota.set')).filter((e) => e.resource.id === tenantId);
    expect(instance.map((e) => e.data)).toEqual([
      { tenantId, metric: 'calls', period: 'month', max: 1000, previousMax: null },
      { tenantId, metric: 'calls', period: 'month', max: 500, previousMax: 1000 },
      { tenantId, metric: 'http_requests', period: 'day', max: 0, previousMax: null },
    ]);

    expect(
      await removeTenantQuota(database.db, tenantId, { metric: 'calls', period: 'month' }, OPERATOR),
    ).toEqual({
      metric: 'calls',
      period: 'month',
      max: 500,
    });
    // Removing what is not set changes nothing and records nothing.
    expect(
      await removeTenantQuota(database.db, tenantId, { metric: 'calls', period: 'month' }, OPERATOR),
    ).toBeNull();
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([
      { metric: 'http_requests', period: 'day', max: 0 },
    ]);
    expect(await trail(tenantId, 'tenant.app_quota.removed')).toEqual([
      { tenantId, actor: OPERATOR, resource, data: { metric: 'calls', period: 'month', max: 500 } },
    ]);
    expect(
      (await trail(null, 'tenant.app_quota.removed')).filter((e) => e.resource.id === tenantId),
    ).toHaveLength(1);
    // Another tenant's quotas are its own.
    expect(await tenantQuotasOf(database.db, await tenantOf('quota-set-other'))).toEqual([]);
  });

  it('refuses a quota on spend, an unknown period and a max that is not a non-negative integer', async () => {
    const tenantId = await tenantOf('quota-invalid');
    const attempts = [
      [
        { metric: 'spend', period: 'day', max: 1 },
        [{ path: '/metric', message: 'must be calls or http_requests' }],
      ],
      [{ metric: 'calls', period: 'week', max: 1 }, [{ path: '/period', message: 'must be day or month' }]],
      [
        { metric: 'calls', period: 'day', max: -1 },
        [{ path: '/max', message: 'must be a non-negative integer' }],
      ],
      [
        { metric: 'calls', period: 'day', max: 1.5 },
        [{ path: '/max', message: 'must be a non-negative integer' }],
      ],
    ] as const;
    for (const [quota, issues] of attempts) {
      const error = await setTenantQuota(database.db, tenantId, quota as never, OPERATOR).catch(
        (e: ApiError) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect({ code: (error as ApiError).code, details: (error as ApiError).details }).toEqual({
        code: 'validation_error',
        details: { issues },
      });
    }
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([]);
    expect(await trail(tenantId, 'tenant.app_quota.set')).toEqual([]);
  });
});
