// The nesting-depth scan that runs before any JSON is parsed: where the depth is passed, strings skipped.
import { describe, expect, it } from 'vitest';
import { depthExcess, MAX_JSON_DEPTH } from '../../src/http/json-depth.ts';

const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const objects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe('depthExcess', () => {
  it('lets text through up to the maximum, 64 by default', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(depthExcess(arrays(64))).toBeNull();
    expect(depthExcess(objects(64))).toBeNull();
    expect(depthExcess('"text"')).toBeNull();
    expect(depthExcess('')).toBeNull();
  });

  it('names the first container past the maximum with its JSON Pointer', () => {
    expect(depthExcess(arrays(65))).toBe(`/${Array(64).fill('0').join('/')}`);
    expect(depthExcess(objects(65))).toBe(`/${Array(64).fill('a').join('/')}`);
    expect(depthExcess('{"a":[1,2,{"b":[[]]}]}', 3)).toBe('/a/2/b');
    expect(depthExcess('[0,{"x":1,"y":[[]]}]', 3)).toBe('/1/y/0');
  });

  it('decodes member names and escapes them as RFC 6901 asks', () => {
    expect(depthExcess('{"a/b~c":{"\\u0041\\"":[]}}', 2)).toBe('/a~1b~0c/A"');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ note: `[[[{{{"\\${'['.repeat(100)}`, list: [1] });
    expect(depthExcess(text, 2)).toBeNull();
    expect(depthExcess(`{"k\\"[[[":{"v":"]]]\\\\"},"w":[[]]}`, 2)).toBe('/w/0');
  });

  it('counts member values as values, not as names', () => {
    expect(depthExcess('{"a":"x","b":{"c":[]}}', 2)).toBe('/b/c');
  });

  it('scans a million levels without a stack', () => {
    expect(depthExcess('['.repeat(1_000_000))).toBe(`/${Array(64).fill('0').join('/')}`);
    expect(depthExcess(`${'{"k":'.repeat(1_000_000)}`, 1)).toBe('/k');
  });
});
