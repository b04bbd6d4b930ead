// The JSON boundary's rule for text PostgreSQL cannot store (src/http/unstorable-text.ts), as tables.
import { describe, expect, it } from 'vitest';
import {
  holdsUnstorable,
  isUnstorable,
  mayHoldUnstorable,
  storableJson,
  storableText,
  unstorablePointers,
} from '../../src/http/unstorable-text.ts';

const R = '\ufffd';

describe('storableText', () => {
  it.each([
    ['plain text', 'Ada Lovelace', 'Ada Lovelace'],
    ['empty', '', ''],
    ['U+0000 alone', '\u0000', R],
    ['U+0000 inside', 'a\u0000b\u0000', `a${R}b${R}`],
    ['a lone high surrogate', 'a\ud800b', `a${R}b`],
    ['a lone high surrogate at the end', 'ab\udbff', `ab${R}`],
    ['a lone low surrogate', '\udc00x', `${R}x`],
    ['a low surrogate before a high one', '\udc00\ud800', `${R}${R}`],
    ['two high surrogates then a low one', '\ud800\ud83d\ude00', `${R}😀`],
    ['a pair (an emoji) kept', '😀', '😀'],
    ['other control characters kept', '\u0001\t\n\u001f', '\u0001\t\n\u001f'],
    ['U+FFFD itself kept', R, R],
  ])('%s', (_name, text, expected) => {
    expect(storableText(text)).toBe(expected);
    expect(isUnstorable(text)).toBe(expected !== text);
    expect(isUnstorable(storableText(text))).toBe(false);
  });
});

describe('mayHoldUnstorable: never false for JSON text that parses to such a character', () => {
  it.each([
    ['"\\u0000"', true],
    ['"\\ud800"', true],
    ['"\\uDFFF"', true],
    ['"\\ud83d\\ude00"', true],
    ['"\\\\u0000"', true],
    ['"\\u0001"', false],
    ['"\\u00e9"', false],
    ['{"a":"b"}', false],
  ])('%s → %s', (text, expected) => {
    expect(mayHoldUnstorable(text)).toBe(expected);
    if (!expected) expect(isUnstorable(JSON.stringify(JSON.parse(text)))).toBe(false);
  });
});

describe('storableJson', () => {
  it.each([
    ['a string', '\u0000', R],
    ['a number', 1, 1],
    ['null', null, null],
    [
      'nested strings and names',
      { 'a\u0000': ['x\ud800', { b: '\udc00' }] },
      { [`a${R}`]: [`x${R}`, { b: R }] },
    ],
    ['a clean value unchanged', { a: ['😀', 1, true, null] }, { a: ['😀', 1, true, null] }],
    [
      'two names that become one: the later wins',
      JSON.parse('{"a\\u0000":1,"a\\ud800":2}'),
      { [`a${R}`]: 2 },
    ],
  ])('%s', (_name, value, expected) => {
    expect(storableJson(value)).toEqual(expected);
  });

  it('keeps __proto__ a plain member when its name changes', () => {
    const value = JSON.parse('{"__proto__\\u0000":{"x":1}}') as Record<string, unknown>;
    const out = storableJson(value) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual([`__proto__${R}`]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('walks a value nested 100,000 levels without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    storableJson(deep);
    let inner = deep;
    while (Array.isArray(inner)) inner = inner[0];
    expect(inner).toBe(R);
  });
});

describe('unstorablePointers', () => {
  it.each([
    ['none in a clean value', { a: ['b', { c: 'd' }] }, []],
    ['the root string', '\u0000', ['']],
    ['a member', { name: 'a\u0000' }, ['/name']],
    ['an item', { list: ['ok', '\ud800'] }, ['/list/1']],
    ['a member name, written with U+FFFD', { 'k\u0000y': 1 }, [`/k${R}y`]],
    ['a name and its value: once', { 'k\u0000': '\u0000' }, [`/k${R}`]],
    ['a name and a string under it', { 'k\u0000': { v: '\u0000' } }, [`/k${R}`, `/k${R}/v`]],
    ['document order', { b: '\u0000', a: ['\u0000', { c: '\u0000' }] }, ['/b', '/a/0', '/a/1/c']],
    ['pointer escapes', { 'a/b~': '\u0000' }, ['/a~1b~0']],
  ])('%s', (_name, value, expected) => {
    expect(unstorablePointers(value)).toEqual(expected);
  });

  it('holdsUnstorable agrees with it', () => {
    for (const value of [
      { a: ['b', { c: 'd' }] },
      '\u0000',
      { 'k\u0000y': 1 },
      [1, null, ['x', '\udc00']],
      null,
      3,
    ])
      expect(holdsUnstorable(value)).toBe(unstorablePointers(value).length > 0);
  });

  it('stops at the limit', () => {
    expect(
      unstorablePointers(
        Array.from({ length: 50 }, () => '\u0000'),
        3,
      ),
    ).toEqual(['/0', '/1', '/2']);
  });
});
