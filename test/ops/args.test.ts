// The operator's arguments read into values, and amounts and limits as printed (src/ops/args.ts,
// src/ops/tenants-usage.ts): pure, table by table.
import { describe, expect, it } from 'vitest';
import { amountText, monthArg, nameAtVersion, quotaMax, spendText } from '../../src/ops/args.ts';
import { OpsUsageError } from '../../src/ops/runtime.ts';
import { standingText } from '../../src/ops/tenants-usage.ts';

describe('nameAtVersion', () => {
  it.each([
    ['kyc-vendor@1.2.0', { name: 'kyc-vendor', version: '1.2.0' }],
    ['a@0.0.1-beta.2', { name: 'a', version: '0.0.1-beta.2' }],
  ])('%s', (text, value) => {
    expect(nameAtVersion(text)).toEqual(value);
  });

  it.each([
    ['no version', 'kyc-vendor', /expected <name>@<version>/],
    ['an empty version', 'kyc-vendor@', /semantic version/],
    ['two numbers', 'kyc-vendor@1.2', /semantic version/],
    ['build metadata', 'kyc-vendor@1.2.0+7', /semantic version/],
    ['a leading zero', 'kyc-vendor@01.2.0', /semantic version/],
    ['capitals in the name', 'KYC@1.0.0', /the name: expected 1 to 100 lower-case/],
    ['an empty name', '@1.0.0', /the name/],
  ])('refuses %s: a usage error', (_case, text, message) => {
    expect(() => nameAtVersion(text)).toThrow(OpsUsageError);
    expect(() => nameAtVersion(text)).toThrow(message);
  });
});

describe('monthArg', () => {
  it.each(['2026-01', '2026-12', '1999-09'])('takes %s', (month) => expect(monthArg(month)).toBe(month));
  it.each(['2026-13', '2026-00', '2026-1', '2026-03-01', '', 'march'])('refuses "%s"', (month) => {
    expect(() => monthArg(month)).toThrow(OpsUsageError);
  });
});

describe('quotaMax', () => {
  it.each([
    ['0', 0],
    ['100000', 100000],
    ['none', 'none'],
  ] as const)('%s', (text, value) => expect(quotaMax(text)).toBe(value));
  it.each(['-1', '1.5', '1e3', '', 'None', ' 5', '99999999999999999999'])('refuses "%s"', (text) => {
    expect(() => quotaMax(text)).toThrow(OpsUsageError);
  });
});

describe('amounts', () => {
  it.each([
    [{ currency: 'EUR', micros: 0 }, '0 EUR'],
    [{ currency: 'EUR', micros: 2_500_000 }, '2.5 EUR'],
    [{ currency: 'USD', micros: 100 }, '0.0001 USD'],
    [{ currency: 'JPY', micros: 1_000_000_000 }, '1000 JPY'],
    [{ currency: 'EUR', micros: 1_234_567 }, '1.234567 EUR'],
  ])('%o is %s', (amount, text) => expect(amountText(amount)).toBe(text));

  it('prints spend per currency, never summed, and - for none', () => {
    expect(
      spendText([
        { currency: 'EUR', micros: 2500 },
        { currency: 'USD', micros: 100 },
      ]),
    ).toBe('0.0025 EUR, 0.0001 USD');
    expect(spendText([])).toBe('-');
    expect(spendText(undefined)).toBe('-');
  });
});

describe('standingText', () => {
  const standing = {
    metric: 'calls' as const,
    period: 'day' as const,
    max: 1000,
    used: 1000,
    periodStart: '2026-03-02T00:00:00.000Z',
    resetsAt: '2026-03-03T00:00:00.000Z',
    reached: true,
  };
  it.each([
    ['a reached calls limit', standing, null, 'calls/day 1000/1000 reached'],
    ['one with room', { ...standing, used: 3, reached: false }, null, 'calls/day 3/1000'],
    [
      'a spend budget in its currency',
      {
        ...standing,
        metric: 'spend' as const,
        period: 'month' as const,
        max: 50_000_000,
        used: 3_000_000,
        reached: false,
      },
      'EUR',
      'spend/month 3 EUR/50 EUR',
    ],
    [
      'a spend budget without a currency',
      { ...standing, metric: 'spend' as const, max: 5, used: 1, reached: false },
      null,
      'spend/day 1/5',
    ],
  ])('%s', (_case, value, currency, text) => {
    expect(standingText(value, currency)).toBe(text);
  });
});
