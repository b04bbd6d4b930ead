// Where JSON text first goes wrong, checked against the positions V8's own parser reports.
import { describe, expect, it } from 'vitest';
import { jsonErrorIndex, jsonErrorPlace } from '../../src/http/json-position.ts';

describe('jsonErrorIndex', () => {
  it('agrees with JSON.parse: null for JSON, else the position it names', () => {
    const texts = [
      '{"a":[1,{"b":null}],"c":-1.5e3,"d":"x\\u00e9\\n","e":[true,false]}',
      ' [] ',
      '{"a":1,}',
      '{"a" 1}',
      '[1,2',
      '{"value":"sk-secret',
      '{}x',
      '{\n "a": 1\n "b": 2}',
      '01',
      '"tab\there"',
    ];
    for (const text of texts) {
      let expected: number | null = null;
      try {
        JSON.parse(text);
      } catch (error) {
        expected = Number(/at position (\d+)/.exec((error as Error).message)?.[1]);
      }
      expect(jsonErrorIndex(text), text).toBe(expected);
    }
  });

  it('finds what V8 names without a position: a bad token, an early end', () => {
    expect(jsonErrorIndex('{"a":tru}')).toBe(8);
    expect(jsonErrorIndex('[1,]')).toBe(3);
    expect(jsonErrorIndex('xyz')).toBe(0);
    expect(jsonErrorIndex('{"a":')).toBe(5);
  });

  it('says it in lines and columns', () => {
    expect(jsonErrorPlace('{\n "a": 1\n "b": 2}')).toBe('at line 3, column 2');
    expect(jsonErrorPlace('{"a":')).toBe('at line 1, column 6, where it ends unfinished');
    expect(jsonErrorPlace('{}')).toBeNull();
  });
});
