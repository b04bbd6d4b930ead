// Metering against the real database (docs/limits-and-metering.md "Metering"): meterCall's upsert per
// install, UTC day, action and currency, and the readers the quota check and the limits record use.
import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterCall, monthSpendCurrencies, priceOf, usageOf } from '../../src/calls/metering.ts';
import { appMetering } from '../../src/calls/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { appInstallLimits } from '../../src/installs/tables.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';
import { insertInstall } from './support.ts';

let database: Database;
beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
});
afterAll(async () => database?.close());

/** A tenant with one install row (the catalogue plays no part in metering) and optional limits. */
async function installOf(
  tenant: string,
  limits?: { currency: string | null; prices: Record<string, number> },
) {
  const tenantId = (await ensureTenant(database.db, tenant)).tenant.id;
  const install = await insertInstall(database, tenantId, `kyc-${randomUUID().slice(0, 8)}`, limits);
  const call = (over: Partial<Parameters<typeof meterCall>[1]> = {}) => ({
    tenantId,
    installId: install.id,
    installName: install.name,
    appName: 'echo',
    action: 'echo',
    httpRequests: 0,
    charged: true,
    ...over,
  });
  return { tenantId, installId: install.id, name: install.name, call };
}

const rowsOf = (installId: string) =>
  database.db
    .select({
      day: appMetering.day,
      action: appMetering.action,
      currency: appMetering.currency,
      installName: appMetering.installName,
      calls: appMetering.calls,
      httpRequests: appMetering.httpRequests,
      spendMicros: appMetering.spendMicros,
    })
    .from(appMetering)
    .where(eq(appMetering.installId, installId))
    .orderBy(asc(appMetering.day), asc(appMetering.action), asc(appMetering.currency));

const at = (iso: string) => new Date(iso);

describe('meterCall', () => {
  it('adds each call to today’s row: one call, its HTTP requests and, when charged, its price', async () => {
    const { installId, name, call } = await installOf('meter-sums', {
      currency: 'EUR',
      prices: { echo: 1500, lookup: 0 },
    });
    const now = at('2025-03-14T10:00:00Z');
    await meterCall(database.db, call({ httpRequests: 2 }), now);
    await meterCall(database.db, call({ httpRequests: 3 }), at('2025-03-14T23:59:59.999Z'));
    // Failed calls are calls with their requests, but cost nothing: kept under currency ''.
    await meterCall(database.db, call({ httpRequests: 4, charged: false }), now);
    // A priced action at 0 and an unpriced one cost nothing either.
    await meterCall(database.db, call({ action: 'lookup' }), now);
    await meterCall(database.db, call({ action: 'other', httpRequests: 1 }), now);
    expect(await rowsOf(installId)).toEqual([
      {
        day: '2025-03-14',
        action: 'echo',
        currency: '',
        installName: name,
        calls: 1,
        httpRequests: 4,
        spendMicros: 0,
      },
      {
        day: '2025-03-14',
        action: 'echo',
        currency: 'EUR',
        installName: name,
        calls: 2,
        httpRequests: 5,
        spendMicros: 3000,
      },
      {
        day: '2025-03-14',
        action: 'lookup',
        currency: '',
        installName: name,
        calls: 1,
        httpRequests: 0,
        spendMicros: 0,
      },
      {
        day: '2025-03-14',
        action: 'other',
        currency: '',
        installName: name,
        calls: 1,
        httpRequests: 1,
        spendMicros: 0,
      },
    ]);
  });

  it('starts a new row at 00:00 UTC and keeps the name the install had when last metered', async () => {
    const { installId, name, call } = await installOf('meter-days');
    await meterCall(database.db, call(), at('2025-03-14T23:59:59.999Z'));
    await meterCall(database.db, call({ installName: 'renamed' }), at('2025-03-15T00:00:00Z'));
    await meterCall(database.db, call({ installName: 'renamed' }), at('2025-03-15T01:00:00+02:00'));
    // 01:00 at +02:00 on the 15th is 23:00 UTC on the 14th.
    expect(await rowsOf(installId)).toEqual([
      {
        day: '2025-03-14',
        action: 'echo',
        currency: '',
        installName: 'renamed',
        calls: 2,
        httpRequests: 0,
        spendMicros: 0,
      },
      {
        day: '2025-03-15',
        action: 'echo',
        currency: '',
        installName: 'renamed',
        calls: 1,
        httpRequests: 0,
        spendMicros: 0,
      },
    ]);
    expect(name).not.toBe('renamed');
  });

  it('charges the price and currency in force at the call', async () => {
    const { tenantId, installId, call } = await installOf('meter-currency', {
      currency: 'EUR',
      prices: { echo: 100 },
    });
    const now = at('2025-05-02T12:00:00Z');
    await meterCall(database.db, call(), now);
    await database.db
      .update(appInstallLimits)
      .set({ currency: 'USD', prices: { echo: 70 } })
      .where(eq(appInstallLimits.installId, installId));
    await meterCall(database.db, call(), now);
    await meterCall(database.db, call(), now);
    expect((await rowsOf(installId)).map((r) => [r.currency, r.calls, r.spendMicros])).toEqual([
      ['EUR', 1, 100],
      ['USD', 2, 140],
    ]);
    expect(await priceOf(database.db, tenantId, installId, 'echo')).toEqual({
      currency: 'USD',
      priceMicros: 70,
    });
    expect(await priceOf(database.db, tenantId, installId, 'nope')).toEqual({
      currency: 'USD',
      priceMicros: 0,
    });
  });

  it('charges the price the attempt was admitted under when it carries one, not the record changed since', async () => {
    const { installId, call } = await installOf('meter-admitted', { currency: 'EUR', prices: { echo: 100 } });
    const now = at('2025-05-02T12:00:00Z');
    // The quota check read EUR 100; the record moved to USD 70 while the module ran.
    await database.db
      .update(appInstallLimits)
      .set({ currency: 'USD', prices: { echo: 70 } })
      .where(eq(appInstallLimits.installId, installId));
    await meterCall(database.db, call({ price: { currency: 'EUR', priceMicros: 100 } }), now);
    await meterCall(database.db, call({ charged: false, price: { currency: 'EUR', priceMicros: 100 } }), now);
    expect((await rowsOf(installId)).map((r) => [r.currency, r.calls, r.spendMicros])).toEqual([
      ['', 1, 0],
      ['EUR', 1, 100],
    ]);
  });

  it('refuses a negative or fractional HTTP request count and writes nothing', async () => {
    const { installId, call } = await installOf('meter-invalid');
    await expect(meterCall(database.db, call({ httpRequests: -1 }))).rejects.toThrow(/non-negative integer/);
    await expect(meterCall(database.db, call({ httpRequests: 1.5 }))).rejects.toThrow(/non-negative integer/);
    expect(await rowsOf(installId)).toEqual([]);
  });

  it('joins the caller’s transaction: a rollback takes the metering with it', async () => {
    const { installId, call } = await installOf('meter-tx');
    await expect(
      database.db.transaction(async (tx) => {
        await meterCall(tx, call());
        throw new Error('the record failed');
      }),
    ).rejects.toThrow('the record failed');
    expect(await rowsOf(installId)).toEqual([]);
  });
});

describe('usage readers', () => {
  it('sums the tenant’s and the install’s use in the day and month of `now`, spend in the install’s currency', async () => {
    const first = await installOf('usage-sums', { currency: 'EUR', prices: { echo: 10 } });
    const second = await installOf('usage-sums', { currency: 'USD', prices: { echo: 1000 } });
    const stranger = await installOf('usage-stranger', { currency: 'EUR', prices: { echo: 10 } });
    const now = at('2025-06-20T09:00:00Z');
    const meter = (target: typeof first, iso: string, over: Partial<Parameters<typeof meterCall>[1]> = {}) =>
      meterCall(database.db, target.call(over), at(iso));
    await meter(first, '2025-06-20T00:00:00Z', { httpRequests: 3 });
    await meter(first, '2025-06-20T08:00:00Z', { httpRequests: 2, charged: false });
    await meter(first, '2025-06-01T00:00:00Z', { httpRequests: 5 });
    await meter(first, '2025-05-31T23:59:59Z', { httpRequests: 100 }); // last month: not counted
    await meter(first, '2025-07-01T00:00:00Z', { httpRequests: 100 }); // next month: not counted
    await meter(second, '2025-06-20T01:00:00Z', { httpRequests: 7 });
    await meter(second, '2025-06-02T01:00:00Z', { httpRequests: 1 });
    await meter(stranger, '2025-06-20T01:00:00Z', { httpRequests: 50 }); // another tenant

    expect(
      await usageOf(
        database.db,
        { tenantId: first.tenantId, installId: first.installId, currency: 'EUR' },
        now,
      ),
    ).toEqual({
      tenant: {
        day: { calls: 3, httpRequests: 12, spendMicros: 0 },
        month: { calls: 5, httpRequests: 18, spendMicros: 0 },
      },
      install: {
        day: { calls: 2, httpRequests: 5, spendMicros: 10 },
        month: { calls: 3, httpRequests: 10, spendMicros: 20 },
      },
    });
    // Spend counts only in the currency asked for; none without one.
    const other = await usageOf(
      database.db,
      { tenantId: second.tenantId, installId: second.installId, currency: 'EUR' },
      now,
    );
    expect(other.install).toEqual({
      day: { calls: 1, httpRequests: 7, spendMicros: 0 },
      month: { calls: 2, httpRequests: 8, spendMicros: 0 },
    });
    const none = await usageOf(
      database.db,
      { tenantId: second.tenantId, installId: second.installId, currency: null },
      now,
    );
    expect(none.install.month.spendMicros).toBe(0);
    const usd = await usageOf(
      database.db,
      { tenantId: second.tenantId, installId: second.installId, currency: 'USD' },
      now,
    );
    expect(usd.install.month.spendMicros).toBe(2000);
  });

  it('answers zeros where nothing was metered', async () => {
    const quiet = await installOf('usage-quiet');
    const zero = { calls: 0, httpRequests: 0, spendMicros: 0 };
    expect(
      await usageOf(
        database.db,
        { tenantId: quiet.tenantId, installId: quiet.installId, currency: 'EUR' },
        new Date(),
      ),
    ).toEqual({ tenant: { day: zero, month: zero }, install: { day: zero, month: zero } });
  });

  it('names the currencies an install spent in this UTC month, ignoring calls that cost nothing', async () => {
    const target = await installOf('spend-currencies', { currency: 'EUR', prices: { echo: 5 } });
    const spent = () =>
      monthSpendCurrencies(database.db, target.tenantId, target.installId, at('2025-08-31T23:00:00Z'));
    await meterCall(database.db, target.call({ charged: false }), at('2025-08-10T00:00:00Z'));
    await meterCall(database.db, target.call(), at('2025-07-31T23:59:59Z'));
    expect(await spent()).toEqual([]);
    await meterCall(database.db, target.call(), at('2025-08-01T00:00:00Z'));
    expect(await spent()).toEqual(['EUR']);
    // The next month starts clean.
    expect(
      await monthSpendCurrencies(database.db, target.tenantId, target.installId, at('2025-09-01T00:00:00Z')),
    ).toEqual([]);
  });
});
