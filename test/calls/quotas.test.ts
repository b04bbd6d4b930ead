// The pure rules of quotas and budgets (docs/limits-and-metering.md "The check before an attempt").
import { describe, expect, it } from 'vitest';
import {
  actionPrice,
  dayKey,
  dearestPrice,
  type LimitStanding,
  limitKey,
  limitStandings,
  meteringDays,
  NO_USAGE,
  type PeriodUsage,
  periodBounds,
  type QuotaInputs,
  quotaRefusal,
  refusalMessage,
  refuses,
  type UsageSnapshot,
} from '../../src/calls/quotas.ts';

const at = (iso: string) => new Date(iso);

describe('periods', () => {
  it('a day starts 00:00 UTC and resets at the next midnight', () => {
    expect(periodBounds('day', at('2025-03-14T15:09:26.535Z'))).toEqual({
      start: at('2025-03-14T00:00:00.000Z'),
      resetsAt: at('2025-03-15T00:00:00.000Z'),
    });
    // The first and last instants of a day belong to it.
    expect(periodBounds('day', at('2025-03-14T00:00:00.000Z')).start).toEqual(at('2025-03-14T00:00:00.000Z'));
    expect(periodBounds('day', at('2025-03-14T23:59:59.999Z')).resetsAt).toEqual(
      at('2025-03-15T00:00:00.000Z'),
    );
  });

  it('a day ends at month, year and leap-day boundaries', () => {
    expect(periodBounds('day', at('2024-02-28T12:00:00Z')).resetsAt).toEqual(at('2024-02-29T00:00:00Z'));
    expect(periodBounds('day', at('2024-02-29T12:00:00Z')).resetsAt).toEqual(at('2024-03-01T00:00:00Z'));
    expect(periodBounds('day', at('2025-12-31T23:00:00Z'))).toEqual({
      start: at('2025-12-31T00:00:00Z'),
      resetsAt: at('2026-01-01T00:00:00Z'),
    });
  });

  it('a month starts on its first day and resets on the next month’s, December into January', () => {
    expect(periodBounds('month', at('2025-03-14T15:09:26Z'))).toEqual({
      start: at('2025-03-01T00:00:00Z'),
      resetsAt: at('2025-04-01T00:00:00Z'),
    });
    expect(periodBounds('month', at('2025-12-31T23:59:59.999Z'))).toEqual({
      start: at('2025-12-01T00:00:00Z'),
      resetsAt: at('2026-01-01T00:00:00Z'),
    });
    expect(periodBounds('month', at('2024-02-29T08:00:00Z')).resetsAt).toEqual(at('2024-03-01T00:00:00Z'));
  });

  it('reads UTC whatever the local offset a time was written with', () => {
    // 01:30 in Berlin on the 1st is still the last day of the month before in UTC.
    const now = at('2025-04-01T01:30:00+02:00');
    expect(dayKey(now)).toBe('2025-03-31');
    expect(periodBounds('month', now).start).toEqual(at('2025-03-01T00:00:00Z'));
  });

  it('names metering days as YYYY-MM-DD and a period as a half-open range of them', () => {
    expect(dayKey(at('2025-03-05T23:59:59Z'))).toBe('2025-03-05');
    expect(meteringDays('day', at('2025-03-05T10:00:00Z'))).toEqual({ from: '2025-03-05', to: '2025-03-06' });
    expect(meteringDays('month', at('2025-12-05T10:00:00Z'))).toEqual({
      from: '2025-12-01',
      to: '2026-01-01',
    });
  });
});

describe('one limit', () => {
  it('calls: refused when this call would be one too many', () => {
    expect(refuses('calls', 3, 2, 0)).toBe(false);
    expect(refuses('calls', 3, 3, 0)).toBe(true);
    expect(refuses('calls', 0, 0, 0)).toBe(true);
  });

  it('http_requests: refused once the period’s are used up', () => {
    expect(refuses('http_requests', 10, 9, 0)).toBe(false);
    expect(refuses('http_requests', 10, 10, 0)).toBe(true);
    expect(refuses('http_requests', 0, 0, 0)).toBe(true);
  });

  it('spend: refused when the price would pass the budget; reaching it exactly is allowed', () => {
    expect(refuses('spend', 1000, 700, 300)).toBe(false);
    expect(refuses('spend', 1000, 701, 300)).toBe(true);
    // A call without a price spends nothing: no spend budget refuses it, even one already passed.
    expect(refuses('spend', 1000, 1500, 0)).toBe(false);
    expect(refuses('spend', 0, 0, 1)).toBe(true);
  });
});

const usage = (u: Partial<PeriodUsage>): PeriodUsage => ({ ...NO_USAGE, ...u });
const snapshot = (s: {
  tenantDay?: Partial<PeriodUsage>;
  tenantMonth?: Partial<PeriodUsage>;
  installDay?: Partial<PeriodUsage>;
  installMonth?: Partial<PeriodUsage>;
}): UsageSnapshot => ({
  tenant: { day: usage(s.tenantDay ?? {}), month: usage(s.tenantMonth ?? {}) },
  install: { day: usage(s.installDay ?? {}), month: usage(s.installMonth ?? {}) },
});
const NOW = at('2025-03-14T15:09:26Z');
const DAY = { periodStart: at('2025-03-14T00:00:00Z'), resetsAt: at('2025-03-15T00:00:00Z') };
const MONTH = { periodStart: at('2025-03-01T00:00:00Z'), resetsAt: at('2025-04-01T00:00:00Z') };
const inputs = (i: Partial<QuotaInputs>): QuotaInputs => ({
  quotas: [],
  budgets: [],
  currency: null,
  price: 0,
  usage: snapshot({}),
  now: NOW,
  ...i,
});

describe('the refusal decision', () => {
  it('refuses nothing without limits, or with limits still open', () => {
    expect(quotaRefusal(inputs({ usage: snapshot({ tenantDay: { calls: 10 ** 9 } }) }))).toBeNull();
    expect(
      quotaRefusal(
        inputs({
          quotas: [{ metric: 'calls', period: 'day', max: 5 }],
          budgets: [
            { metric: 'http_requests', period: 'month', max: 100 },
            { metric: 'spend', period: 'day', max: 1000 },
          ],
          currency: 'EUR',
          price: 500,
          usage: snapshot({
            tenantDay: { calls: 4 },
            installMonth: { httpRequests: 99 },
            installDay: { spendMicros: 500 },
          }),
        }),
      ),
    ).toBeNull();
  });

  it('names the tenant quota that refuses, with its period', () => {
    expect(
      quotaRefusal(
        inputs({
          quotas: [{ metric: 'http_requests', period: 'month', max: 50 }],
          usage: snapshot({ tenantMonth: { httpRequests: 50, calls: 3 } }),
        }),
      ),
    ).toEqual({
      scope: 'tenant',
      metric: 'http_requests',
      period: 'month',
      max: 50,
      used: 50,
      currency: null,
      ...MONTH,
    });
  });

  it('weighs the operator’s quotas before the install’s budgets', () => {
    const refusal = quotaRefusal(
      inputs({
        quotas: [{ metric: 'http_requests', period: 'day', max: 10 }],
        budgets: [{ metric: 'calls', period: 'day', max: 1 }],
        usage: snapshot({ tenantDay: { httpRequests: 10 }, installDay: { calls: 1 } }),
      }),
    );
    expect(refusal).toMatchObject({ scope: 'tenant', metric: 'http_requests', period: 'day' });
  });

  it('within a layer, names calls before HTTP requests before spend, the day before the month', () => {
    const budgets = [
      { metric: 'spend', period: 'day', max: 0 },
      { metric: 'http_requests', period: 'month', max: 0 },
      { metric: 'calls', period: 'month', max: 0 },
      { metric: 'calls', period: 'day', max: 0 },
    ] as const;
    const base = inputs({ budgets: [...budgets], currency: 'EUR', price: 1 });
    expect(quotaRefusal(base)).toEqual({
      scope: 'install',
      metric: 'calls',
      period: 'day',
      max: 0,
      used: 0,
      currency: null,
      ...DAY,
    });
    expect(quotaRefusal({ ...base, budgets: budgets.slice(0, 2) })).toMatchObject({
      metric: 'http_requests',
    });
  });

  it('refuses a priced call that would pass a spend budget, in the install’s currency', () => {
    expect(
      quotaRefusal(
        inputs({
          budgets: [{ metric: 'spend', period: 'month', max: 1_000_000 }],
          currency: 'CHF',
          price: 250_000,
          usage: snapshot({ installMonth: { spendMicros: 800_000 } }),
        }),
      ),
    ).toEqual({
      scope: 'install',
      metric: 'spend',
      period: 'month',
      max: 1_000_000,
      used: 800_000,
      currency: 'CHF',
      ...MONTH,
    });
  });

  it('counts each scope and period from its own usage', () => {
    // The tenant's other installs used the day; this install did not: the install's budget holds.
    const decision = inputs({
      budgets: [{ metric: 'calls', period: 'day', max: 2 }],
      usage: snapshot({ tenantDay: { calls: 50 }, installDay: { calls: 1 } }),
    });
    expect(quotaRefusal(decision)).toBeNull();
    expect(
      quotaRefusal({ ...decision, usage: snapshot({ tenantDay: { calls: 50 }, installDay: { calls: 2 } }) }),
    ).toMatchObject({ scope: 'install', used: 2, max: 2 });
  });
});

describe('the price of an action', () => {
  it('is its own price in micros, 0 without one or without a currency', () => {
    const limits = { currency: 'EUR', prices: { verify: 1500, free: 0 } };
    expect(actionPrice(limits, 'verify')).toBe(1500);
    expect(actionPrice(limits, 'free')).toBe(0);
    expect(actionPrice(limits, 'other')).toBe(0);
    // An action named like an Object.prototype member inherits no price.
    expect(actionPrice(limits, 'constructor')).toBe(0);
    expect(actionPrice({ currency: null, prices: { verify: 1500 } }, 'verify')).toBe(0);
  });
});

describe('standings of limits', () => {
  it('weighs each limit against its current period in the check’s order, reached by the refusal rule', () => {
    const standings = limitStandings(
      [
        { metric: 'spend', period: 'month', max: 1000 },
        { metric: 'calls', period: 'month', max: 10 },
        { metric: 'calls', period: 'day', max: 3 },
      ],
      { day: usage({ calls: 3 }), month: usage({ calls: 9, spendMicros: 700 }) },
      300,
      NOW,
    );
    expect(standings).toEqual([
      { metric: 'calls', period: 'day', max: 3, used: 3, ...DAY, reached: true },
      { metric: 'calls', period: 'month', max: 10, used: 9, ...MONTH, reached: false },
      { metric: 'spend', period: 'month', max: 1000, used: 700, ...MONTH, reached: false },
    ]);
  });

  it('names as the refusal the first standing reached, so report and check agree', () => {
    const i = inputs({
      quotas: [{ metric: 'http_requests', period: 'day', max: 10 }],
      budgets: [{ metric: 'calls', period: 'day', max: 2 }],
      usage: snapshot({ tenantDay: { httpRequests: 9 }, installDay: { calls: 2 } }),
    });
    const reached = [
      ...limitStandings(i.quotas, i.usage.tenant, i.price, NOW),
      ...limitStandings(i.budgets, i.usage.install, i.price, NOW),
    ].find((s) => s.reached);
    expect(reached).toMatchObject({ metric: 'calls', period: 'day', used: 2 });
    const { reached: _, ...limit } = reached as LimitStanding;
    expect(quotaRefusal(i)).toEqual({ scope: 'install', ...limit, currency: null });
  });

  it('weighs spend budgets in a report with the dearest action the running version has', () => {
    const limits = { currency: 'EUR', prices: { verify: 1500, lookup: 200, gone: 9000 } };
    expect(dearestPrice(limits, ['lookup', 'verify', 'echo'])).toBe(1500);
    expect(dearestPrice(limits, ['echo'])).toBe(0);
    expect(dearestPrice({ ...limits, currency: null }, ['verify'])).toBe(0);
    expect(dearestPrice(limits, [])).toBe(0);
  });
});

describe('naming a refusal', () => {
  it('keys a limit by scope, the install’s id for a budget, metric and period', () => {
    const id = '0b6f3f8e-36d5-4c1c-9f3f-0f9d1f1b2c3d';
    expect(limitKey({ scope: 'tenant', metric: 'calls', period: 'day' }, id)).toBe('tenant:calls:day');
    expect(limitKey({ scope: 'install', metric: 'spend', period: 'month' }, id)).toBe(
      `install:${id}:spend:month`,
    );
  });

  it('says which limit refused and when it resets', () => {
    expect(
      refusalMessage(
        { scope: 'tenant', metric: 'calls', period: 'day', max: 5, used: 5, currency: null, ...DAY },
        'kyc',
      ),
    ).toBe('the tenant’s daily calls quota is used up (5 of 5); it resets at 2025-03-15T00:00:00.000Z');
    expect(
      refusalMessage(
        { scope: 'install', metric: 'spend', period: 'month', max: 10, used: 8, currency: 'EUR', ...MONTH },
        'kyc',
      ),
    ).toBe(
      'the call’s price would pass install kyc’s monthly spend budget (8 of 10 micros EUR spent); it resets at 2025-04-01T00:00:00.000Z',
    );
  });
});
