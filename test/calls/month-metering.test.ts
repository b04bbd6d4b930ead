// GET /apps/metering through the real api on a real database (docs/limits-and-metering.md "The month
// report"): a month's use in total, per day and per install, the operator's quotas and
// the installs' budgets against their current periods, spend only for apps:write. Metering rows are
// written with meterCall, installs straight in the database (test/calls/support.ts).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MeteredCall, meterApart, meterCall, nameMeteringRows } from '../../src/calls/metering.ts';
import { checkQuotas } from '../../src/calls/quota-check.ts';
import { setTenantQuota } from '../../src/calls/tenant-quotas.ts';
import { ApiError } from '../../src/http/errors.ts';
import { appInstallLimits, appInstalls, type Budget } from '../../src/installs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok } from '../installs/support.ts';
import { insertInstall, type LimitsRow } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

const OPERATOR = { type: 'operator' as const, id: 'grace', name: 'grace' };
const EUR = { currency: 'EUR', priceMicros: 2500 };
const at = (iso: string) => new Date(iso);

interface Standing {
  metric: string;
  period: string;
  max: number;
  used: number;
  periodStart: string;
  resetsAt: string;
  reached: boolean;
}
interface Entry {
  installId: string;
  installName: string;
  removed: boolean;
  calls: number;
  httpRequests: number;
  budgets: Standing[];
  [field: string]: unknown;
}
interface Report {
  month: string;
  total: Record<string, unknown>;
  days: Record<string, unknown>[];
  installs: Entry[];
  quotas: Standing[];
}

/** A tenant with its admin (apps:read and apps:write) and analyst (apps:read) tokens. */
async function tenantOf(name: string) {
  const tenantId = await platform.tenantId(name);
  const admin = await platform.token({ tenant: name });
  const analyst = await platform.token({ tenant: name, roles: ['analyst'] });
  const report = async (token: string, query = '') =>
    ok<Report>(await platform.fetch(`/apps/metering${query}`, { token }));
  return { tenantId, admin, analyst, report };
}

/** An install of the tenant and a meter of its calls (charged at `price` when given). */
async function installOf(tenantId: string, name: string, limits?: LimitsRow, actions?: string[]) {
  const install = await insertInstall(platform.database, tenantId, name, limits, actions);
  const call = (over: Partial<MeteredCall>): MeteredCall => ({
    tenantId,
    installId: install.id,
    installName: name,
    appName: 'echo',
    action: 'echo',
    httpRequests: 1,
    charged: false,
    ...over,
  });
  const meter = (now?: Date, over: Partial<MeteredCall> = {}) =>
    meterCall(platform.database.db, call(over), now);
  /** A vendor webhook or hand-off the module ran on, as the webhook route and the hand-off count them. */
  const meterApartOf = (counter: 'webhooks' | 'handoffs', now: Date, action = 'echo') =>
    meterApart(
      platform.database.db,
      { tenantId, installId: install.id, installName: name, appName: 'echo', action },
      counter,
      now,
    );
  return { id: install.id, meter, meterApart: meterApartOf };
}

const today = () => new Date().toISOString().slice(0, 10);
/** No vendor webhook or hand-off counted. */
const NONE_APART = { webhooks: 0, handoffs: 0 };
const entryOf = (report: Report, name: string) => report.installs.filter((i) => i.installName === name);

describe('GET /apps/metering', () => {
  it('answers a month’s use in total, per UTC day and per install, spend per currency', async () => {
    const { tenantId, admin, report } = await tenantOf('month-use');
    const kyc = await installOf(tenantId, 'kyc');
    const aml = await installOf(tenantId, 'aml');
    await kyc.meter(at('2025-03-03T08:00:00Z'), { charged: true, price: EUR });
    await kyc.meter(at('2025-03-03T23:59:59Z'), { httpRequests: 2, action: 'lookup' });
    await kyc.meter(at('2025-03-31T12:00:00Z'), {
      charged: true,
      price: { currency: 'USD', priceMicros: 100 },
    });
    await aml.meter(at('2025-03-31T00:00:00Z'), { httpRequests: 4 });
    // The months around it stay out.
    await kyc.meter(at('2025-02-28T23:59:59Z'));
    await aml.meter(at('2025-04-01T00:00:00Z'));

    const march = await report(admin, '?month=2025-03');
    expect(march).toMatchObject({
      month: '2025-03',
      total: {
        calls: 4,
        httpRequests: 8,
        spend: [
          { currency: 'EUR', micros: 2500 },
          { currency: 'USD', micros: 100 },
        ],
      },
      days: [
        { day: '2025-03-03', calls: 2, httpRequests: 3, spend: [{ currency: 'EUR', micros: 2500 }] },
        { day: '2025-03-31', calls: 2, httpRequests: 5, spend: [{ currency: 'USD', micros: 100 }] },
      ],
      quotas: [],
    });
    expect(march.installs).toEqual([
      {
        installId: aml.id,
        installName: 'aml',
        appName: 'echo',
        removed: false,
        calls: 1,
        httpRequests: 4,
        spend: [],
        webhooks: 0,
        handoffs: 0,
        currency: null,
        budgets: [],
      },
      {
        installId: kyc.id,
        installName: 'kyc',
        appName: 'echo',
        removed: false,
        calls: 3,
        httpRequests: 4,
        spend: [
          { currency: 'EUR', micros: 2500 },
          { currency: 'USD', micros: 100 },
        ],
        webhooks: 0,
        handoffs: 0,
        currency: null,
        budgets: [],
      },
    ]);
  });

  it('shows vendor webhooks and hand-offs counted apart, to every reader, in total, per day and per install', async () => {
    const { tenantId, admin, analyst, report } = await tenantOf('month-apart');
    const kyc = await installOf(tenantId, 'kyc');
    const idv = await installOf(tenantId, 'idv');
    await kyc.meter(at('2025-05-02T08:00:00Z'));
    await kyc.meterApart('webhooks', at('2025-05-02T09:00:00Z'), 'verify');
    await kyc.meterApart('webhooks', at('2025-05-02T10:00:00Z'), 'verify');
    await kyc.meterApart('handoffs', at('2025-05-02T10:00:00Z'), 'verify');
    // A day with hand-offs and webhooks only is a day with use; none of it is a call.
    await idv.meterApart('handoffs', at('2025-05-20T10:00:00Z'));
    await idv.meterApart('webhooks', at('2025-05-20T11:00:00Z'));
    await idv.meterApart('webhooks', at('2025-06-01T00:00:00Z'));

    for (const token of [admin, analyst]) {
      const may = await report(token, '?month=2025-05');
      expect(may.total).toMatchObject({ calls: 1, httpRequests: 1, webhooks: 3, handoffs: 2 });
      expect(may.days).toEqual([
        expect.objectContaining({ day: '2025-05-02', calls: 1, httpRequests: 1, webhooks: 2, handoffs: 1 }),
        expect.objectContaining({ day: '2025-05-20', calls: 0, httpRequests: 0, webhooks: 1, handoffs: 1 }),
      ]);
      expect(may.installs.map((i) => [i.installName, i.calls, i.webhooks, i.handoffs])).toEqual([
        ['idv', 0, 1, 1],
        ['kyc', 1, 2, 1],
      ]);
    }
    // The per-day report shows them under the session's action.
    const daily = await ok<{ items: Record<string, unknown>[] }>(
      await platform.fetch('/app-installs/metering?from=2025-05-01&to=2025-05-31&install=kyc', {
        token: analyst,
      }),
    );
    expect(daily.items).toEqual([
      expect.objectContaining({ action: 'echo', calls: 1, webhooks: 0, handoffs: 0 }),
      expect.objectContaining({ action: 'verify', calls: 0, httpRequests: 0, webhooks: 2, handoffs: 1 }),
    ]);
  });

  it('reads the current UTC month by default', async () => {
    const { tenantId, analyst, report } = await tenantOf('month-default');
    const kyc = await installOf(tenantId, 'kyc');
    await kyc.meter();
    await kyc.meter(at('2025-03-10T10:00:00Z'));

    const current = await report(analyst);
    expect(current.month).toBe(today().slice(0, 7));
    expect(current.days).toEqual([{ day: today(), ...NONE_APART, calls: 1, httpRequests: 1 }]);
    expect(current.total).toEqual({ calls: 1, httpRequests: 1, ...NONE_APART });
  });

  it('answers a month without use as nothing used, still listing the installs', async () => {
    const { tenantId, analyst, report } = await tenantOf('month-unused');
    const kyc = await installOf(tenantId, 'kyc');
    await kyc.meter(at('2024-02-01T00:00:00Z'));
    await kyc.meter(at('2023-12-31T23:59:59Z'));

    // The install is still listed: its budgets count now, whichever month is read.
    expect(await report(analyst, '?month=2024-01')).toEqual({
      month: '2024-01',
      total: { calls: 0, httpRequests: 0, ...NONE_APART },
      days: [],
      installs: [
        {
          installId: kyc.id,
          installName: 'kyc',
          appName: 'echo',
          removed: false,
          calls: 0,
          httpRequests: 0,
          ...NONE_APART,
          budgets: [],
        },
      ],
      quotas: [],
    });
  });

  it('weighs quotas and budgets against today and this month, reached exactly when the check refuses', async () => {
    const { tenantId, admin, report } = await tenantOf('month-limits');
    await setTenantQuota(
      platform.database.db,
      tenantId,
      { metric: 'calls', period: 'day', max: 5 },
      OPERATOR,
    );
    await setTenantQuota(
      platform.database.db,
      tenantId,
      { metric: 'http_requests', period: 'month', max: 3 },
      OPERATOR,
    );
    const budgets: Budget[] = [
      { metric: 'spend', period: 'month', max: 5000 },
      { metric: 'calls', period: 'day', max: 2 },
    ];
    // 'gone' is priced but the running version has no such action: it never weighs.
    const limits = { currency: 'EUR', prices: { echo: 2500, gone: 10 ** 9 }, budgets };
    const kyc = await installOf(tenantId, 'kyc', limits, ['echo', 'lookup']);
    await kyc.meter(undefined, { charged: true, price: EUR });
    await kyc.meter(undefined, { charged: true, price: EUR });
    // Use of another month is no use of the current periods.
    await kyc.meter(at('2025-03-10T10:00:00Z'), { httpRequests: 50 });

    const march = await report(admin, '?month=2025-03');
    expect(march.total).toMatchObject({ calls: 1, httpRequests: 50 });
    const [year, monthIndex, date] = today().split('-').map(Number) as [number, number, number];
    const day = {
      periodStart: new Date(Date.UTC(year, monthIndex - 1, date)).toISOString(),
      resetsAt: new Date(Date.UTC(year, monthIndex - 1, date + 1)).toISOString(),
    };
    const month = {
      periodStart: new Date(Date.UTC(year, monthIndex - 1, 1)).toISOString(),
      resetsAt: new Date(Date.UTC(year, monthIndex, 1)).toISOString(),
    };
    expect(march.quotas).toEqual([
      { metric: 'calls', period: 'day', max: 5, used: 2, ...day, reached: false },
      {
        metric: 'http_requests',
        period: 'month',
        max: 3,
        used: 2,
        ...month,
        reached: false,
      },
    ]);
    const [entry] = entryOf(march, 'kyc');
    expect(entry).toMatchObject({ calls: 1, httpRequests: 50, currency: 'EUR' });
    expect(entry?.budgets).toEqual([
      { metric: 'calls', period: 'day', max: 2, used: 2, ...day, reached: true },
      { metric: 'spend', period: 'month', max: 5000, used: 5000, ...month, reached: true },
    ]);

    // The check refuses by the first reached budget, as the report says.
    const subject = { tenantId, installId: kyc.id, installName: 'kyc', appName: 'echo', action: 'echo' };
    const refused = await checkQuotas(platform.database, subject).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).details).toMatchObject({
      scope: 'install',
      metric: 'calls',
      max: 2,
      used: 2,
    });

    // Raised, neither budget is reached, and the check lets the call by.
    await platform.database.db
      .update(appInstallLimits)
      .set({
        budgets: [
          { metric: 'spend', period: 'month', max: 7500 },
          { metric: 'calls', period: 'day', max: 3 },
        ],
      })
      .where(eq(appInstallLimits.installId, kyc.id));
    const raised = entryOf(await report(admin), 'kyc')[0];
    expect(raised?.budgets.map((b) => [b.metric, b.max, b.used, b.reached])).toEqual([
      ['calls', 3, 2, false],
      ['spend', 7500, 5000, false],
    ]);
    await expect(checkQuotas(platform.database, subject)).resolves.toEqual({
      currency: 'EUR',
      priceMicros: 2500,
    });

    // The tenant's HTTP requests used up: the quota is reached, and it is what the check names first.
    await kyc.meter(undefined, { httpRequests: 1 });
    expect((await report(admin)).quotas.map((q) => [q.metric, q.used, q.reached])).toEqual([
      ['calls', 3, false],
      ['http_requests', 3, true],
    ]);
    const quota = await checkQuotas(platform.database, subject).catch((error: unknown) => error);
    expect((quota as ApiError).details).toMatchObject({ scope: 'tenant', metric: 'http_requests' });
  });

  it('shows spend, the currency and spend budgets to apps:write only', async () => {
    const { tenantId, admin, analyst, report } = await tenantOf('month-spend');
    const budgets: Budget[] = [
      { metric: 'calls', period: 'month', max: 100 },
      { metric: 'spend', period: 'day', max: 1_000_000 },
    ];
    const kyc = await installOf(tenantId, 'kyc', { currency: 'EUR', prices: { echo: 2500 }, budgets }, [
      'echo',
    ]);
    await kyc.meter(undefined, { charged: true, price: EUR });

    const written = await report(admin);
    expect(written.total).toEqual({
      calls: 1,
      httpRequests: 1,
      spend: [{ currency: 'EUR', micros: 2500 }],
      ...NONE_APART,
    });
    expect(written.days[0]?.spend).toEqual([{ currency: 'EUR', micros: 2500 }]);
    expect(entryOf(written, 'kyc')[0]).toMatchObject({
      spend: [{ currency: 'EUR', micros: 2500 }],
      currency: 'EUR',
    });
    expect(entryOf(written, 'kyc')[0]?.budgets.map((b) => b.metric)).toEqual(['calls', 'spend']);

    const read = await report(analyst);
    expect(read.total).toEqual({ calls: 1, httpRequests: 1, ...NONE_APART });
    expect(read.days).toEqual([{ day: today(), calls: 1, httpRequests: 1, ...NONE_APART }]);
    const [entry] = entryOf(read, 'kyc');
    expect(entry && Object.keys(entry).sort()).toEqual(
      [
        'appName',
        'budgets',
        'calls',
        'httpRequests',
        'installId',
        'installName',
        'removed',
        'webhooks',
        'handoffs',
      ].sort(),
    );
    expect(entry?.budgets.map((b) => b.metric)).toEqual(['calls']);
    expect(JSON.stringify(read)).not.toMatch(/spend|currency|EUR/);
  });

  it('shows a renamed install once under its current name, a removed one under its last', async () => {
    const { tenantId, admin, report } = await tenantOf('month-renamed');
    const renamed = await installOf(tenantId, 'kyc');
    await renamed.meter(at('2025-03-14T10:00:00Z'));
    await platform.database.db
      .update(appInstalls)
      .set({ name: 'screening' })
      .where(eq(appInstalls.id, renamed.id));
    await renamed.meter(at('2025-03-15T10:00:00Z'), { installName: 'screening' });

    const gone = await installOf(tenantId, 'aml');
    await gone.meter(at('2025-03-16T10:00:00Z'));
    await platform.database.db.transaction(async (tx) => {
      await nameMeteringRows(tx, gone.id, 'aml');
      await tx.delete(appInstalls).where(eq(appInstalls.id, gone.id));
    });
    // A new install takes the removed one's name: two entries, one of them removed.
    const successor = await installOf(tenantId, 'aml');
    await successor.meter(at('2025-03-17T10:00:00Z'));

    const march = await report(admin, '?month=2025-03');
    expect(march.installs.map((i) => [i.installId, i.installName, i.removed, i.calls, i.budgets])).toEqual([
      [successor.id, 'aml', false, 1, []],
      [gone.id, 'aml', true, 1, []],
      [renamed.id, 'screening', false, 2, []],
    ]);
    expect(entryOf(march, 'kyc')).toEqual([]);
    expect(march.installs.find((i) => i.removed)).toMatchObject({ currency: null, spend: [] });
  });

  it('never shows another tenant’s use, installs or quotas', async () => {
    const owner = await tenantOf('month-owner');
    const kyc = await installOf(owner.tenantId, 'kyc');
    await kyc.meter();
    await kyc.meter(at('2025-03-10T10:00:00Z'));
    await setTenantQuota(
      platform.database.db,
      owner.tenantId,
      { metric: 'calls', period: 'day', max: 1 },
      OPERATOR,
    );

    const stranger = await tenantOf('month-stranger');
    const empty = { total: { calls: 0, httpRequests: 0, spend: [] }, days: [], installs: [], quotas: [] };
    expect(await stranger.report(stranger.admin)).toMatchObject(empty);
    expect(await stranger.report(stranger.admin, '?month=2025-03')).toMatchObject(empty);
    // The owner sees its own, so the stranger's emptiness is not the report's.
    expect((await owner.report(owner.admin)).quotas).toMatchObject([{ used: 1, reached: true }]);
  });

  it('refuses a month not written YYYY-MM, an unknown parameter, no token and no apps:read', async () => {
    const { admin } = await tenantOf('month-refusals');
    for (const [query, path] of [
      ['month=2026-13', 'query.month'],
      ['month=2026-1', 'query.month'],
      ['month=2026-03-01', 'query.month'],
      ['month=', 'query.month'],
      ['colour=red', 'query.colour'],
    ]) {
      const error = await errorOf(await platform.fetch(`/apps/metering?${query}`, { token: admin }), 400);
      expect(error.code, query).toBe('validation_error');
      expect(error.details, query).toMatchObject({ issues: [{ path }] });
    }
    const anonymous = await errorOf(await platform.fetch('/apps/metering', { token: null }), 401);
    expect(anonymous.code).toBe('unauthorized');
    const token = await platform.token({ tenant: 'month-refusals', roles: [], permissions: ['apps:write'] });
    const forbidden = await errorOf(await platform.fetch('/apps/metering', { token }), 403);
    expect(forbidden).toMatchObject({ code: 'forbidden', details: { permission: 'apps:read' } });
  });
});
