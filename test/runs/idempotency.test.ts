// Which starts are the same request under one Idempotency-Key (src/runs/idempotency.ts), pure.
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestDigest, type StartRequest } from '../../src/runs/idempotency.ts';

const base: StartRequest = {
  workflow: 'onboarding',
  subjectId: 'applicant-42',
  context: { applicant: { name: 'Ada', country: 'GB' }, tags: ['a', 'b'] },
};

describe('requestDigest: one digest for one request, however it was written', () => {
  it.each<{ name: string; other: StartRequest; same: boolean }>([
    { name: 'the same request', other: structuredClone(base), same: true },
    {
      name: 'members in another order, at every level',
      other: {
        context: { tags: ['a', 'b'], applicant: { country: 'GB', name: 'Ada' } },
        subjectId: 'applicant-42',
        workflow: 'onboarding',
      },
      same: true,
    },
    { name: 'another workflow', other: { ...base, workflow: 'other' }, same: false },
    { name: 'another subject', other: { ...base, subjectId: 'applicant-43' }, same: false },
    {
      name: 'another value deep in the context',
      other: { ...base, context: { applicant: { name: 'Ada', country: 'FR' }, tags: ['a', 'b'] } },
      same: false,
    },
    {
      name: 'array items in another order',
      other: { ...base, context: { applicant: { name: 'Ada', country: 'GB' }, tags: ['b', 'a'] } },
      same: false,
    },
    {
      name: 'a number where the first had text',
      other: { ...base, context: { applicant: { name: 'Ada', country: 'GB' }, tags: ['a', 'b'], n: 1 } },
      same: false,
    },
  ])('$name: same $same', ({ other, same }) => {
    expect(requestDigest(other) === requestDigest(base)).toBe(same);
  });

  it('takes a left-out context for the {} the run starts with, and no other empty value', () => {
    const bare = { workflow: 'w', subjectId: 's' };
    expect(requestDigest(bare)).toBe(requestDigest({ ...bare, context: {} }));
    expect(requestDigest(bare)).not.toBe(requestDigest({ ...bare, context: { x: null } }));
  });
});

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}'],
    ['text "quoted"', '"text \\"quoted\\""'],
    [[], '[]'],
    [{ é: 1, z: 2, Z: 3 }, '{"Z":3,"z":2,"é":1}'],
  ])('%j → %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});
