// compiledSchema: a manifest schema's validator compiled once per key and options, each in an Ajv of its own.
import { describe, expect, it } from 'vitest';
import { compiledSchema } from '../../src/module/index.ts';

const positive = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } };

describe('compiledSchema', () => {
  it('hands back the validator compiled for the same key and options', () => {
    const first = compiledSchema('version-1:input', positive, { allErrors: true });
    expect(compiledSchema('version-1:input', positive, { allErrors: true })).toBe(first);
    expect(first({ n: 2 })).toBe(true);
    expect(first({ n: 0 })).toBe(false);
    expect(first.errors?.[0]).toMatchObject({ instancePath: '/n', keyword: 'minimum' });
  });

  it.each([
    ['another key', 'version-2:input', { allErrors: true }],
    ['other options', 'version-1:input', { allErrors: true, verbose: true }],
  ])('compiles again for %s', (_what, key, options) => {
    const first = compiledSchema('version-1:input', positive, { allErrors: true });
    const other = compiledSchema(key, positive, options);
    expect(other).not.toBe(first);
    expect(other({ n: 0 })).toBe(false);
  });

  it('compiles each schema apart: two schemas with one $id each keep their own reading', () => {
    const strings = compiledSchema('a', { $id: 'https://schemas.example/same', type: 'string' }, {});
    const numbers = compiledSchema('b', { $id: 'https://schemas.example/same', type: 'number' }, {});
    expect([strings('x'), strings(1), numbers('x'), numbers(1)]).toEqual([true, false, false, true]);
  });
});
