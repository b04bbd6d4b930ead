// The runner token's check, in constant time: the expected secret hashed once, each presented one hashed
// and compared with it.
import { describe, expect, it } from 'vitest';
import { bearerOf, secretMatcher } from '../../src/auth/shared-secret.ts';

describe('secretMatcher', () => {
  const isToken = secretMatcher('runner-token-123');
  it.each([
    ['the secret itself', 'runner-token-123', true],
    ['another secret', 'runner-token-124', false],
    ['a prefix of it', 'runner-token-12', false],
    ['it and more', 'runner-token-1234', false],
    ['nothing', '', false],
  ])('%s', (_name, presented, expected) => {
    expect(isToken(presented)).toBe(expected);
  });
});

describe('bearerOf', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc', 'abc'],
    ['Basic abc', null],
    ['Bearer a b', null],
    [undefined, null],
  ])('%s', (header, token) => {
    expect(bearerOf(header)).toBe(token);
  });
});
