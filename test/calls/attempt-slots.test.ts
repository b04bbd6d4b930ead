// A worker process's places for attempts (src/runs/attempt-slots.ts): at most so many at once, at most so
// many of one tenant, in order, a tenant at its bound never holding up another, a place given up while
// its holder waits for the runner. Every step is awaited on state (promises the test resolves), never time.
import { describe, expect, it } from 'vitest';
import { AttemptSlots, admitted, hasRoom } from '../../src/calls/attempt-slots.ts';

/** An attempt the test ends: started once it holds a place, ended when `end` is called. */
function attempt(slots: AttemptSlots, tenantId: string, log: string[], name: string) {
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const done = slots.run(tenantId, async () => {
    log.push(`start ${name}`);
    await ended;
    log.push(`end ${name}`);
  });
  return { end, done };
}

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AttemptSlots', () => {
  it('holds a tenant to its bound while another tenant goes on', async () => {
    const slots = new AttemptSlots(8, 2);
    const log: string[] = [];
    const a = [1, 2, 3].map((i) => attempt(slots, 'a', log, `a${i}`));
    const b = attempt(slots, 'b', log, 'b1');
    await settle();
    expect(log).toEqual(['start a1', 'start a2', 'start b1']);
    expect(slots.heldBy('a')).toBe(2);
    a[0]?.end();
    await settle();
    expect(log).toEqual(['start a1', 'start a2', 'start b1', 'end a1', 'start a3']);
    for (const x of [...a, b]) x.end();
    await Promise.all([...a, b].map((x) => x.done));
    expect([slots.heldBy('a'), slots.heldBy('b'), slots.waiting]).toEqual([0, 0, 0]);
  });

  it('bounds the process: a freed place goes to the first waiter whose tenant has room', async () => {
    const slots = new AttemptSlots(2, 1);
    const log: string[] = [];
    const a1 = attempt(slots, 'a', log, 'a1');
    const b1 = attempt(slots, 'b', log, 'b1');
    const a2 = attempt(slots, 'a', log, 'a2'); // waits: the process is full, and tenant a at its bound
    const c1 = attempt(slots, 'c', log, 'c1'); // waits: the process is full
    await settle();
    expect(log).toEqual(['start a1', 'start b1']);
    b1.end(); // a2's tenant still holds its one place: c1, behind it, takes the freed place
    await settle();
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'start c1']);
    a1.end();
    await settle();
    expect(log.slice(-2)).toEqual(['end a1', 'start a2']);
    a2.end();
    c1.end();
    await Promise.all([a1.done, b1.done, a2.done, c1.done]);
  });

  it('a holder waiting for the runner gives its place up, and waits in line for one again', async () => {
    let endPause = () => {};
    const pauseUntilEnded = () =>
      new Promise<void>((resolve) => {
        endPause = resolve;
      });
    const slots = new AttemptSlots(1, 1, pauseUntilEnded);
    const log: string[] = [];
    const pausing = slots.run('a', async (slot) => {
      log.push('start a1');
      await slot.pause(100);
      log.push('again a1');
    });
    await settle();
    const b = attempt(slots, 'b', log, 'b1');
    await settle();
    expect(log).toEqual(['start a1', 'start b1']);
    endPause(); // a1's wait is over, but b1 holds the only place
    await settle();
    expect(log).toEqual(['start a1', 'start b1']);
    b.end();
    await Promise.all([pausing, b.done]);
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'again a1']);
    expect(slots.heldBy('a')).toBe(0);
  });

  it('gives the place back when the attempt throws', async () => {
    const slots = new AttemptSlots(1, 1);
    await expect(slots.run('a', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await slots.run('a', async () => 'next')).toBe('next');
  });
});

describe('admitted (which waiters take the free places)', () => {
  const held = (entries: Record<string, number>) => new Map(Object.entries(entries));
  it.each([
    ['no free place admits no one', 0, {}, 2, ['a', 'b'], []],
    ['free places go in the order waiters came', 2, {}, 4, ['a', 'b', 'c'], [0, 1]],
    ['a tenant at its bound is passed over, not waited for', 2, { a: 2 }, 2, ['a', 'b', 'a', 'c'], [1, 3]],
    ['places taken in the round count against the tenant', 3, { a: 1 }, 2, ['a', 'a', 'a', 'b'], [0, 3]],
    ['more free places than waiters admit them all', 8, { b: 1 }, 4, ['a', 'b'], [0, 1]],
    ['nobody waiting admits no one', 3, {}, 2, [], []],
  ] as const)('%s', (_name, free, holding, perTenant, waiting, expected) => {
    expect(admitted({ free, held: held(holding), perTenant }, waiting)).toEqual(expected);
  });
});

describe('hasRoom', () => {
  it.each([
    [1, 0, 2, true],
    [1, 2, 2, false],
    [0, 0, 2, false],
    [3, 1, 2, true],
  ])('free %i, the tenant holding %i of %i: %s', (free, holding, perTenant, expected) => {
    expect(hasRoom({ free, held: new Map([['t', holding]]), perTenant }, 't')).toBe(expected);
  });
});
