import { describe, expect, it } from 'vitest';
import { childPointer, forEachText, valueAt } from '../../src/installs/config-pointers.ts';

describe('valueAt', () => {
  const config = {
    baseUrl: 'https://api.vendor.com',
    auth: { type: 'bearer', empty: '', none: null },
    list: ['a', { deep: [1, 2, 3] }],
    'a/b': 1,
    'm~n': 2,
    '': 'empty key',
  };

  it('reads members and array items, unescaping ~1 and ~0', () => {
    expect(valueAt(config, '/baseUrl')).toBe('https://api.vendor.com');
    expect(valueAt(config, '/auth/type')).toBe('bearer');
    expect(valueAt(config, '/auth/empty')).toBe('');
    expect(valueAt(config, '/auth/none')).toBeNull();
    expect(valueAt(config, '/list/1/deep/2')).toBe(3);
    expect(valueAt(config, '/a~1b')).toBe(1);
    expect(valueAt(config, '/m~0n')).toBe(2);
    expect(valueAt(config, '/')).toBe('empty key');
    expect(valueAt(config, '')).toBe(config);
  });

  it('finds nothing where nothing is, inherited members and non-canonical indexes included', () => {
    for (const pointer of [
      '/missing',
      '/auth/type/x',
      '/list/2',
      '/list/01',
      '/list/-',
      '/list/1e0',
      '/constructor',
      '/__proto__',
      '/auth/toString',
      '/list/length',
    ]) {
      expect(valueAt(config, pointer), pointer).toBeUndefined();
    }
    expect(valueAt(null, '/x')).toBeUndefined();
    expect(valueAt('text', '/0')).toBeUndefined();
  });
});

describe('childPointer', () => {
  it('escapes ~ and / in a token', () => {
    expect(childPointer('', 'a')).toBe('/a');
    expect(childPointer('/x', 3)).toBe('/x/3');
    expect(childPointer('/x', 'a/b~c')).toBe('/x/a~1b~0c');
    expect(valueAt({ x: { 'a/b~c': 7 } }, childPointer('/x', 'a/b~c'))).toBe(7);
  });
});

describe('forEachText', () => {
  it('visits every text value with its pointer, never member names', () => {
    const seen: [string, string][] = [];
    forEachText(
      { a: 'one', b: [1, 'two', { 'c/d': 'three', e: null }], 'name{{secret:X}}': true },
      (t, p) => {
        seen.push([p, t]);
      },
    );
    expect(seen).toEqual([
      ['/a', 'one'],
      ['/b/1', 'two'],
      ['/b/2/c~1d', 'three'],
    ]);
  });

  it('visits a config that is text itself at the empty pointer', () => {
    const seen: string[] = [];
    forEachText('x', (_t, p) => {
      seen.push(p);
    });
    expect(seen).toEqual(['']);
  });

  it('walks a config nested far past any stack without overflowing', () => {
    let config: unknown = 'deep';
    for (let i = 0; i < 100_000; i += 1) config = [config];
    const seen: string[] = [];
    forEachText(config, (text, p) => {
      seen.push(`${p.length}:${text}`);
    });
    expect(seen).toEqual([`${100_000 * 2}:deep`]);
  });
});
