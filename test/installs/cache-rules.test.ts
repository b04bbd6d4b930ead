// Pure rules of cached values (docs/cached-values.md: live values, expiry, a call's changes, the budget).
import { describe, expect, it } from 'vitest';
import {
  evictionChoice,
  expiryOf,
  isLive,
  planCacheChanges,
  sizeOf,
} from '../../src/installs/cache/cache-rules.ts';
import type { CacheChange } from '../../src/runner/host/call-state.ts';

const set = (name: string, value: string, ttlSeconds = 60): CacheChange => ({
  op: 'set',
  name,
  value,
  ttlSeconds,
});
const del = (name: string, readValue: string | null): CacheChange => ({ op: 'delete', name, readValue });
const none = new Map<string, string>();

describe('expiry', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');

  it('expires ttlSeconds from now, a day at most and a second at least', () => {
    expect(expiryOf(now, 90).toISOString()).toBe('2030-01-01T00:01:30.000Z');
    expect(expiryOf(now, 86_400).toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(expiryOf(now, 7 * 86_400).toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(expiryOf(now, 0).toISOString()).toBe('2030-01-01T00:00:01.000Z');
  });

  it('counts a value live while its expiry is ahead', () => {
    expect(isLive(new Date(now.getTime() + 1), now)).toBe(true);
    expect(isLive(now, now)).toBe(false);
  });

  it('weighs a value by its UTF-8 length', () => {
    expect(sizeOf('abcdefgh')).toBe(8);
    expect(sizeOf('ééééé')).toBe(10);
  });
});

describe('planCacheChanges', () => {
  it('writes each set, the later of two sets of one name, in the order of the last sets', () => {
    const plan = planCacheChanges(none, [
      set('a', 'value-a-1'),
      set('b', 'value-b-1'),
      set('a', 'value-a-2', 30),
    ]);
    expect(plan).toEqual({
      set: [
        { name: 'b', value: 'value-b-1', ttlSeconds: 60 },
        { name: 'a', value: 'value-a-2', ttlSeconds: 30 },
      ],
      delete: [],
      ignored: 0,
    });
  });

  it('deletes a stored value only while it is still the one the call read', () => {
    const stored = new Map([
      ['same', 'value-read'],
      ['newer', 'value-of-another-call'],
    ]);
    const plan = planCacheChanges(stored, [del('same', 'value-read'), del('newer', 'value-read')]);
    expect(plan.delete).toEqual(['same']);
    expect(plan.set).toEqual([]);
  });

  it('removes nothing for a delete of a name the call read no value of', () => {
    const stored = new Map([['x', 'value-x-stored']]);
    expect(planCacheChanges(stored, [del('x', null)])).toEqual({ set: [], delete: [], ignored: 0 });
  });

  it('follows the call’s own writes: a set then its delete leaves nothing, a delete then a set writes', () => {
    const stored = new Map([['x', 'value-x-read']]);
    expect(planCacheChanges(stored, [set('x', 'value-x-new'), del('x', 'value-x-new')])).toEqual({
      set: [],
      delete: ['x'],
      ignored: 0,
    });
    expect(planCacheChanges(none, [set('y', 'value-y-new'), del('y', 'value-y-new')])).toEqual({
      set: [],
      delete: [],
      ignored: 0,
    });
    expect(planCacheChanges(stored, [del('x', 'value-x-read'), set('x', 'value-x-again')])).toEqual({
      set: [{ name: 'x', value: 'value-x-again', ttlSeconds: 60 }],
      delete: [],
      ignored: 0,
    });
  });

  it('leaves out changes outside the host function’s rules and sets past 64 a call', () => {
    const malformed = [
      set('bad name', 'long-enough'),
      set('short', 'tiny'),
      set('huge', 'x'.repeat(8 * 1024 + 1)),
      set('ttl', 'long-enough', 0),
      set('ttl2', 'long-enough', 1.5),
      { op: 'other', name: 'x' } as unknown as CacheChange,
    ];
    const many = Array.from({ length: 65 }, (_, i) => set(`n${i}`, `value-number-${i}`));
    const plan = planCacheChanges(none, [...malformed, ...many]);
    expect(plan.ignored).toBe(malformed.length + 1);
    expect(plan.set.map((s) => s.name)).toEqual(many.slice(0, 64).map((s) => s.name));
  });
});

describe('evictionChoice', () => {
  const value = (name: string, writeSeq: number, sizeBytes = 10) => ({ name, writeSeq, sizeBytes });

  it('keeps everything within the budget', () => {
    expect(evictionChoice([value('a', 1), value('b', 2)], { entries: 2, totalBytes: 20 })).toEqual([]);
  });

  it('drops the values written longest ago while there are too many', () => {
    const values = [value('c', 7), value('a', 3), value('d', 9), value('b', 5)];
    expect(evictionChoice(values, { entries: 2, totalBytes: 1000 })).toEqual(['a', 'b']);
  });

  it('drops the values written longest ago while there are too many bytes', () => {
    const values = [value('big-new', 4, 50), value('old', 1, 10), value('mid', 2, 30), value('new', 3, 10)];
    expect(evictionChoice(values, { entries: 64, totalBytes: 70 })).toEqual(['old', 'mid']);
  });
});
