// How the loader keeps an install's cached values between calls: the platform's rules, with a clock.
import { describe, expect, it } from 'vitest';
import { InstallCache } from '../../packages/app-testing/src/install-cache.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');

describe('InstallCache', () => {
  it('applies sets with their time to live and hands live entries to the next call', () => {
    const cache = new InstallCache();
    cache.apply([{ op: 'set', name: 'token', value: 'value-0001', ttlSeconds: 60 }], T0);
    expect(cache.entries(T0 + 1000)).toEqual([
      { name: 'token', value: 'value-0001', expiresAt: new Date(T0 + 60_000).toISOString() },
    ]);
    expect(cache.values(T0 + 60_000)).toEqual({});
  });

  it('deletes only while the value is still the one the call read', () => {
    const cache = new InstallCache({ token: 'value-0001' });
    cache.apply([{ op: 'delete', name: 'token', readValue: 'value-0000' }]);
    expect(cache.values()).toEqual({ token: 'value-0001' });
    cache.apply([{ op: 'delete', name: 'token', readValue: 'value-0001' }]);
    expect(cache.values()).toEqual({});
  });

  it('keeps at most 16 values and 64 KiB, the oldest written leaving first', () => {
    const cache = new InstallCache();
    const sets = Array.from({ length: 18 }, (_, i) => ({
      op: 'set' as const,
      name: `k${i}`,
      value: `value-${String(i).padStart(4, '0')}`,
      ttlSeconds: 600,
    }));
    cache.apply(sets, T0);
    // Writing k2 again makes it the newest.
    cache.apply([{ op: 'set', name: 'k2', value: 'value-again', ttlSeconds: 600 }], T0);
    expect(Object.keys(cache.values(T0))).toEqual([
      ...Array.from({ length: 15 }, (_, i) => `k${i + 3}`),
      'k2',
    ]);

    const big = new InstallCache();
    const value = 'x'.repeat(8 * 1024);
    big.apply(
      Array.from({ length: 9 }, (_, i) => ({ op: 'set' as const, name: `b${i}`, value, ttlSeconds: 600 })),
      T0,
    );
    expect(Object.keys(big.values(T0))).toEqual(['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8']);
  });
});
