// The quota check before an attempt against the real database (docs/limits-and-metering.md "The check
// before an attempt"; the first refusal of each limit and period raises app.quota.exceeded).
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { meterCall } from '../../src/calls/metering.ts';
import { checkQuotas } from '../../src/calls/quota-check.ts';
import { appQuotaRefusals } from '../../src/calls/tables.ts';
import { removeTenantQuota, setTenantQuota } from '../../src/calls/tenant-quotas.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { ApiError } from '../../src/http/errors.ts';
import type { Budget } from '../../src/installs/tables.ts';
import { notifications } from '../../src/notifications/tables.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';
import { insertInstall } from './support.ts';

let database: Database;
beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
});
afterAll(async () => database?.close());

const OPERATOR = { type: 'operator' as const, id: 'grace', name: 'grace' };
const at = (iso: string) => new Date(iso);

async function tenantOf(name: string) {
  return (await ensureTenant(database.db, name)).tenant.id;
}

/** An install row (the catalogue plays no part in the check) with optional limits. */
async function installOf(
  tenantId: string,
  name: string,
  limits?: { currency: string | null; prices: Record<string, number>; budgets: Budget[] },
) {
  const install = await insertInstall(database, tenantId, name, limits);
  const subject = { tenantId, installId: install.id, installName: name, appName: 'echo', action: 'echo' };
  const meter = (now: Date, over: { httpRequests?: number; charged?: boolean; action?: string } = {}) =>
    meterCall(database.db, { ...subject, httpRequests: 0, charged: true, ...over }, now);
  return { id: install.id, subject, meter };
}

/** The refusal checkQuotas threw, as the api would answer it; fails the test when it let the call by. */
async function refusalOf(check: Promise<unknown>) {
  try {
    await check;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, code: error.code, message: error.message, details: error.details };
  }
  throw new Error('the check let the call by');
}

const exceededEvents = (tenantId: string) =>
  database.db
    .select({
      actor: { type: auditEvents.actorType, id: auditEvents.actorId, name: auditEvents.actorName },
      resource: { type: auditEvents.resourceType, id: auditEvents.resourceId },
      data: auditEvents.data,
      requestId: auditEvents.requestId,
    })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'app.quota.exceeded')))
    .orderBy(asc(auditEvents.id));

const notificationsOf = (tenantId: string) =>
  database.db
    .select({
      kind: notifications.kind,
      audiencePermission: notifications.audiencePermission,
      resource: { type: notifications.resourceType, id: notifications.resourceId },
      data: notifications.data,
    })
    .from(notifications)
    .where(eq(notifications.tenantId, tenantId))
    .orderBy(asc(notifications.createdAt));

describe('checkQuotas', () => {
  it('lets every call by when neither the operator nor the install set a limit', async () => {
    const tenantId = await tenantOf('quota-none');
    const kyc = await installOf(tenantId, 'kyc', { currency: 'EUR', prices: { echo: 10 }, budgets: [] });
    for (let i = 0; i < 3; i++) await kyc.meter(at('2025-03-14T10:00:00Z'), { httpRequests: 25 });
    await expect(checkQuotas(database, kyc.subject, { now: at('2025-03-14T11:00:00Z') })).resolves.toEqual({
      currency: 'EUR',
      priceMicros: 10,
    });
    expect(
      await database.db.select().from(appQuotaRefusals).where(eq(appQuotaRefusals.tenantId, tenantId)),
    ).toEqual([]);
  });

  it('refuses the call one too many under the tenant’s daily calls quota, over all its installs', async () => {
    const tenantId = await tenantOf('quota-tenant-calls');
    await setTenantQuota(database.db, tenantId, { metric: 'calls', period: 'day', max: 3 }, OPERATOR);
    const kyc = await installOf(tenantId, 'kyc');
    const aml = await installOf(tenantId, 'aml');
    const now = at('2025-03-14T15:09:26Z');
    await kyc.meter(at('2025-03-14T00:00:00Z'));
    await aml.meter(now);
    await aml.meter(at('2025-03-13T23:59:59Z')); // yesterday: another period
    await expect(checkQuotas(database, kyc.subject, { now })).resolves.toEqual({
      currency: null,
      priceMicros: 0,
    });
    await aml.meter(now);

    const details = {
      scope: 'tenant',
      metric: 'calls',
      period: 'day',
      max: 3,
      used: 3,
      currency: null,
      periodStart: '2025-03-14T00:00:00.000Z',
      resetsAt: '2025-03-15T00:00:00.000Z',
      install: 'kyc',
    };
    expect(await refusalOf(checkQuotas(database, kyc.subject, { now }))).toEqual({
      status: 429,
      code: 'app_quota_exceeded',
      message: 'the tenant’s daily calls quota is used up (3 of 3); it resets at 2025-03-15T00:00:00.000Z',
      details,
    });
    // Refused again, through the other install: the quota's first refusal was already appended.
    expect((await refusalOf(checkQuotas(database, aml.subject, { now }))).details).toEqual({
      ...details,
      install: 'aml',
    });
    expect(
      await refusalOf(checkQuotas(database, kyc.subject, { now: at('2025-03-14T23:59:59.999Z') })),
    ).toMatchObject({
      details,
    });

    const { install: _install, ...limit } = details;
    const data = { install: 'kyc', app: 'echo', ...limit };
    expect(await exceededEvents(tenantId)).toEqual([
      {
        actor: { type: 'system', id: 'quota-check', name: 'quota check' },
        resource: { type: 'app_install', id: kyc.id },
        data,
        requestId: null,
      },
    ]);
    expect(await notificationsOf(tenantId)).toEqual([
      {
        kind: 'app_quota_exceeded',
        audiencePermission: 'apps:write',
        resource: { type: 'app_install', id: kyc.id },
        data,
      },
    ]);
    expect(
      await database.db
        .select({ limitKey: appQuotaRefusals.limitKey, periodStart: appQuotaRefusals.periodStart })
        .from(appQuotaRefusals)
        .where(eq(appQuotaRefusals.tenantId, tenantId)),
    ).toEqual([{ limitKey: 'tenant:calls:day', periodStart: at('2025-03-14T00:00:00Z') }]);

    // The next UTC day starts clean, and its first refusal is appended again.
    const tomorrow = at('2025-03-15T00:00:00Z');
    await expect(checkQuotas(database, kyc.subject, { now: tomorrow })).resolves.toEqual({
      currency: null,
      priceMicros: 0,
    });
    for (let i = 0; i < 3; i++) await kyc.meter(tomorrow);
    const refused = await refusalOf(
      checkQuotas(database, kyc.subject, {
        now: tomorrow,
        actor: { type: 'user', id: 'user:ada', name: 'ada' },
        requestId: 'req-1',
      }),
    );
    expect(refused.details).toMatchObject({
      periodStart: '2025-03-15T00:00:00.000Z',
      resetsAt: '2025-03-16T00:00:00.000Z',
    });
    const events = await exceededEvents(tenantId);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      actor: { type: 'user', id: 'user:ada', name: 'ada' },
      requestId: 'req-1',
      data: { periodStart: '2025-03-15T00:00:00.000Z', used: 3 },
    });
  });

  it('refuses once the tenant’s monthly HTTP requests are used up, and weighs quotas before budgets', async () => {
    const tenantId = await tenantOf('quota-tenant-http');
    await setTenantQuota(
      database.db,
      tenantId,
      { metric: 'http_requests', period: 'month', max: 10 },
      OPERATOR,
    );
    const kyc = await installOf(tenantId, 'kyc', {
      currency: null,
      prices: {},
      budgets: [{ metric: 'calls', period: 'day', max: 1 }],
    });
    const now = at('2025-12-31T23:00:00Z');
    await kyc.meter(at('2025-12-01T00:00:00Z'), { httpRequests: 9 });
    // 9 of 10 requests, but the install's one call a day is spent: the budget refuses.
    expect(
      (await refusalOf(checkQuotas(database, kyc.subject, { now: at('2025-12-01T05:00:00Z') }))).details,
    ).toEqual({
      scope: 'install',
      metric: 'calls',
      period: 'day',
      max: 1,
      used: 1,
      currency: null,
      periodStart: '2025-12-01T00:00:00.000Z',
      resetsAt: '2025-12-02T00:00:00.000Z',
      install: 'kyc',
    });
    await kyc.meter(at('2025-12-20T00:00:00Z'), { httpRequests: 1, charged: false });
    // Both refuse now; the operator's quota is named.
    await kyc.meter(now);
    expect(await refusalOf(checkQuotas(database, kyc.subject, { now }))).toEqual({
      status: 429,
      code: 'app_quota_exceeded',
      message:
        'the tenant’s monthly http_requests quota is used up (10 of 10); it resets at 2026-01-01T00:00:00.000Z',
      details: {
        scope: 'tenant',
        metric: 'http_requests',
        period: 'month',
        max: 10,
        used: 10,
        currency: null,
        periodStart: '2025-12-01T00:00:00.000Z',
        resetsAt: '2026-01-01T00:00:00.000Z',
        install: 'kyc',
      },
    });
    // One event per limit and period: the install's daily calls budget of Dec 1, the tenant's December quota.
    expect(
      (await exceededEvents(tenantId)).map((e) => [e.data.scope, e.data.metric, e.data.periodStart]),
    ).toEqual([
      ['install', 'calls', '2025-12-01T00:00:00.000Z'],
      ['tenant', 'http_requests', '2025-12-01T00:00:00.000Z'],
    ]);
    // The operator lifts the quota: from the next call only the budget weighs.
    await removeTenantQuota(database.db, tenantId, { metric: 'http_requests', period: 'month' }, OPERATOR);
    expect((await refusalOf(checkQuotas(database, kyc.subject, { now }))).details).toMatchObject({
      scope: 'install',
    });
    await expect(checkQuotas(database, kyc.subject, { now: at('2026-01-01T00:00:00Z') })).resolves.toEqual({
      currency: null,
      priceMicros: 0,
    });
  });

  it('refuses a priced call that would pass a spend budget, in micros of the install’s currency', async () => {
    const tenantId = await tenantOf('quota-spend');
    const kyc = await installOf(tenantId, 'kyc', {
      currency: 'EUR',
      prices: { echo: 400_000 },
      budgets: [
        { metric: 'spend', period: 'month', max: 1_000_000 },
        { metric: 'http_requests', period: 'day', max: 5 },
      ],
    });
    const now = at('2025-03-14T12:00:00Z');
    await kyc.meter(at('2025-03-02T12:00:00Z'));
    await kyc.meter(at('2025-03-03T12:00:00Z'), { charged: false }); // failed: no spend
    await expect(checkQuotas(database, kyc.subject, { now })).resolves.toEqual({
      currency: 'EUR',
      priceMicros: 400_000,
    });
    await kyc.meter(at('2025-03-04T12:00:00Z'));
    const spend = {
      status: 429,
      code: 'app_quota_exceeded',
      message:
        'the call’s price would pass install kyc’s monthly spend budget (800000 of 1000000 micros EUR spent); it resets at 2025-04-01T00:00:00.000Z',
      details: {
        scope: 'install',
        metric: 'spend',
        period: 'month',
        max: 1_000_000,
        used: 800_000,
        currency: 'EUR',
        periodStart: '2025-03-01T00:00:00.000Z',
        resetsAt: '2025-04-01T00:00:00.000Z',
        install: 'kyc',
      },
    };
    expect(await refusalOf(checkQuotas(database, kyc.subject, { now }))).toEqual(spend);
    // An action without a price spends nothing: the spend budget lets it by.
    await expect(checkQuotas(database, { ...kyc.subject, action: 'lookup' }, { now })).resolves.toEqual({
      currency: 'EUR',
      priceMicros: 0,
    });
    // A rename is still the same limit: no second event.
    expect(
      (await refusalOf(checkQuotas(database, { ...kyc.subject, installName: 'kyc-eu' }, { now }))).details,
    ).toEqual({
      ...spend.details,
      install: 'kyc-eu',
    });
    expect(await exceededEvents(tenantId)).toEqual([
      {
        actor: { type: 'system', id: 'quota-check', name: 'quota check' },
        resource: { type: 'app_install', id: kyc.id },
        data: {
          install: 'kyc',
          app: 'echo',
          scope: 'install',
          metric: 'spend',
          period: 'month',
          max: 1_000_000,
          used: 800_000,
          currency: 'EUR',
          periodStart: '2025-03-01T00:00:00.000Z',
          resetsAt: '2025-04-01T00:00:00.000Z',
        },
        requestId: null,
      },
    ]);
  });

  it('appends the first refusal once when several workers are refused at the same time', async () => {
    const tenantId = await tenantOf('quota-race');
    const kyc = await installOf(tenantId, 'kyc', {
      currency: null,
      prices: {},
      budgets: [{ metric: 'calls', period: 'month', max: 0 }],
    });
    const now = at('2025-03-14T12:00:00Z');
    const refusals = await Promise.all(
      Array.from({ length: 6 }, () => refusalOf(checkQuotas(database, kyc.subject, { now }))),
    );
    expect(new Set(refusals.map((r) => `${r.status} ${r.code} ${r.details?.used}`))).toEqual(
      new Set(['429 app_quota_exceeded 0']),
    );
    expect(await exceededEvents(tenantId)).toHaveLength(1);
    expect(await notificationsOf(tenantId)).toHaveLength(1);
  });

  it('weighs each install’s budgets against its own use only', async () => {
    const tenantId = await tenantOf('quota-own-use');
    const budgets: Budget[] = [{ metric: 'http_requests', period: 'day', max: 4 }];
    const kyc = await installOf(tenantId, 'kyc', { currency: null, prices: {}, budgets });
    const aml = await installOf(tenantId, 'aml', { currency: null, prices: {}, budgets });
    const now = at('2025-03-14T12:00:00Z');
    await kyc.meter(now, { httpRequests: 4 });
    await aml.meter(now, { httpRequests: 3 });
    expect((await refusalOf(checkQuotas(database, kyc.subject, { now }))).details).toMatchObject({
      scope: 'install',
      metric: 'http_requests',
      used: 4,
      install: 'kyc',
    });
    await expect(checkQuotas(database, aml.subject, { now })).resolves.toEqual({
      currency: null,
      priceMicros: 0,
    });
  });
});
