// The installs pages' pure rules, a row per case: the config form described from a configSchema (the
// release apps' schemas among them), values read and written at pointers, typed text parsed, the
// platform's issues placed at their fields, a test call's example input from its schema, and the
// installs table's figures, hosts and refusals.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeConfig,
  type Field,
  fieldText,
  parseFieldText,
  placeIssues,
  valueAt,
  withValueAt,
} from '../../console/src/pages/installs/config-form.ts';
import { exampleFromSchema } from '../../console/src/pages/installs/example-from-schema.ts';
import {
  budgetText,
  hostsAdded,
  hostsNotApproved,
  installRows,
  issuesOf,
  latencyText,
  runsNamed,
  successRate,
} from '../../console/src/pages/installs/install-rules.ts';
import { ROOT } from '../support/processes.ts';

const manifest = (app: string) =>
  JSON.parse(readFileSync(path.join(ROOT, 'apps', 'build', `${app}-1.0.0.manifest.json`), 'utf8'));

/** A field as kind and pointer, groups with their children: what the form shows, in order. */
const shape = (fields: Field[]): unknown[] =>
  fields.map((f) => (f.kind === 'group' ? [f.pointer, f.kind, shape(f.fields)] : [f.pointer, f.kind]));

describe('the config form from a configSchema', () => {
  it.each<[string, unknown, unknown[]]>([
    ['a boolean schema: one JSON field', true, [['', 'json']]],
    ['an object without properties: one JSON field', { type: 'object' }, [['', 'json']]],
    ['alternatives at the top: one JSON field', { oneOf: [{ type: 'object' }] }, [['', 'json']]],
    [
      'scalars, enum and const',
      {
        type: 'object',
        properties: {
          s: { type: 'string' },
          n: { type: 'number' },
          i: { type: 'integer' },
          b: { type: 'boolean' },
          e: { enum: ['a', 'b'] },
          c: { const: 'x' },
          nullable: { type: ['string', 'null'] },
        },
      },
      [
        ['/s', 'text'],
        ['/n', 'number'],
        ['/i', 'number'],
        ['/b', 'boolean'],
        ['/e', 'choice'],
        ['/c', 'choice'],
        ['/nullable', 'text'],
      ],
    ],
    [
      'a nested object, arrays of scalars and enums, and what only JSON can edit',
      {
        type: 'object',
        properties: {
          'a/b': { type: 'object', properties: { 'c~d': { type: 'string' } } },
          tags: { type: 'array', items: { type: 'string' } },
          ports: { type: 'array', items: { type: 'integer' } },
          places: { type: 'array', items: { enum: ['path', 'body'] } },
          rows: { type: 'array', items: { type: 'object' } },
          map: { type: 'object', additionalProperties: { type: 'string' } },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          anything: {},
        },
      },
      [
        ['/a~1b', 'group', [['/a~1b/c~0d', 'text']]],
        ['/tags', 'list'],
        ['/ports', 'list'],
        ['/places', 'choices'],
        ['/rows', 'json'],
        ['/map', 'json'],
        ['/either', 'json'],
        ['/anything', 'json'],
      ],
    ],
  ])('%s', (_case, schema, expected) => {
    expect(shape(describeConfig(schema))).toEqual(expected);
  });

  it('labels by title else name, with the description, the required marker and the default', () => {
    const [baseUrl, timeout] = describeConfig({
      type: 'object',
      required: ['baseUrl'],
      properties: {
        baseUrl: { type: 'string', title: 'Base URL', description: 'The vendor API', format: 'uri' },
        timeout: { type: 'integer', minimum: 60, maximum: 600, default: 120 },
      },
    });
    expect(baseUrl).toEqual({
      pointer: '/baseUrl',
      label: 'Base URL',
      description: 'The vendor API',
      required: true,
      defaultValue: undefined,
      kind: 'text',
      format: 'uri',
    });
    expect(timeout).toMatchObject({
      label: 'timeout',
      required: false,
      defaultValue: 120,
      kind: 'number',
      integer: true,
      minimum: 60,
      maximum: 600,
    });
  });

  it('renders the release apps’ schemas as fields, with JSON only where they need it', () => {
    expect(shape(describeConfig(manifest('identity-verification').configSchema))).toEqual([
      ['/baseUrl', 'text'],
      ['/hostedPageUrl', 'text'],
      ['/documentsEnabled', 'boolean'],
      ['/callbackTimeoutSeconds', 'number'],
    ]);
    const http = shape(describeConfig(manifest('http-connector').configSchema));
    expect(http.slice(0, 4)).toEqual([
      ['/baseUrl', 'text'],
      ['/headers', 'json'],
      ['/variables', 'json'],
      [
        '/auth',
        'group',
        [
          ['/auth/type', 'choice'],
          ['/auth/header', 'text'],
          ['/auth/prefix', 'text'],
          ['/auth/username', 'text'],
        ],
      ],
    ]);
  });
});

describe('values at pointers', () => {
  const config = { baseUrl: 'https://a', auth: { type: 'apiKey', header: 'X' }, 'a/b': 1 };

  it.each<[string, unknown]>([
    ['', config],
    ['/baseUrl', 'https://a'],
    ['/auth/type', 'apiKey'],
    ['/a~1b', 1],
    ['/missing', undefined],
    ['/baseUrl/deeper', undefined],
  ])('reads %j', (pointer, expected) => {
    expect(valueAt(config, pointer)).toEqual(expected);
  });

  it.each<[string, string, unknown, unknown]>([
    ['sets a top-level value', '/baseUrl', 'https://b', { ...config, baseUrl: 'https://b' }],
    ['creates the objects on the way', '/x/y', true, { ...config, x: { y: true } }],
    ['removes a value', '/baseUrl', undefined, { auth: config.auth, 'a/b': 1 }],
    ['removes an object left empty', '/solo/only', undefined, config],
    ['keeps an object with more in it', '/auth/header', undefined, { ...config, auth: { type: 'apiKey' } }],
  ])('%s', (_case, pointer, value, expected) => {
    const start = pointer === '/solo/only' ? { ...config, solo: { only: 1 } } : config;
    expect(withValueAt(start, pointer, value as never)).toEqual(expected);
    expect(config.baseUrl).toBe('https://a'); // never mutated
  });
});

describe('typed text', () => {
  const [text, number, integer, list, ints, json] = describeConfig({
    type: 'object',
    properties: {
      t: { type: 'string' },
      n: { type: 'number' },
      i: { type: 'integer' },
      l: { type: 'array', items: { type: 'string' } },
      li: { type: 'array', items: { type: 'integer' } },
      j: { type: 'object' },
    },
  }) as Field[];

  it.each<[string, Field | undefined, string, unknown]>([
    ['text', text, 'abc', { value: 'abc' }],
    ['empty text: left out', text, '', { value: undefined }],
    ['a number', number, ' 0.5 ', { value: 0.5 }],
    ['not a number', number, 'abc', { invalid: 'Enter a number.' }],
    ['an integer', integer, '10', { value: 10 }],
    ['a fraction where an integer goes', integer, '1.5', { invalid: 'Enter a whole number.' }],
    ['lines', list, 'a\n\n b \n', { value: ['a', 'b'] }],
    ['integer lines', ints, '1\n2', { value: [1, 2] }],
    ['a bad integer line', ints, '1\nx', { invalid: 'Enter one whole number a line.' }],
    ['JSON', json, '{"a": [1]}', { value: { a: [1] } }],
    ['not JSON', json, '{a', { invalid: 'This is not valid JSON.' }],
  ])('%s', (_case, field, typed, expected) => {
    expect(parseFieldText(field as Field, typed)).toEqual(expected);
  });

  it.each<[string, Field | undefined, unknown, string]>([
    ['nothing', text, undefined, ''],
    ['a number', number, 0.5, '0.5'],
    ['lines', list, ['a', 'b'], 'a\nb'],
    ['JSON, indented', json, { a: 1 }, '{\n  "a": 1\n}'],
  ])('shows %s', (_case, field, value, expected) => {
    expect(fieldText(field as Field, value as never)).toBe(expected);
  });
});

describe('the platform’s issues at their fields', () => {
  const fields = describeConfig(manifest('http-connector').configSchema);

  it('places each at its field, else the nearest above; the root’s stay for the top', () => {
    const { at, unplaced } = placeIssues(fields, [
      { path: '/baseUrl', message: 'must match pattern' },
      { path: '/auth/header', message: 'must have required property' },
      { path: '/variables/0/key', message: 'a secret variable must not have a value' },
      { path: '/variables/1/value', message: 'second' },
      { path: '', message: 'must NOT have additional properties' },
      { path: '/versionId', message: 'not a published version' },
    ]);
    expect(Object.fromEntries(at)).toEqual({
      '/baseUrl': ['must match pattern'],
      '/auth/header': ['must have required property'],
      '/variables': ['a secret variable must not have a value', 'second'],
    });
    expect(unplaced.map((i) => i.path)).toEqual(['', '/versionId']);
  });

  it('a whole-config JSON field takes every issue', () => {
    const { at, unplaced } = placeIssues(describeConfig(true), [{ path: '/x', message: 'no' }]);
    expect(Object.fromEntries(at)).toEqual({ '': ['no'] });
    expect(unplaced).toEqual([]);
  });
});

describe('a test call’s example input', () => {
  it.each<[string, unknown, unknown]>([
    ['a boolean schema', true, {}],
    ['no schema', undefined, {}],
    ['an empty schema', {}, {}],
    [
      'required properties by type; optional ones only with a hint',
      {
        type: 'object',
        required: ['name', 'age', 'ok', 'kind', 'tags', 'nested', 'born'],
        properties: {
          name: { type: 'string', minLength: 6 },
          age: { type: 'integer', minimum: 18 },
          ok: { type: 'boolean' },
          kind: { enum: ['person', 'company'] },
          tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
          nested: {
            type: 'object',
            required: ['x'],
            properties: { x: { type: 'number', exclusiveMinimum: 2 } },
          },
          born: { type: 'string', format: 'date' },
          optional: { type: 'string' },
          hinted: { type: 'string', examples: ['Ada'] },
          defaulted: { type: 'number', default: 0.7 },
        },
      },
      {
        name: 'textxx',
        age: 18,
        ok: false,
        kind: 'person',
        tags: ['text'],
        nested: { x: 3 },
        born: '2000-01-31',
        hinted: 'Ada',
        defaulted: 0.7,
      },
    ],
    ['the schema’s own example first', { type: 'object', examples: [{ a: 1 }] }, { a: 1 }],
    ['the first alternative', { oneOf: [{ type: 'string' }, { type: 'number' }] }, 'text'],
  ])('%s', (_case, schema, expected) => {
    expect(exampleFromSchema(schema)).toEqual(expected);
  });

  it('fills the release apps’ actions with inputs their schemas take', () => {
    const http = manifest('http-connector').actions.find((a: { name: string }) => a.name === 'request');
    expect(exampleFromSchema(http.input)).toEqual({ method: 'GET', path: '/text' });
    const idv = manifest('identity-verification').actions[0];
    expect(exampleFromSchema(idv.input)).toEqual({ firstName: 'text', lastName: 'text' });
  });
});

describe('the installs table', () => {
  it.each<[number, number, string]>([
    [0, 0, '—'],
    [10, 0, '100%'],
    [10, 1, '90%'],
    [3, 1, '66.6%'],
    [2000, 1, '99.9%'],
    [10, 10, '0%'],
  ])('%i calls, %i failures: %s', (calls, failures, expected) => {
    expect(successRate(calls, failures)).toBe(expected);
  });

  it.each<[number | null, string]>([
    [null, '—'],
    [41, '41 ms'],
    [1500, '1.5 s'],
  ])('latency %j: %s', (ms, expected) => {
    expect(latencyText(ms)).toBe(expected);
  });

  const budget = (over: object) => ({
    metric: 'calls' as const,
    period: 'day' as const,
    max: 1000,
    used: 12,
    periodStart: '2026-03-02T00:00:00.000Z',
    resetsAt: '2026-03-03T00:00:00.000Z',
    reached: false,
    ...over,
  });
  it.each<[string, object, string | null, string]>([
    ['calls today', {}, null, '12 of 1,000 calls today'],
    [
      'HTTP requests this month, reached',
      { metric: 'http_requests', period: 'month', used: 5, max: 5, reached: true },
      null,
      '5 of 5 HTTP requests this month (reached)',
    ],
    [
      'spend in a currency',
      { metric: 'spend', used: 250_000, max: 50_000_000 },
      'EUR',
      '€0.25 of €50.00 spent today',
    ],
    [
      'spend without a currency',
      { metric: 'spend', used: 7, max: 9 },
      null,
      '7 micros of 9 micros spent today',
    ],
  ])('budget: %s', (_case, over, currency, expected) => {
    expect(budgetText(budget(over), currency)).toBe(expected);
  });

  it('joins the installs with their health, circuit, block and budgets; no calls reads as none', () => {
    const install = (id: string, name: string) => ({
      id,
      name,
      appName: 'http-connector',
      version: { version: '1.0.0' },
      enabled: true,
      pendingChange: null,
      missingSecrets: [],
    });
    const rows = installRows(
      [install('i1', 'kyc'), install('i2', 'quiet')] as never,
      {
        installs: [
          { installId: 'i1', calls: 4, failures: 1, p95Ms: 40, lastCallAt: '2026-03-02T10:00:00.000Z' },
        ],
        circuits: [{ installId: 'i1', state: 'open', retryAt: '2026-03-02T10:00:30.000Z' }],
        blocked: [{ installId: 'i2', reason: 'malware' }],
      } as never,
      { installs: [{ installId: 'i1', currency: null, budgets: [budget({})] }] } as never,
    );
    expect(rows).toEqual([
      expect.objectContaining({
        name: 'kyc',
        calls: 4,
        failures: 1,
        p95Ms: 40,
        circuit: 'open',
        retryAt: '2026-03-02T10:00:30.000Z',
        blocked: null,
        budgets: [{ text: '12 of 1,000 calls today', reached: false }],
      }),
      expect.objectContaining({
        name: 'quiet',
        calls: 0,
        p95Ms: null,
        circuit: 'closed',
        blocked: 'malware',
        budgets: [],
      }),
    ]);
  });

  const idv = { hosts: [], hostsFromConfig: ['/baseUrl', '/hostedPageUrl'] };
  it.each<[string, object, string[], object, string[]]>([
    ['a new install: every host', idv, [], { baseUrl: 'http://127.0.0.1:4010/x' }, ['127.0.0.1:4010']],
    ['hosts it has: none', idv, ['api.vendor.example'], { baseUrl: 'https://API.vendor.example' }, []],
    [
      'a second URL on another host, and the manifest’s own',
      { hosts: ['fixed.example'], hostsFromConfig: ['/baseUrl', '/hostedPageUrl'] },
      ['api.vendor.example'],
      { baseUrl: 'https://api.vendor.example', hostedPageUrl: 'https://pages.vendor.example:8443/p' },
      ['fixed.example', 'pages.vendor.example:8443'],
    ],
    ['not a URL yet: none', idv, [], { baseUrl: 'api.vendor' }, []],
  ])('hosts to approve: %s', (_case, version, current, config, expected) => {
    expect(hostsAdded(version as never, config as never, current)).toEqual(expected);
  });

  it('reads the runs, hosts and issues a refusal names, ignoring what is not', () => {
    expect(runsNamed({ pendingCallbacks: 2, runs: [{ id: 'r1' }, { id: 'r2' }, { nope: 1 }] })).toEqual([
      'r1',
      'r2',
    ]);
    expect(runsNamed(undefined)).toEqual([]);
    expect(hostsNotApproved({ added: ['a', 'b'], notApproved: ['b', 3] })).toEqual(['b']);
    expect(issuesOf({ issues: [{ path: '/a', message: 'm' }, { path: 1 }] })).toEqual([
      { path: '/a', message: 'm' },
    ]);
  });
});
