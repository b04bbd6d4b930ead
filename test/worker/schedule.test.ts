// Periodic passes (src/worker/schedule.ts) on a timer the test fires itself: the first pass after its
// delay, the next an interval after a pass ends (never two at once), a failed pass told and followed by
// the next, and stop() waiting for the pass under way. Nothing here sleeps.
import { describe, expect, it } from 'vitest';
import { schedulePasses, type Timer, together } from '../../src/worker/schedule.ts';

/** A timer that only records: `fire()` runs the pending callback. */
function manualTimer() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timer: Timer = {
    setTimeout(callback, ms) {
      next += 1;
      pending.set(next, { callback, ms });
      return next;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timer,
    /** The delays of the callbacks waiting now. */
    waiting: () => [...pending.values()].map((entry) => entry.ms),
    fire() {
      const [handle, entry] = [...pending.entries()][0] ?? [];
      if (handle === undefined || !entry) throw new Error('nothing scheduled');
      pending.delete(handle);
      entry.callback();
    },
  };
}

/** A pass the test ends by hand. */
function manualPass() {
  const ends: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let calls = 0;
  const pass = () =>
    new Promise<void>((resolve, reject) => {
      calls += 1;
      ends.push({ resolve, reject });
    });
  return {
    pass,
    calls: () => calls,
    end: () => ends.shift()?.resolve(),
    fail: (error: Error) => ends.shift()?.reject(error),
  };
}

/** Lets the promise callbacks of a settled pass run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('schedulePasses', () => {
  it('runs the first pass after its delay, then the next an interval after each pass ended', async () => {
    const clock = manualTimer();
    const passes = manualPass();
    const errors: unknown[] = [];
    const schedule = schedulePasses({
      firstDelayMs: 120_000,
      intervalMs: 3_600_000,
      pass: passes.pass,
      onError: (error) => errors.push(error),
      timer: clock.timer,
    });
    expect(clock.waiting()).toEqual([120_000]);
    expect(passes.calls()).toBe(0);

    clock.fire();
    expect(passes.calls()).toBe(1);
    // While a pass runs nothing else is scheduled: passes never overlap.
    expect(clock.waiting()).toEqual([]);
    passes.end();
    await settle();
    expect(clock.waiting()).toEqual([3_600_000]);

    clock.fire();
    expect(passes.calls()).toBe(2);
    passes.fail(new Error('database away'));
    await settle();
    expect(errors).toEqual([new Error('database away')]);
    expect(clock.waiting()).toEqual([3_600_000]);

    await schedule.stop();
    expect(clock.waiting()).toEqual([]);
  });

  it('stop() cancels the next pass and waits for the one under way', async () => {
    const clock = manualTimer();
    const passes = manualPass();
    const schedule = schedulePasses({
      firstDelayMs: 1,
      intervalMs: 60_000,
      pass: passes.pass,
      onError: () => {},
      timer: clock.timer,
    });
    clock.fire();
    let stopped = false;
    const stopping = schedule.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    passes.end();
    await stopping;
    expect(stopped).toBe(true);
    // A pass that ended after stop() schedules none.
    expect(clock.waiting()).toEqual([]);
  });

  it('together() stops every part', async () => {
    const clocks = [manualTimer(), manualTimer()];
    const parts = clocks.map((clock) =>
      schedulePasses({
        firstDelayMs: 5,
        intervalMs: 5,
        pass: async () => {},
        onError: () => {},
        timer: clock.timer,
      }),
    );
    await together(...parts).stop();
    expect(clocks.map((clock) => clock.waiting())).toEqual([[], []]);
  });
});
