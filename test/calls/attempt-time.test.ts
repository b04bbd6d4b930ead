// The time an attempt gets and the waits for a runner's capacity (src/calls/attempt-time.ts), pure: one
// row per rule. The minimum useful time is this platform's choice (a second, or the action's whole
// timeoutMs when shorter); the 100 ms floor is the runner's (an action's timeoutMs is 100 to 120000).
import { describe, expect, it } from 'vitest';
import { attemptTimeMs, capacityWaitMs, minimumAttemptMs } from '../../src/calls/attempt-time.ts';

describe('attemptTimeMs: the action’s time cut to the deadline, none below the minimum', () => {
  it.each<{ name: string; timeoutMs: number; left: number | undefined; time: number | null }>([
    {
      name: 'no deadline (a test call): the action’s own time',
      timeoutMs: 15_000,
      left: undefined,
      time: 15_000,
    },
    { name: 'plenty left: the action’s own time', timeoutMs: 15_000, left: 150_000, time: 15_000 },
    { name: 'less left than the action’s time: cut to it', timeoutMs: 15_000, left: 4_000, time: 4_000 },
    { name: 'exactly a second left: started with a second', timeoutMs: 15_000, left: 1_000, time: 1_000 },
    { name: 'less than a second left: not started', timeoutMs: 15_000, left: 999, time: null },
    { name: 'the runner’s floor is far from enough: not started', timeoutMs: 30_000, left: 100, time: null },
    { name: 'a deadline already passed: not started', timeoutMs: 15_000, left: -5, time: null },
    { name: 'an action of 300 ms needs its 300 ms, not a second', timeoutMs: 300, left: 300, time: 300 },
    { name: 'an action of 300 ms with 299 ms left: not started', timeoutMs: 300, left: 299, time: null },
    { name: 'an action of 100 ms (the smallest) with 100 ms left', timeoutMs: 100, left: 100, time: 100 },
  ])('$name', ({ timeoutMs, left, time }) => {
    const now = 1_000_000;
    expect(attemptTimeMs(timeoutMs, left === undefined ? undefined : now + left, now)).toBe(time);
  });

  it('the minimum is a second, or the action’s whole time when shorter, never below 100 ms', () => {
    expect([100, 300, 999, 1_000, 15_000, 120_000].map(minimumAttemptMs)).toEqual([
      100, 300, 999, 1_000, 1_000, 1_000,
    ]);
  });
});

describe('capacityWaitMs: 100 ms doubling to 2 s, between half and all of each, within the deadline', () => {
  const far = { now: 0, deadline: 10 ** 12, minimumMs: 1_000 };
  it.each<{ waits: number; random: number; waitMs: number }>([
    { waits: 0, random: 0, waitMs: 50 },
    { waits: 0, random: 0.999, waitMs: 100 },
    { waits: 1, random: 0.5, waitMs: 150 },
    { waits: 2, random: 0.5, waitMs: 300 },
    { waits: 4, random: 0, waitMs: 800 },
    { waits: 5, random: 0, waitMs: 1_000 },
    { waits: 5, random: 0.999, waitMs: 1_999 },
    { waits: 40, random: 0, waitMs: 1_000 },
  ])('after $waits waits, draw $random: $waitMs ms', ({ waits, random, waitMs }) => {
    expect(capacityWaitMs({ ...far, waits, random })).toBe(waitMs);
  });

  it('no wait when it and the shortest useful attempt after it would pass the deadline', () => {
    const at = { waits: 0, random: 0, now: 0, minimumMs: 1_000 };
    expect(capacityWaitMs({ ...at, deadline: 50 + 1_000 })).toBe(50);
    expect(capacityWaitMs({ ...at, deadline: 50 + 1_000 - 1 })).toBeNull();
  });
});
