// Building an action's input (src/runs/input-mapping.ts), one row per rule of docs/rules.md (runs)
// this module implements, and per decision the platform made where
// the rules are silent. Output keys, resultPath (test/runs/comparison.test.ts), dry runs, fallbacks and
// validation warnings are other modules'. Properties: no argument is ever changed, and every resolved
// path's value is found at its field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildInput, type PathRead, readPath, unmappableKeys } from '../../src/runs/input-mapping.ts';

/** [<hole>, 1] */
const sparse: unknown[] = new Array(2);
sparse[1] = 1;

/** A JSON object holding `__proto__` as its own member, as JSON.parse makes it. */
const withOwnProto = (value: unknown) => JSON.parse(`{"__proto__": ${JSON.stringify(value)}}`);

describe('readPath: a dot path into the run context or the rule data', () => {
  const context = {
    applicant: { name: 'Ada', address: { city: 'Paris' }, tags: ['a', 'b'], nothing: null, zero: 0 },
    items: [{ id: 'x' }, { id: 'y' }],
    'dotted.key': 1,
    '': { '': 'empty' },
  };
  it.each<{ name: string; data: unknown; path: string; read: PathRead }>([
    { name: 'a top-level member', data: context, path: 'items', read: { found: true, value: context.items } },
    {
      name: 'each dot goes one object down',
      data: context,
      path: 'applicant.address.city',
      read: { found: true, value: 'Paris' },
    },
    {
      name: 'an array item by its numeric segment',
      data: context,
      path: 'items.1.id',
      read: { found: true, value: 'y' },
    },
    { name: 'an array item past the end is missing', data: context, path: 'items.2', read: { found: false } },
    {
      name: 'an array index in another spelling (01) is missing',
      data: context,
      path: 'items.01',
      read: { found: false },
    },
    { name: 'a negative array index is missing', data: context, path: 'items.-1', read: { found: false } },
    {
      name: "an array's length is not data",
      data: context,
      path: 'applicant.tags.length',
      read: { found: false },
    },
    {
      name: 'a hole of a sparse array is missing',
      data: { list: sparse },
      path: 'list.0',
      read: { found: false },
    },
    { name: 'a missing member', data: context, path: 'applicant.age', read: { found: false } },
    {
      name: 'a path through a missing member',
      data: context,
      path: 'applicant.job.title',
      read: { found: false },
    },
    { name: 'a path through a string', data: context, path: 'applicant.name.length', read: { found: false } },
    { name: 'a path through null', data: context, path: 'applicant.nothing.x', read: { found: false } },
    { name: 'null is a value', data: context, path: 'applicant.nothing', read: { found: true, value: null } },
    { name: '0 is a value', data: context, path: 'applicant.zero', read: { found: true, value: 0 } },
    {
      name: 'inherited members are not read (toString)',
      data: context,
      path: 'applicant.toString',
      read: { found: false },
    },
    {
      name: 'inherited members are not read (__proto__)',
      data: context,
      path: '__proto__',
      read: { found: false },
    },
    {
      name: 'inherited members are not read (constructor)',
      data: context,
      path: 'constructor.name',
      read: { found: false },
    },
    {
      name: 'an own __proto__ member (from JSON) is read',
      data: withOwnProto({ admin: true }),
      path: '__proto__.admin',
      read: { found: true, value: true },
    },
    {
      name: 'a member named with a dot cannot be named: every dot separates',
      data: context,
      path: 'dotted.key',
      read: { found: false },
    },
    {
      name: 'an empty segment names the member ""',
      data: context,
      path: '.',
      read: { found: true, value: 'empty' },
    },
    {
      name: 'a member holding undefined is missing (JSON has none)',
      data: { a: undefined },
      path: 'a',
      read: { found: false },
    },
    { name: 'data that is no object has no members', data: 'text', path: 'length', read: { found: false } },
    { name: 'no data has no members', data: undefined, path: 'a', read: { found: false } },
  ])('$name', ({ data, path, read }) => {
    expect(readPath(data, path)).toEqual(read);
  });
});

describe('buildInput: the literal input object first, then inputMapping', () => {
  const data = {
    person: { first: 'Ada', last: 'Lovelace' },
    score: 7,
    empty: null,
    list: [1, 2],
    secretLike: '{{secret:API_KEY}}',
  };
  it.each<{
    name: string;
    literal?: Record<string, unknown>;
    mapping?: Record<string, string>;
    input: Record<string, unknown>;
  }>([
    { name: 'without literal or mapping the input is {}', input: {} },
    {
      name: 'the literal input object is laid down first',
      literal: { mode: 'full', nested: { a: 1 } },
      input: { mode: 'full', nested: { a: 1 } },
    },
    {
      name: 'inputMapping sets an input field from a dot path',
      mapping: { name: 'person.first' },
      input: { name: 'Ada' },
    },
    {
      name: 'inputMapping overrides a literal of the same name',
      literal: { name: 'literal', mode: 'full' },
      mapping: { name: 'person.first' },
      input: { name: 'Ada', mode: 'full' },
    },
    {
      name: 'an unresolved path leaves the literal',
      literal: { name: 'literal' },
      mapping: { name: 'person.middle' },
      input: { name: 'literal' },
    },
    { name: 'an unresolved path leaves nothing', mapping: { name: 'person.middle' }, input: {} },
    {
      name: 'a path resolving to null sets null',
      literal: { x: 1 },
      mapping: { x: 'empty' },
      input: { x: null },
    },
    {
      name: 'a path resolving to an object or array sets it whole',
      mapping: { who: 'person', numbers: 'list' },
      input: { who: { first: 'Ada', last: 'Lovelace' }, numbers: [1, 2] },
    },
    {
      name: 'field names with dots set nested paths, intermediate objects created',
      mapping: { 'applicant.name.first': 'person.first' },
      input: { applicant: { name: { first: 'Ada' } } },
    },
    {
      name: 'literal objects are merged',
      literal: { applicant: { id: 'a1', name: { title: 'Lady' } } },
      mapping: { 'applicant.name.first': 'person.first', 'applicant.score': 'score' },
      input: { applicant: { id: 'a1', name: { title: 'Lady', first: 'Ada' }, score: 7 } },
    },
    {
      name: 'an intermediate holding a non-object is left alone; the value lands under the literal dotted key',
      literal: { applicant: 'text' },
      mapping: { 'applicant.name.first': 'person.first' },
      input: { applicant: 'text', 'applicant.name.first': 'Ada' },
    },
    {
      name: '… at the level of that intermediate',
      literal: { applicant: { name: 5 } },
      mapping: { 'applicant.name.first': 'person.first' },
      input: { applicant: { name: 5, 'name.first': 'Ada' } },
    },
    {
      name: '… null is a non-object',
      literal: { applicant: null },
      mapping: { 'applicant.id': 'score' },
      input: { applicant: null, 'applicant.id': 7 },
    },
    {
      name: '… an array is a non-object: a path never writes into one',
      literal: { items: [{ id: 1 }] },
      mapping: { 'items.0.id': 'score' },
      input: { items: [{ id: 1 }], 'items.0.id': 7 },
    },
    {
      name: 'entries apply in mapping order: a later whole value replaces an earlier nested one',
      mapping: { 'who.first': 'person.last', who: 'person' },
      input: { who: { first: 'Ada', last: 'Lovelace' } },
    },
    {
      name: 'entries apply in mapping order: a later nested field goes into an earlier whole value (a copy)',
      mapping: { who: 'person', 'who.score': 'score' },
      input: { who: { first: 'Ada', last: 'Lovelace', score: 7 } },
    },
    {
      name: 'input is data: a placeholder-like value is placed as text, never filled',
      literal: { key: '{{secret:OTHER}}' },
      mapping: { token: 'secretLike' },
      input: { key: '{{secret:OTHER}}', token: '{{secret:API_KEY}}' },
    },
    {
      name: 'a __proto__ field is an own member, not a prototype',
      mapping: { '__proto__.first': 'person.first' },
      input: withOwnProto({ first: 'Ada' }),
    },
  ])('$name', ({ literal, mapping, input }) => {
    const built = buildInput(literal, mapping, data);
    expect(built).toStrictEqual(input);
    expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
  });

  it('literal objects are never changed: written objects are copies', () => {
    const literal = { applicant: { name: { title: 'Lady' } }, other: { kept: true } };
    const before = structuredClone(literal);
    const built = buildInput(literal, { 'applicant.name.first': 'person.first' }, data);
    expect(literal).toEqual(before);
    expect(built.applicant).not.toBe(literal.applicant);
    expect(built.other).toBe(literal.other); // not written: shared, not copied
  });

  it('the data is never changed by a field written under a value taken from it', () => {
    const source = { person: { first: 'Ada' } };
    const built = buildInput(
      undefined,
      { who: 'person', 'who.age': 'missing', 'who.last': 'person.first' },
      source,
    );
    expect(source).toEqual({ person: { first: 'Ada' } });
    expect(built).toEqual({ who: { first: 'Ada', last: 'Ada' } });
  });

  it('call_app steps and app rules build the input identically: the same function on context or rule data', () => {
    const mapping = { 'applicant.id': 'subject.id' };
    const runContext = { subject: { id: 's1' }, steps: {} };
    const ruleData = { subject: { id: 's1' } };
    expect(buildInput({ a: 1 }, mapping, runContext)).toEqual(buildInput({ a: 1 }, mapping, ruleData));
  });
});

describe('unmappableKeys: where an action declares mappable, a mapping key sets a declared field or one under it', () => {
  it.each<{ name: string; mappable?: string[]; mapping?: Record<string, string>; refused: string[] }>([
    {
      name: 'without mappable any key is allowed',
      mapping: { anything: 'x', 'deep.field': 'y' },
      refused: [],
    },
    { name: 'without a mapping nothing is refused', mappable: ['/person'], refused: [] },
    {
      name: 'a key naming a declared field is allowed',
      mappable: ['/person/name'],
      mapping: { 'person.name': 'p' },
      refused: [],
    },
    {
      name: 'a key naming a field under a declared one is allowed',
      mappable: ['/person/name'],
      mapping: { 'person.name.first': 'p' },
      refused: [],
    },
    {
      name: 'a key naming the parent of a declared field is refused (it would set undeclared siblings)',
      mappable: ['/person/name'],
      mapping: { person: 'p' },
      refused: ['person'],
    },
    {
      name: 'a key naming a sibling of a declared field is refused',
      mappable: ['/person/name'],
      mapping: { 'person.age': 'p' },
      refused: ['person.age'],
    },
    {
      name: 'a key sharing only a name prefix (not a segment) is refused',
      mappable: ['/person/name'],
      mapping: { 'person.names': 'p', 'person.name2.x': 'q' },
      refused: ['person.names', 'person.name2.x'],
    },
    {
      name: 'any one declared pointer suffices',
      mappable: ['/a', '/b/c'],
      mapping: { 'a.x': '1', 'b.c': '2', 'b.d': '3' },
      refused: ['b.d'],
    },
    {
      name: 'refused keys come in mapping order',
      mappable: ['/ok'],
      mapping: { zeta: '1', ok: '2', alpha: '3', beta: '4' },
      refused: ['zeta', 'alpha', 'beta'],
    },
    {
      name: 'pointer tokens are compared unescaped: ~1 is a key\'s "/"',
      mappable: ['/a~1b'],
      mapping: { 'a/b': '1', 'a/b.c': '2', 'a.b': '3', 'a~1b': '4' },
      refused: ['a.b', 'a~1b'],
    },
    {
      name: 'pointer tokens are compared unescaped: ~0 is a key\'s "~"',
      mappable: ['/x~0y'],
      mapping: { 'x~y': '1', 'x~0y': '2' },
      refused: ['x~0y'],
    },
    {
      name: 'a key holding the text ~1 matches the pointer escaping its ~ (~01)',
      mappable: ['/a~01b'],
      mapping: { 'a~1b': '1', 'a/b': '2' },
      refused: ['a/b'],
    },
    {
      name: 'a pointer token holding a dot is named by no key: every dot separates',
      mappable: ['/a.b'],
      mapping: { 'a.b': '1' },
      refused: ['a.b'],
    },
    {
      name: 'the pointer "/" declares the field ""',
      mappable: ['/'],
      mapping: { '': '1', '.x': '2', x: '3' },
      refused: ['x'],
    },
    { name: 'an empty mappable list allows no key', mappable: [], mapping: { a: '1' }, refused: ['a'] },
    {
      name: 'literal input may set any field: only mapping keys are judged',
      mappable: ['/a'],
      mapping: {},
      refused: [],
    },
  ])('$name', ({ mappable, mapping, refused }) => {
    expect(unmappableKeys(mappable, mapping)).toEqual(refused);
  });
});

describe('properties of buildInput', () => {
  const segment = fc.constantFrom('a', 'b', 'c', '0', '1', '', '__proto__', 'toString');
  const dotted = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('.'));
  const { json } = fc.letrec<{ json: unknown }>((tie) => ({
    json: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null)),
      fc.array(tie('json'), { maxLength: 3 }),
      fc.dictionary(segment, tie('json'), { maxKeys: 4 }),
    ),
  }));
  const object = fc.dictionary(segment, json, { maxKeys: 4 });
  const mapping = fc.dictionary(dotted, dotted, { maxKeys: 5 });

  function deepFreeze<T>(value: T): T {
    if (typeof value === 'object' && value !== null) {
      for (const member of Object.values(value)) deepFreeze(member);
      Object.freeze(value);
    }
    return value;
  }

  it('never changes its arguments (frozen: a write would throw)', () => {
    fc.assert(
      fc.property(
        fc.option(object, { nil: undefined }),
        fc.option(mapping, { nil: undefined }),
        json,
        (l, m, d) => {
          const before = structuredClone({ l, m, d });
          buildInput(deepFreeze(l), deepFreeze(m), deepFreeze(d));
          expect({ l, m, d }).toEqual(before);
        },
      ),
      { numRuns: 500 },
    );
  });

  const segmentsOf = (field: string) => field.split('.');
  /** One field is a segment prefix of the other: writing one replaces or writes into the other. */
  const related = (f: string, g: string) => {
    const [short, long] =
      f.length <= g.length ? [segmentsOf(f), segmentsOf(g)] : [segmentsOf(g), segmentsOf(f)];
    return short.every((s, i) => long[i] === s);
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  /** Where the spec puts a field: down through objects, else under the rest of the dotted key. */
  function fieldValue(input: Record<string, unknown>, field: string): unknown {
    const segments = segmentsOf(field);
    let level = input;
    for (let i = 0; i < segments.length - 1; i++) {
      const child = Object.hasOwn(level, segments[i] as string) ? level[segments[i] as string] : undefined;
      if (!isObject(child)) return level[segments.slice(i).join('.')];
      level = child;
    }
    return level[segments[segments.length - 1] as string];
  }

  it("puts every resolved path's value at its field (unless a later resolved entry writes over or into it)", () => {
    fc.assert(
      fc.property(fc.option(object, { nil: undefined }), mapping, json, (literal, m, data) => {
        const input = buildInput(literal, m, data);
        const entries = Object.entries(m);
        entries.forEach(([field, path], i) => {
          const read = readPath(data, path);
          const rewritten = entries
            .slice(i + 1)
            .some(([later, laterPath]) => related(field, later) && readPath(data, laterPath).found);
          if (!read.found || rewritten) return;
          expect(fieldValue(input, field)).toBe(read.value);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
