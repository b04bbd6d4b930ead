// The sandbox pool's choices, table by table: which idle thread a call takes, where a warm instance is
// prepared, whom the pool warms next (within its tenant's concurrency, never while a call waits), what
// gives way when the pool is full, and when a preparation yields its thread to a waiting call.
import { describe, expect, it } from 'vitest';
import {
  type DemandView,
  nextWarmUp,
  type PoolLoad,
  PREPARATION_YIELDS_AFTER_MS,
  preparationToEnd,
  type ThreadView,
  threadForCall,
  threadForWarmUp,
} from '../../src/runner/threads/sandbox-pool-rules.ts';

const thread = (shape: Partial<Omit<ThreadView, 'warm'>> & { warm?: Record<string, number> } = {}) => ({
  idle: true,
  ready: true,
  low: false,
  ...shape,
  warm: new Map(Object.entries(shape.warm ?? {})),
});

describe('threadForCall', () => {
  const busy = thread({ idle: false, warm: { m: 1 } });
  it.each([
    ['no thread is idle', [busy, thread({ idle: false })], -1],
    ['an idle thread holding a warm instance of the module first', [thread(), thread({ warm: { m: 1 } })], 1],
    ['a busy thread holding one does not count', [busy, thread({ warm: { x: 1 } })], 1],
    [
      'else the idle thread holding fewest warm instances',
      [thread({ warm: { x: 2, y: 1 } }), thread({ warm: { x: 1 } })],
      1,
    ],
    [
      'a loaded thread before one still starting',
      [thread({ ready: false }), thread({ warm: { x: 1, y: 1 } })],
      1,
    ],
    ['a thread still starting when none other is idle', [busy, thread({ ready: false })], 1],
    [
      'a thread whose last task ran short before one whose last ran long',
      [thread({ low: true }), thread({ warm: { x: 1 } })],
      1,
    ],
    [
      'a loaded thread whose last task ran long before one still starting',
      [thread({ ready: false }), thread({ low: true })],
      1,
    ],
    ['the first of equals', [thread(), thread()], 0],
  ] as const)('%s', (_case, threads, expected) => {
    expect(threadForCall(threads, 'm')).toBe(expected);
  });
});

describe('threadForWarmUp', () => {
  it.each([
    ['no thread is idle', [thread({ idle: false })], -1],
    [
      'an idle thread holding none of the module',
      [thread({ warm: { m: 1 } }), thread({ warm: { x: 1 } })],
      1,
    ],
    ['else the first idle thread', [thread({ idle: false }), thread({ warm: { m: 1 } })], 1],
  ] as const)('%s', (_case, threads, expected) => {
    expect(threadForWarmUp(threads, 'm')).toBe(expected);
  });
});

const demand = (sha256: string, shape: Partial<DemandView> = {}): DemandView => ({
  sha256,
  tenantId: 'a',
  lastUsed: 0,
  state: 'warmable',
  held: 0,
  preparing: 0,
  ...shape,
});

const load = (shape: Partial<Omit<PoolLoad, 'tenantBusy'>> & { busy?: Record<string, number> } = {}) => ({
  waiting: 0,
  tenantConcurrency: 4,
  warmTotal: 0,
  warmCapacity: 8,
  ...shape,
  tenantBusy: (tenantId: string) => shape.busy?.[tenantId] ?? 0,
});

describe('nextWarmUp (demands least recently used first)', () => {
  it.each([
    ['nothing asked for', [], load(), null],
    ['the module asked for', [demand('m')], load(), { prepare: 'm', evict: null }],
    ['the most recently used first', [demand('old'), demand('new')], load(), { prepare: 'new', evict: null }],
    ['nothing while a call waits for a thread', [demand('m')], load({ waiting: 1 }), null],
    ['nothing with warm instances off', [demand('m')], load({ warmCapacity: 0 }), null],
    ['up to two of a module', [demand('m', { held: 1, preparing: 1 })], load(), null],
    ['one more when it has one', [demand('m', { held: 1 })], load(), { prepare: 'm', evict: null }],
    ['a module no instance of has started yet: not', [demand('m', { state: 'unproven' })], load(), null],
    [
      'a module whose start code trapped while warming: not',
      [demand('m', { state: 'paused' })],
      load(),
      null,
    ],
    ['a module whose start code passed its limit: never', [demand('m', { state: 'barred' })], load(), null],
    ['not for a tenant at its concurrency', [demand('m')], load({ busy: { a: 4 } }), null],
    ['for a tenant below it', [demand('m')], load({ busy: { a: 3 } }), { prepare: 'm', evict: null }],
    [
      'another tenant is warmed while one is at its concurrency',
      [demand('b', { tenantId: 'b' }), demand('m')],
      load({ busy: { a: 4 } }),
      { prepare: 'b', evict: null },
    ],
    [
      'a module asked for by no tenant (a command) is warmed',
      [demand('m', { tenantId: null })],
      load({ busy: { a: 4 } }),
      { prepare: 'm', evict: null },
    ],
    [
      'full: a less recently used module gives way',
      [demand('old', { held: 2 }), demand('new')],
      load({ warmTotal: 8 }),
      { prepare: 'new', evict: 'old' },
    ],
    [
      'full: the least recently used of those holding one',
      [demand('none'), demand('older', { held: 1 }), demand('old', { held: 1 }), demand('new')],
      load({ warmTotal: 8 }),
      { prepare: 'new', evict: 'older' },
    ],
    [
      'full: a more recently used module never gives way',
      [demand('old'), demand('new', { held: 2 })],
      load({ warmTotal: 8 }),
      null,
    ],
  ] as const)('%s', (_case, demands, poolLoad, expected) => {
    expect(nextWarmUp(demands, poolLoad)).toEqual(expected);
  });
});

describe('preparationToEnd', () => {
  const now = 10_000;
  const started = (msAgo: number, long = false) => ({ startedAt: now - msAgo, long });
  it.each([
    ['no preparation', [], null],
    ['one just started: not yet', [started(10)], { retryInMs: PREPARATION_YIELDS_AFTER_MS - 10 }],
    // A loaded machine stretches an ordinary start's wall time: 200 ms of it is no reason to bar a module.
    ['one slow by the clock only, as on a loaded machine', [started(200)], { retryInMs: 800 }],
    ['one whose start code ran long in CPU, at once', [started(60), started(5, true)], { index: 1 }],
    [
      'one past the yield time (start code that sleeps)',
      [started(PREPARATION_YIELDS_AFTER_MS)],
      { index: 0 },
    ],
    ['the one running longest', [started(600), started(1_500), started(5)], { index: 1 }],
  ] as const)('%s', (_case, preparations, expected) => {
    expect(preparationToEnd(preparations, now)).toEqual(expected);
  });
});
