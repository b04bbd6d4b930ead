// The runner's gate: calls in flight per process and per tenant (a long call counting twice), and a
// tenant's allowance of ended sandbox threads (each costs the runner a new thread): spent, it makes the
// tenant's calls busy until one is given back, a second later; other tenants are not touched. Time is
// the test's own clock.
import { describe, expect, it } from 'vitest';
import { afterEnded, allowanceAt, ENDED_THREAD_REFILL_MS, Gate } from '../../src/runner/gate.ts';

describe('allowance of ended threads', () => {
  const full = 4;
  it.each([
    ['full stays full', { left: 4, at: 0 }, 10_000, 4],
    ['one back a refill later', { left: 1, at: 0 }, ENDED_THREAD_REFILL_MS, 2],
    ['part of one back before', { left: 0, at: 0 }, ENDED_THREAD_REFILL_MS / 2, 0.5],
    ['no more than full', { left: -4, at: 0 }, 100 * ENDED_THREAD_REFILL_MS, 4],
    ['a clock going back gives nothing', { left: 1, at: 5_000 }, 0, 1],
  ] as const)('%s', (_case, allowance, now, left) => {
    expect(allowanceAt(allowance, now, full)).toBe(left);
  });

  it.each([
    ['one ended thread takes one', { left: 4, at: 0 }, 0, { left: 3, at: 0 }],
    ['what came back meanwhile counts', { left: 0, at: 0 }, ENDED_THREAD_REFILL_MS, { left: 0, at: 1_000 }],
    ['never below minus half of full', { left: -2, at: 0 }, 0, { left: -2, at: 0 }],
  ] as const)('%s', (_case, allowance, now, after) => {
    expect(afterEnded(allowance, now, full)).toEqual(after);
  });
});

describe('Gate', () => {
  const clock = () => {
    const c = { now: 0, read: () => c.now };
    return c;
  };

  it('admits up to the tenant concurrency and the process concurrency', () => {
    const gate = new Gate(3, 2);
    expect([gate.tryEnter('a'), gate.tryEnter('a'), gate.tryEnter('a')]).toEqual([true, true, false]);
    expect(gate.tryEnter('b')).toBe(true);
    expect(gate.full).toBe(true);
    expect(gate.tryEnter('c')).toBe(false);
    gate.leave('a');
    expect(gate.tryEnter('c')).toBe(true);
    expect(gate.inFlight).toBe(3);
  });

  it('counts a long call twice against its tenant, until it ends', () => {
    const gate = new Gate(8, 4);
    expect([gate.tryEnter('a'), gate.tryEnter('a')]).toEqual([true, true]);
    gate.longCall('a', 1);
    expect(gate.tryEnter('a')).toBe(true);
    expect(gate.tryEnter('a')).toBe(false);
    expect(gate.tryEnter('b')).toBe(true);
    expect(gate.longCalls).toBe(1);
    gate.longCall('a', -1);
    gate.leave('a');
    expect(gate.tryEnter('a')).toBe(true);
    expect(gate.longCalls).toBe(0);
  });

  it('makes a tenant busy once its allowance (twice its concurrency) is spent, until one is back; others are not', () => {
    const time = clock();
    const gate = new Gate(8, 2, time.read);
    for (let i = 0; i < 3; i++) gate.threadEnded('a');
    expect(gate.restricted('a')).toBe(false);
    expect(gate.tryEnter('a')).toBe(true);
    gate.leave('a');
    gate.threadEnded('a');
    expect(gate.restricted('a')).toBe(true);
    expect(gate.tryEnter('a')).toBe(false);
    expect(gate.tryEnter('b')).toBe(true);
    time.now = ENDED_THREAD_REFILL_MS - 1;
    expect(gate.tryEnter('a')).toBe(false);
    time.now = ENDED_THREAD_REFILL_MS;
    expect(gate.tryEnter('a')).toBe(true);
    expect(gate.restricted('a')).toBe(false);
  });

  it('keeps a tenant that ended many threads at once busy longer: its concurrency and one refills at most', () => {
    const time = clock();
    const gate = new Gate(8, 2, time.read);
    for (let i = 0; i < 10; i++) gate.threadEnded('a');
    time.now = 3 * ENDED_THREAD_REFILL_MS - 1;
    expect(gate.restricted('a')).toBe(true);
    time.now = 3 * ENDED_THREAD_REFILL_MS;
    expect(gate.restricted('a')).toBe(false);
  });
});
