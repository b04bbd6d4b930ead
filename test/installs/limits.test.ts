// An install's limits record through the real api (docs/limits-and-metering.md "The limits
// record"): GET and PUT /app-installs/:install/limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterCall } from '../../src/calls/metering.ts';
import { periodBounds } from '../../src/calls/quotas.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, publishEcho } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

const as = (tenant: string) => platform.token({ tenant, user: 'ada' });
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });
const limitsOf = (token: string, name = 'kyc') => call(`/app-installs/${name}/limits`, token);
const save = (token: string, json: unknown, name = 'kyc') =>
  call(`/app-installs/${name}/limits`, token, 'PUT', json);

const NONE = { currency: null, prices: {}, budgets: [] };

async function withInstall(tenant: string, name = 'kyc') {
  const token = await as(tenant);
  const v = await publishEcho(platform, token, `${tenant}-app`);
  await ok(
    await call('/app-installs', token, 'POST', {
      name,
      versionId: v.id,
      enabled: false,
      approveHosts: ['api.vendor.test'],
    }),
    201,
  );
  const created = await ok<{ id: string }>(await call(`/app-installs/${name}`, token));
  return { token, id: created.id, appName: `${tenant}-app`, tenantId: await platform.tenantId(tenant) };
}

async function auditOf(token: string) {
  const body = await ok<{
    items: { resource: { type: string; id: string }; data: Record<string, unknown> }[];
  }>(await call('/audit-events?action=app.limits.updated', token));
  return body.items.reverse();
}

describe('GET and PUT /app-installs/:install/limits', () => {
  it('answers the empty record, saves one that replaces all, and audits before and after', async () => {
    const { token, id, appName } = await withInstall('limits-save');
    expect(await ok(await limitsOf(token))).toEqual(NONE);

    const first = {
      currency: 'EUR',
      prices: { echo: 1_500_000 },
      budgets: [
        { metric: 'spend', period: 'month', max: 50_000_000 },
        { metric: 'calls', period: 'day', max: 100 },
      ],
    };
    expect(await ok(await save(token, first))).toEqual(first);
    expect(await ok(await limitsOf(token))).toEqual(first);

    // A save replaces all: what it leaves out is gone.
    const second = {
      currency: null,
      prices: {},
      budgets: [{ metric: 'http_requests', period: 'day', max: 0 }],
    };
    expect(await ok(await save(token, second))).toEqual(second);
    expect(await ok(await limitsOf(token))).toEqual(second);

    // Six budgets, one per metric and period, and a price of 0.
    const full = {
      currency: 'JPY',
      prices: { echo: 0 },
      budgets: ['calls', 'http_requests', 'spend'].flatMap((metric) =>
        ['day', 'month'].map((period) => ({ metric, period, max: Number.MAX_SAFE_INTEGER })),
      ),
    };
    expect(await ok(await save(token, full))).toEqual(full);
    await ok(await save(token, NONE));
    expect(await ok(await limitsOf(token))).toEqual(NONE);

    const audits = await auditOf(token);
    expect(audits).toEqual(
      [
        { resource: { type: 'app_install', id }, data: { name: 'kyc', appName, before: NONE, after: first } },
        {
          resource: { type: 'app_install', id },
          data: { name: 'kyc', appName, before: first, after: second },
        },
        {
          resource: { type: 'app_install', id },
          data: { name: 'kyc', appName, before: second, after: full },
        },
        { resource: { type: 'app_install', id }, data: { name: 'kyc', appName, before: full, after: NONE } },
      ].map((expected) => expect.objectContaining(expected)),
    );
  });

  it('refuses rules the record breaks with 400 validation_error, every issue at its pointer', async () => {
    const { token } = await withInstall('limits-rules');
    const cases: [unknown, { path: string; message: string }[]][] = [
      [
        { currency: 'XYZ', prices: {}, budgets: [] },
        [{ path: '/currency', message: 'XYZ is not an ISO 4217 currency' }],
      ],
      [
        { currency: null, prices: { echo: 10 }, budgets: [] },
        [{ path: '/currency', message: 'prices and spend budgets need a currency' }],
      ],
      [
        { currency: null, prices: {}, budgets: [{ metric: 'spend', period: 'day', max: 1 }] },
        [{ path: '/currency', message: 'prices and spend budgets need a currency' }],
      ],
      [
        { currency: 'EUR', prices: { echo: 1, lookup: 2, 'a/b~c': 3 }, budgets: [] },
        [
          { path: '/prices/lookup', message: 'the running version has no action lookup' },
          { path: '/prices/a~1b~0c', message: 'the running version has no action a/b~c' },
        ],
      ],
      [
        {
          currency: 'EUR',
          prices: {},
          budgets: [
            { metric: 'calls', period: 'day', max: 1 },
            { metric: 'calls', period: 'month', max: 1 },
            { metric: 'calls', period: 'day', max: 2 },
          ],
        },
        [{ path: '/budgets/2', message: 'a second calls budget per day; one per metric and period' }],
      ],
      [
        {
          currency: null,
          prices: { echo: 5, nope: 1 },
          budgets: [
            { metric: 'spend', period: 'month', max: 1 },
            { metric: 'spend', period: 'month', max: 2 },
          ],
        },
        [
          { path: '/currency', message: 'prices and spend budgets need a currency' },
          { path: '/prices/nope', message: 'the running version has no action nope' },
          { path: '/budgets/1', message: 'a second spend budget per month; one per metric and period' },
        ],
      ],
    ];
    for (const [body, issues] of cases) {
      const error = await errorOf(await save(token, body), 400);
      expect(error, JSON.stringify(body)).toEqual({
        code: 'validation_error',
        message: 'the limits record is not valid',
        details: { issues },
        requestId: expect.any(String),
      });
    }
    expect(await ok(await limitsOf(token))).toEqual(NONE);
    expect(await auditOf(token)).toEqual([]);
  });

  it('refuses a body the schema does not admit with the standard validation_error body', async () => {
    const { token } = await withInstall('limits-schema');
    const budget = { metric: 'calls', period: 'day', max: 1 };
    const cases: [unknown, string[]][] = [
      [{ currency: 'eur', prices: {}, budgets: [] }, ['/currency']],
      [{ currency: 'EURO', prices: {}, budgets: [] }, ['/currency']],
      [{ currency: 'EUR', prices: { echo: -1 }, budgets: [] }, ['/prices/echo']],
      [{ currency: 'EUR', prices: { echo: 1.5 }, budgets: [] }, ['/prices/echo']],
      [{ currency: 'EUR', prices: { echo: 'ten' }, budgets: [] }, ['/prices/echo']],
      [{ currency: 'EUR', prices: {}, budgets: Array.from({ length: 7 }, () => budget) }, ['/budgets']],
      [{ currency: 'EUR', prices: {}, budgets: [{ ...budget, metric: 'tokens' }] }, ['/budgets/0/metric']],
      [{ currency: 'EUR', prices: {}, budgets: [{ ...budget, period: 'week' }] }, ['/budgets/0/period']],
      [{ currency: 'EUR', prices: {}, budgets: [{ ...budget, max: -1 }] }, ['/budgets/0/max']],
      [{ currency: 'EUR', prices: {}, budgets: [{ metric: 'calls', period: 'day' }] }, ['/budgets/0/max']],
      [{ currency: 'EUR', prices: {}, budgets: [{ ...budget, note: 'x' }] }, ['/budgets/0/note']],
      [{ prices: {}, budgets: [] }, ['/currency']],
      [{ currency: null, budgets: [] }, ['/prices']],
      [{ currency: null, prices: {} }, ['/budgets']],
      [{ ...NONE, cap: 1 }, ['/cap']],
    ];
    for (const [body, paths] of cases) {
      const error = await errorOf(await save(token, body), 400);
      expect(error, JSON.stringify(body)).toEqual({
        code: 'validation_error',
        message: 'request is not valid',
        details: { issues: paths.map((path) => ({ path, message: expect.any(String) })) },
        requestId: expect.any(String),
      });
    }
    expect(await ok(await limitsOf(token))).toEqual(NONE);
  });

  it('refuses another currency than this UTC month’s spend is in with 409 conflict', async () => {
    const { token, id, tenantId } = await withInstall('limits-currency');
    await ok(await save(token, { currency: 'EUR', prices: { echo: 250 }, budgets: [] }));
    const now = new Date();
    const metered = {
      tenantId,
      installId: id,
      installName: 'kyc',
      appName: 'x',
      action: 'echo',
      httpRequests: 0,
    };
    // Spend last month, and calls this month that cost nothing, leave the currency free.
    await meterCall(
      platform.database.db,
      { ...metered, charged: true },
      new Date(periodBounds('month', now).start.getTime() - 1),
    );
    await meterCall(platform.database.db, { ...metered, charged: false }, now);
    await ok(await save(token, { currency: 'USD', prices: { echo: 300 }, budgets: [] }));
    await ok(await save(token, { currency: 'EUR', prices: { echo: 250 }, budgets: [] }));

    // This month's first charged call fixes the month's currency.
    await meterCall(platform.database.db, { ...metered, charged: true }, now);
    const error = await errorOf(
      await save(token, { currency: 'USD', prices: { echo: 300 }, budgets: [] }),
      409,
    );
    expect(error).toEqual({
      code: 'conflict',
      message: "this month's spend of install kyc is in EUR; the currency can change next month",
      details: { currency: 'USD', spentCurrency: 'EUR', month: now.toISOString().slice(0, 7) },
      requestId: expect.any(String),
    });
    expect(await ok(await limitsOf(token))).toEqual({ currency: 'EUR', prices: { echo: 250 }, budgets: [] });
    // The same currency with other prices, and no currency at all (charging stops), are no currency change.
    await ok(
      await save(token, {
        currency: 'EUR',
        prices: { echo: 400 },
        budgets: [{ metric: 'spend', period: 'month', max: 10_000 }],
      }),
    );
    expect(await ok(await save(token, NONE))).toEqual(NONE);
    expect((await errorOf(await save(token, { currency: 'GBP', prices: {}, budgets: [] }), 409)).code).toBe(
      'conflict',
    );
    expect((await auditOf(token)).map((a) => (a.data.after as { currency: string | null }).currency)).toEqual(
      ['EUR', 'USD', 'EUR', 'EUR', null],
    );
  });

  it('answers 404 unknown_install for another tenant’s or a missing install and needs apps:write', async () => {
    await withInstall('limits-owner');
    const owner = await as('limits-owner');
    await ok(await save(owner, { currency: 'EUR', prices: { echo: 1 }, budgets: [] }));
    const stranger = await as('limits-stranger');
    for (const response of [
      await limitsOf(stranger),
      await save(stranger, NONE),
      await limitsOf(owner, 'nobody'),
      await save(owner, NONE, 'nobody'),
    ]) {
      const error = await errorOf(response, 404);
      expect(error.code).toBe('unknown_install');
    }
    // Reading the record needs apps:write too: it shows prices and spend budgets.
    const reader = await platform.token({ tenant: 'limits-owner', roles: ['analyst'] });
    expect((await errorOf(await limitsOf(reader), 403)).code).toBe('forbidden');
    expect((await errorOf(await save(reader, NONE), 403)).code).toBe('forbidden');
    expect(await ok(await limitsOf(owner))).toEqual({ currency: 'EUR', prices: { echo: 1 }, budgets: [] });
  });

  it('goes with its install: a new install of the same name starts without limits', async () => {
    const { token } = await withInstall('limits-delete');
    await ok(await save(token, { currency: 'EUR', prices: { echo: 1 }, budgets: [] }));
    await ok(await call('/app-installs/kyc', token, 'DELETE'), 204);
    expect((await errorOf(await limitsOf(token), 404)).code).toBe('unknown_install');
    const v = await publishEcho(platform, token, 'limits-delete-app', '1.0.1');
    await ok(
      await call('/app-installs', token, 'POST', {
        name: 'kyc',
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    expect(await ok(await limitsOf(token))).toEqual(NONE);
  });
});
