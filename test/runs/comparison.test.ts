// Comparisons (src/runs/comparison.ts): one row per rule of the Comparison union in src/runs/model.ts and
// of an app rule's failWhen on the output at its resultPath, and per decision
// the platform made itself (a missing value, malformed comparisons).
import { describe, expect, it } from 'vitest';
import { appRuleFails, conditionHolds, jsonEqual, matches } from '../../src/runs/comparison.ts';
import type { Comparison, Condition } from '../../src/runs/model.ts';

describe('jsonEqual: strict JSON equality', () => {
  it.each<{ name: string; a: unknown; b: unknown; equal: boolean }>([
    { name: 'equal strings', a: 'ok', b: 'ok', equal: true },
    { name: 'equal numbers', a: 1.5, b: 1.5, equal: true },
    { name: 'no coercion: 1 is not "1"', a: 1, b: '1', equal: false },
    { name: 'no coercion: 0 is not false', a: 0, b: false, equal: false },
    { name: 'no coercion: null is not false', a: null, b: false, equal: false },
    { name: 'no coercion: "" is not null', a: '', b: null, equal: false },
    { name: 'null equals null', a: null, b: null, equal: true },
    { name: '0 and -0 are one JSON number', a: 0, b: -0, equal: true },
    { name: 'NaN is no JSON number and equals nothing', a: Number.NaN, b: Number.NaN, equal: false },
    {
      name: 'undefined (a missing value) equals nothing, itself included',
      a: undefined,
      b: undefined,
      equal: false,
    },
    { name: 'undefined is not null', a: undefined, b: null, equal: false },
    {
      name: 'deep: objects member by member',
      a: { a: { b: [1, { c: 2 }] } },
      b: { a: { b: [1, { c: 2 }] } },
      equal: true,
    },
    { name: 'key order is irrelevant', a: { a: 1, b: 2 }, b: { b: 2, a: 1 }, equal: true },
    { name: 'a member more is not equal', a: { a: 1 }, b: { a: 1, b: 2 }, equal: false },
    { name: 'a member less is not equal', a: { a: 1, b: 2 }, b: { a: 1 }, equal: false },
    {
      name: 'a member holding undefined is no member (as in JSON)',
      a: { a: 1, b: undefined },
      b: { a: 1 },
      equal: true,
    },
    { name: 'same count, different names', a: { a: 1, b: undefined }, b: { c: 1 }, equal: false },
    { name: 'array order matters', a: [1, 2], b: [2, 1], equal: false },
    { name: 'array length matters', a: [1], b: [1, 1], equal: false },
    { name: 'an array is not an object with index keys', a: [1], b: { 0: 1 }, equal: false },
    { name: '[] is not {}', a: [], b: {}, equal: false },
  ])('$name', ({ a, b, equal }) => {
    expect(jsonEqual(a, b)).toBe(equal);
    expect(jsonEqual(b, a)).toBe(equal);
  });
});

describe('matches: a comparison on one value', () => {
  it.each<{ name: string; value: unknown; comparison: Comparison; match: boolean }>([
    {
      name: 'equals: strict JSON equality',
      value: 'declined',
      comparison: { equals: 'declined' },
      match: true,
    },
    { name: 'equals: no coercion', value: '5', comparison: { equals: 5 }, match: false },
    {
      name: 'equals: deep, key order irrelevant',
      value: { a: 1, b: [2] },
      comparison: { equals: { b: [2], a: 1 } },
      match: true,
    },
    { name: 'equals null matches null', value: null, comparison: { equals: null }, match: true },
    {
      name: 'equals never matches a missing value (undefined)',
      value: undefined,
      comparison: { equals: null },
      match: false,
    },
    {
      name: 'notEquals: a different value',
      value: 'approved',
      comparison: { notEquals: 'declined' },
      match: true,
    },
    { name: 'notEquals: the same value', value: { a: 1 }, comparison: { notEquals: { a: 1 } }, match: false },
    {
      name: 'notEquals matches a missing value (it equals nothing)',
      value: undefined,
      comparison: { notEquals: 'ok' },
      match: true,
    },
    { name: 'in: list membership', value: 'b', comparison: { in: ['a', 'b'] }, match: true },
    {
      name: 'in: by the same equality (deep)',
      value: { id: 1 },
      comparison: { in: [{ id: 1 }] },
      match: true,
    },
    {
      name: 'in: by the same equality (no coercion)',
      value: 1,
      comparison: { in: ['1', true] },
      match: false,
    },
    { name: 'in: an empty list holds nothing', value: 'a', comparison: { in: [] }, match: false },
    { name: 'in: a missing value is in no list', value: undefined, comparison: { in: [null] }, match: false },
    { name: 'notIn: not in the list', value: 'c', comparison: { notIn: ['a', 'b'] }, match: true },
    { name: 'notIn: in the list', value: 'a', comparison: { notIn: ['a', 'b'] }, match: false },
    { name: 'notIn matches a missing value', value: undefined, comparison: { notIn: ['a'] }, match: true },
    { name: 'lt: below', value: 1, comparison: { lt: 2 }, match: true },
    { name: 'lt: at the bound', value: 2, comparison: { lt: 2 }, match: false },
    { name: 'lte: at the bound', value: 2, comparison: { lte: 2 }, match: true },
    { name: 'lte: above', value: 2.1, comparison: { lte: 2 }, match: false },
    { name: 'gt: above', value: 3, comparison: { gt: 2 }, match: true },
    { name: 'gt: at the bound', value: 2, comparison: { gt: 2 }, match: false },
    { name: 'gte: at the bound', value: 2, comparison: { gte: 2 }, match: true },
    { name: 'gte: below', value: -1, comparison: { gte: 0 }, match: false },
    { name: 'numbers only: a numeric string never matches', value: '1', comparison: { lt: 2 }, match: false },
    { name: 'numbers only: null never matches', value: null, comparison: { lt: 2 }, match: false },
    { name: 'numbers only: a boolean never matches', value: true, comparison: { gte: 0 }, match: false },
    {
      name: 'numbers only: a missing value never matches',
      value: undefined,
      comparison: { lte: 0 },
      match: false,
    },
    {
      name: 'finite numbers only: Infinity never matches',
      value: Number.POSITIVE_INFINITY,
      comparison: { gt: 0 },
      match: false,
    },
    {
      name: 'finite numbers only: NaN never matches',
      value: Number.NaN,
      comparison: { lte: 0 },
      match: false,
    },
    { name: 'exists: a value is present', value: 0, comparison: { exists: true }, match: true },
    { name: 'exists: "" is present', value: '', comparison: { exists: true }, match: true },
    { name: 'exists: false is present', value: false, comparison: { exists: true }, match: true },
    { name: 'exists: null is not present', value: null, comparison: { exists: true }, match: false },
    {
      name: 'exists: a missing value is not present',
      value: undefined,
      comparison: { exists: true },
      match: false,
    },
    {
      name: 'exists:false matches a missing value',
      value: undefined,
      comparison: { exists: false },
      match: true,
    },
    { name: 'exists:false matches null', value: null, comparison: { exists: false }, match: true },
    { name: 'exists:false does not match a value', value: 'x', comparison: { exists: false }, match: false },
  ])('$name', ({ value, comparison, match }) => {
    expect(matches(value, comparison)).toBe(match);
  });

  const malformed = (comparison: unknown) => comparison as Comparison;
  it.each<{ name: string; value: unknown; comparison: Comparison; match: boolean }>([
    { name: 'no operator matches nothing', value: 1, comparison: malformed({}), match: false },
    {
      name: 'an undefined operand matches nothing',
      value: 1,
      comparison: malformed({ notEquals: undefined }),
      match: false,
    },
    {
      name: 'in with a non-list matches nothing',
      value: 'a',
      comparison: malformed({ in: 'abc' }),
      match: false,
    },
    {
      name: 'notIn with a non-list matches nothing',
      value: 'z',
      comparison: malformed({ notIn: 'abc' }),
      match: false,
    },
    {
      name: 'a number bound that is no number matches nothing',
      value: 1,
      comparison: malformed({ lt: '2' }),
      match: false,
    },
    {
      name: 'exists with a non-boolean matches nothing',
      value: 1,
      comparison: malformed({ exists: 1 }),
      match: false,
    },
    {
      name: 'several operators: the first in model order (equals before lt) decides',
      value: 1,
      comparison: malformed({ lt: 5, equals: 2 }),
      match: false,
    },
    {
      name: 'an inherited operator is not read',
      value: 1,
      comparison: Object.create({ equals: 1 }),
      match: false,
    },
  ])('malformed (refused by definition validation): $name', ({ value, comparison, match }) => {
    expect(matches(value, comparison)).toBe(match);
  });
});

describe('conditionHolds: a comparison on the value at a dot path of the data', () => {
  const context = { score: { value: 42 }, checks: [{ status: 'clear' }], flags: { pep: null } };
  it.each<{ name: string; condition: Condition; holds: boolean }>([
    { name: 'reads the value at the path', condition: { path: 'score.value', gte: 40 }, holds: true },
    {
      name: 'array items by their index',
      condition: { path: 'checks.0.status', equals: 'clear' },
      holds: true,
    },
    {
      name: 'a missing path is undefined: equals never holds',
      condition: { path: 'score.other', equals: null },
      holds: false,
    },
    {
      name: 'a missing path is undefined: exists:false holds',
      condition: { path: 'score.other', exists: false },
      holds: true,
    },
    {
      name: 'null at the path: exists:false holds',
      condition: { path: 'flags.pep', exists: false },
      holds: true,
    },
    {
      name: 'inherited members are missing',
      condition: { path: 'score.toString', exists: true },
      holds: false,
    },
    {
      name: 'the path member is not an operator',
      condition: { path: 'score.value', notEquals: 41 },
      holds: true,
    },
  ])('$name', ({ condition, holds }) => {
    expect(conditionHolds(context, condition)).toBe(holds);
  });
});

describe('appRuleFails: an app rule fails when failWhen matches the output at resultPath', () => {
  const output = { result: { decision: 'decline', score: 80 }, hits: [] };
  it.each<{ name: string; resultPath: string; failWhen: Comparison; fails: boolean }>([
    {
      name: 'failWhen matches: the rule fails',
      resultPath: 'result.decision',
      failWhen: { equals: 'decline' },
      fails: true,
    },
    {
      name: 'failWhen does not match: the rule passes',
      resultPath: 'result.score',
      failWhen: { gt: 90 },
      fails: false,
    },
    { name: 'a whole value compares deeply', resultPath: 'hits', failWhen: { notEquals: [] }, fails: false },
    {
      name: 'a missing value is undefined: equals never matches it',
      resultPath: 'result.reason',
      failWhen: { equals: null },
      fails: false,
    },
    {
      name: 'a missing value is undefined: exists:false matches it',
      resultPath: 'result.reason',
      failWhen: { exists: false },
      fails: true,
    },
    {
      name: 'a missing value is undefined: no number comparison matches it',
      resultPath: 'x.y',
      failWhen: { lt: 100 },
      fails: false,
    },
  ])('$name', ({ resultPath, failWhen, fails }) => {
    expect(appRuleFails(output, { resultPath, failWhen })).toBe(fails);
  });
});
