// The runs, vendor sessions and usage pages' pure rules, a row per case: the runs list's filters from the
// URL, durations, whether a run may be cancelled, a run's steps as timeline rows, and the usage page's
// month, days, spend, limits and a chart's text alternative.
import { describe, expect, it } from 'vitest';
import {
  cancelRefusal,
  formatDuration,
  instantOfLocal,
  isInMotion,
  localOfInstant,
  runFiltersOf,
  type StepLike,
  timelineRows,
} from '../../console/src/pages/runs/run-rules.ts';
import {
  chartSummary,
  dailySeries,
  monthDays,
  monthOf,
  spendText,
  standingText,
} from '../../console/src/pages/usage/usage-rules.ts';

const reader = (params: Record<string, string>) => (name: string) => params[name];

describe('the runs list’s filters from the URL', () => {
  it.each([
    ['nothing', {}, {}],
    ['a known status', { status: 'waiting_callback' }, { status: 'waiting_callback' }],
    ['an unknown status, left out', { status: 'sleeping' }, {}],
    ['text trimmed, blank left out', { workflow: ' kyc ', subjectId: '  ' }, { workflow: 'kyc' }],
    [
      'times as instants',
      { from: '2030-05-01T10:00:00+02:00', to: '2030-05-02T00:00:00Z' },
      { from: '2030-05-01T08:00:00.000Z', to: '2030-05-02T00:00:00.000Z' },
    ],
    ['a time that is no date-time, left out', { from: 'yesterday', to: '2030-13-45T00:00:00Z' }, {}],
  ])('%s', (_case, params, filters) => {
    expect(runFiltersOf(reader(params))).toEqual(filters);
  });

  it('a datetime-local value and its instant go both ways in the reader’s time zone', () => {
    const instant = instantOfLocal('2030-05-01T10:30');
    expect(instant).toBe(new Date('2030-05-01T10:30').toISOString());
    expect(localOfInstant(instant ?? undefined)).toBe('2030-05-01T10:30');
    expect(instantOfLocal('')).toBeNull();
    expect(instantOfLocal('10:30')).toBeNull();
    expect(localOfInstant(undefined)).toBe('');
    expect(localOfInstant('garbage')).toBe('');
  });
});

describe('a run in motion, its cancel and durations', () => {
  it.each([
    ['running', true, null],
    ['waiting_callback', true, null],
    ['completed', false, 'This run has ended (completed): it can no longer be cancelled.'],
    ['failed', false, 'This run has ended (failed): it can no longer be cancelled.'],
    ['cancelled', false, 'This run has ended (cancelled): it can no longer be cancelled.'],
  ])('%s: in motion %s, cancel refusal %s', (status, moving, refusal) => {
    expect(isInMotion(status)).toBe(moving);
    expect(cancelRefusal(status)).toBe(refusal);
  });

  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [12_345, '12.3 s'],
    [245_000, '4 min 05 s'],
    [7_380_000, '2 h 03 min'],
  ])('%i ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('a run’s steps as timeline rows', () => {
  const T = Date.parse('2030-01-01T00:00:00.000Z');
  const at = (ms: number) => new Date(T + ms).toISOString();
  const step = (id: string, status: string, start: number | null, end: number | null): StepLike => ({
    id,
    type: 'call_app',
    status,
    attempts: start === null ? 0 : 1,
    startedAt: start === null ? null : at(start),
    completedAt: end === null ? null : at(end),
  });
  const bars = (steps: StepLike[], now: number) =>
    timelineRows(steps, T + now).map(({ id, durationMs, ongoing, offset, width }) => ({
      id,
      durationMs,
      ongoing,
      offset,
      width,
    }));

  it.each([
    [
      'two steps one after the other share the span',
      [step('a', 'completed', 0, 250), step('b', 'completed', 250, 1000)],
      5_000,
      [
        { id: 'a', durationMs: 250, ongoing: false, offset: 0, width: 25 },
        { id: 'b', durationMs: 750, ongoing: false, offset: 25, width: 75 },
      ],
    ],
    [
      'a step still going counts to now; a pending one has no bar',
      [step('a', 'completed', 0, 1000), step('b', 'running', 1000, null), step('c', 'pending', null, null)],
      4_000,
      [
        { id: 'a', durationMs: 1000, ongoing: false, offset: 0, width: 25 },
        { id: 'b', durationMs: 3000, ongoing: true, offset: 25, width: 75 },
        { id: 'c', durationMs: null, ongoing: false, offset: 0, width: 0 },
      ],
    ],
    [
      'an instant step still shows (the narrowest bar), inside the span',
      [step('a', 'completed', 0, 10_000), step('b', 'failed', 10_000, 10_000)],
      20_000,
      [
        { id: 'a', durationMs: 10_000, ongoing: false, offset: 0, width: 100 },
        { id: 'b', durationMs: 0, ongoing: false, offset: 99.5, width: 0.5 },
      ],
    ],
    [
      'no step started',
      [step('a', 'skipped', null, null)],
      0,
      [{ id: 'a', durationMs: null, ongoing: false, offset: 0, width: 0 }],
    ],
    [
      'a clock behind a running step’s start counts nothing',
      [step('a', 'running', 1000, null)],
      0,
      [{ id: 'a', durationMs: 0, ongoing: true, offset: 0, width: 0.5 }],
    ],
  ])('%s', (_case, steps, now, rows) => {
    expect(bars(steps, now)).toEqual(rows);
  });

  it('keeps each step’s fields', () => {
    expect(timelineRows([step('a', 'completed', 0, 5)], T)[0]).toMatchObject({
      id: 'a',
      type: 'call_app',
      status: 'completed',
      attempts: 1,
      startedAt: at(0),
      completedAt: at(5),
    });
  });
});

describe('usage', () => {
  const now = new Date('2030-03-15T12:00:00Z');
  it.each([
    [undefined, '2030-03'],
    ['2029-12', '2029-12'],
    ['2029-13', '2030-03'],
    ['2029-1', '2030-03'],
    ['2029-01-01', '2030-03'],
  ])('month %s reads %s', (asked, month) => {
    expect(monthOf(asked, now)).toBe(month);
  });

  it.each([
    ['2030-02', { from: '2030-02-01', to: '2030-02-28' }],
    ['2028-02', { from: '2028-02-01', to: '2028-02-29' }],
    ['2030-12', { from: '2030-12-01', to: '2030-12-31' }],
  ])('the days of %s', (month, days) => {
    expect(monthDays(month)).toEqual(days);
  });

  it('a day-by-day series sums a day’s actions and fills the days without use', () => {
    const zero = { calls: 0, httpRequests: 0, webhooks: 0, handoffs: 0 };
    expect(
      dailySeries(
        [
          { day: '2030-03-02', calls: 2, httpRequests: 4, webhooks: 1, handoffs: 0 },
          { day: '2030-03-02', calls: 1, httpRequests: 1, webhooks: 0, handoffs: 1 },
          { day: '2030-03-03', calls: 5, httpRequests: 0, webhooks: 0, handoffs: 0 },
        ],
        '2030-03-01',
        '2030-03-04',
      ),
    ).toEqual([
      { day: '2030-03-01', ...zero },
      { day: '2030-03-02', calls: 3, httpRequests: 5, webhooks: 1, handoffs: 1 },
      { day: '2030-03-03', ...zero, calls: 5 },
      { day: '2030-03-04', ...zero },
    ]);
  });

  it.each([
    [[], 'none'],
    [[{ currency: 'EUR', micros: 3_000_000 }], 'EUR 3.00'],
    [
      [
        { currency: 'EUR', micros: 1_250_000 },
        { currency: 'USD', micros: 10_000 },
      ],
      'EUR 1.25, USD 0.01',
    ],
  ])('spend %j reads %s', (spend, text) => {
    expect(spendText(spend)).toBe(text);
  });

  it.each([
    [
      { metric: 'calls', period: 'month', max: 100_000, used: 1250, reached: false },
      null,
      '1,250 of 100,000 calls this month',
    ],
    [
      { metric: 'http_requests', period: 'day', max: 3, used: 3, reached: true },
      null,
      '3 of 3 HTTP requests today (reached)',
    ],
    [
      { metric: 'spend', period: 'month', max: 50_000_000, used: 3_000_000, reached: false },
      'EUR',
      'EUR 3.00 of EUR 50.00 spend this month',
    ],
  ])('%j reads as a sentence', (standing, currency, text) => {
    expect(standingText(standing, currency)).toBe(text);
  });

  it('a chart’s text alternative reads every number', () => {
    expect(
      chartSummary(
        'Use per install',
        ['idv', 'kyc'],
        [
          { label: 'Calls', values: [3, 0] },
          { label: 'Vendor webhooks', values: [2, 1] },
        ],
      ),
    ).toBe('Use per install. Calls: idv 3, kyc 0. Vendor webhooks: idv 2, kyc 1.');
    expect(chartSummary('Use per day', [], [])).toBe('Use per day: no use.');
  });
});
