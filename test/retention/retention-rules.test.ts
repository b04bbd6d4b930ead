// The retention sweep's rules (src/retention/retention-rules.ts), one row per sentence of the rule
// (docs/retention.md): which rows a pass may take given its clock, how far one table of one tenant goes
// in a pass, and when the first pass runs. The numbers are written out here (97 days, 5,000 rows, five
// minutes), never read from the code's constants.
import { describe, expect, it } from 'vitest';
import { drainPair } from '../../src/retention/retention.ts';
import {
  afterBatch,
  BATCH_SIZE,
  type BatchVerdict,
  callbackCutoff,
  DEFAULT_LIMITS,
  engineCutoff,
  firstPassDelayMs,
  intervalMsOf,
  MAX_BATCHES,
  orphanCutoff,
  submissionEventCutoff,
} from '../../src/retention/retention-rules.ts';

const NOW = new Date('2030-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

describe('callbackCutoff: settled sessions and webhook events go once older than the setting plus 7 days', () => {
  it.each<{ days: number; cutoff: Date | null; why: string }>([
    { days: 90, cutoff: daysAgo(97), why: 'the default: 90 + 7 days' },
    { days: 1, cutoff: daysAgo(8), why: 'the shortest setting' },
    { days: 36500, cutoff: daysAgo(36507), why: 'the longest setting' },
    { days: 0, cutoff: null, why: '0 keeps them forever' },
  ])('$days days: $why', ({ days, cutoff }) => {
    expect(callbackCutoff(NOW, days)).toEqual(cutoff);
  });
});

describe('engineCutoff: the engine’s ended workflows go once ended more than the setting ago', () => {
  const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
  it.each<{ hours: number; cutoff: Date | null; why: string }>([
    { hours: 168, cutoff: hoursAgo(168), why: 'the default: seven days' },
    { hours: 1, cutoff: hoursAgo(1), why: 'the shortest setting' },
    { hours: 87600, cutoff: hoursAgo(87600), why: 'the longest setting: ten years' },
    { hours: 0, cutoff: null, why: '0 keeps them forever' },
  ])('$hours hours: $why', ({ hours, cutoff }) => {
    expect(engineCutoff(NOW, hours)).toEqual(cutoff);
  });
});

describe('orphanCutoff: a session still pending 8 days after it started is timed out', () => {
  it('is 8 days before the pass, whatever the settings', () => {
    expect(orphanCutoff(NOW)).toEqual(daysAgo(8));
  });
});

describe('submissionEventCutoff: drop-off events go after the setting, kept at least 90 days', () => {
  it.each<{ days: number; cutoff: Date | null; why: string }>([
    { days: 90, cutoff: daysAgo(90), why: 'the default' },
    { days: 365, cutoff: daysAgo(365), why: 'longer than the floor: the setting' },
    { days: 30, cutoff: daysAgo(90), why: 'shorter than the longest funnel window: 90 days' },
    { days: 0, cutoff: null, why: '0 keeps them forever' },
  ])('$days days: $why', ({ days, cutoff }) => {
    expect(submissionEventCutoff(NOW, days)).toEqual(cutoff);
  });
});

describe('afterBatch: batches of 5,000 rows, at most 50 of one table for one tenant in a pass', () => {
  it('has the defaults 5,000 and 50 (250,000 rows)', () => {
    expect(BATCH_SIZE).toBe(5000);
    expect(MAX_BATCHES).toBe(50);
    expect(DEFAULT_LIMITS).toEqual({ batchSize: 5000, maxBatches: 50 });
  });

  it.each<{ rows: number; done: number; verdict: BatchVerdict; why: string }>([
    { rows: 5000, done: 1, verdict: 'more', why: 'a full batch: more may be due' },
    { rows: 4999, done: 1, verdict: 'done', why: 'a short batch: nothing more due (or the rest locked)' },
    { rows: 0, done: 1, verdict: 'done', why: 'nothing due' },
    { rows: 5000, done: 49, verdict: 'more', why: 'the 49th full batch: one more' },
    { rows: 5000, done: 50, verdict: 'capped', why: 'the 50th full batch: the pass moves on' },
    { rows: 12, done: 50, verdict: 'done', why: 'the 50th batch came back short: nothing left' },
  ])('$rows rows in batch $done: $verdict ($why)', ({ rows, done, verdict }) => {
    expect(afterBatch(rows, done, DEFAULT_LIMITS)).toBe(verdict);
  });
});

describe('drainPair: one tenant’s table, batch after batch', () => {
  /** A batch function answering these row counts in turn (0 once they run out); records its calls. */
  const batches = (...counts: number[]) => {
    const sizes: number[] = [];
    const batch = async (size: number) => {
      sizes.push(size);
      return counts.shift() ?? 0;
    };
    return { batch, sizes };
  };
  const limits = { batchSize: 2, maxBatches: 3 };

  it.each<{ counts: number[]; rows: number; calls: number; capped: boolean; why: string }>([
    { counts: [], rows: 0, calls: 1, capped: false, why: 'nothing due: one empty batch' },
    { counts: [2, 1], rows: 3, calls: 2, capped: false, why: 'stops at the short batch' },
    { counts: [2, 2, 0], rows: 4, calls: 3, capped: false, why: 'an empty batch after full ones' },
    { counts: [2, 2, 2, 2], rows: 6, calls: 3, capped: true, why: 'three full batches: capped' },
  ])('$why', async ({ counts, rows, calls, capped }) => {
    const { batch, sizes } = batches(...counts);
    expect(await drainPair(batch, limits)).toEqual({ rows, capped });
    expect(sizes).toEqual(Array(calls).fill(2));
  });
});

describe('the schedule: the first pass within five minutes of the start, then every interval', () => {
  it.each<{ random: number; delayMs: number }>([
    { random: 0, delayMs: 30_000 },
    { random: 0.5, delayMs: 165_000 },
    { random: 0.999_999_9, delayMs: 299_999 },
    { random: 1, delayMs: 300_000 },
  ])('random $random: first pass after $delayMs ms (30 s to 5 min)', ({ random, delayMs }) => {
    expect(firstPassDelayMs(random)).toBe(delayMs);
  });

  it('waits RETENTION_INTERVAL_MINUTES between passes', () => {
    expect(intervalMsOf(60)).toBe(3_600_000);
    expect(intervalMsOf(1)).toBe(60_000);
  });
});
