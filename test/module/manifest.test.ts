import { describe, expect, it } from 'vitest';
import { parseManifest, parseManifestJson } from '../../src/module/manifest.ts';
import { accepted, fullManifest, fullSet, fullWith, minimalManifest, refused } from './manifests.ts';

describe('parseManifest: accepted manifests', () => {
  it('gives a complete manifest back as written', () => {
    expect(accepted(fullManifest())).toEqual(fullManifest());
  });

  it('fills in the defaults and leaves optional fields out', () => {
    const manifest = accepted(minimalManifest());
    expect(manifest).toEqual({
      ...minimalManifest(),
      capabilities: [],
      hostsFromConfig: [],
      needs: [],
      memoryMiB: 64,
      actions: [{ name: 'run', input: {}, output: {}, timeoutMs: 15_000, idempotent: false }],
      handles: { webhook: false, handoff: false },
    });
    expect(Object.keys(manifest)).not.toContain('title');
    expect(Object.keys(manifest.actions[0] ?? {})).not.toContain('retry');
  });

  it('reads the JSON text the manifest export answers', () => {
    expect(parseManifestJson(JSON.stringify(fullManifest()))).toEqual({ ok: true, manifest: fullManifest() });
    expect(parseManifestJson('{"interface": 2,')).toEqual({
      ok: false,
      code: 'invalid_module',
      path: '',
      message: 'manifest: the answer is not JSON',
    });
  });

  it('leaves unknown keywords inside JSON Schemas alone', () => {
    const manifest = fullWith((m) => {
      m.configSchema = {
        type: 'object',
        'x-ui-order': ['baseUrl'],
        properties: {
          baseUrl: { type: 'string', 'x-widget': 'url' },
          anything: { whatever: { deep: true } },
        },
      };
      m.hostsFromConfig = ['/baseUrl'];
      m.documentsFromConfig = undefined;
      m.handles = { webhook: true };
      const [action] = m.actions;
      if (action) {
        action.input = { type: 'object', 'x-order': 1, properties: { jitter: { 'x-unknown': {} } } };
        action.output = { $comment: 'free', 'x-vendor': { retry: { jitter: 1 } } };
      }
    });
    expect(accepted(manifest).configSchema).toMatchObject({ 'x-ui-order': ['baseUrl'] });
  });
});

describe('parseManifest: unknown fields', () => {
  const unknownAt = (path: string, change: Parameters<typeof fullWith>[0]) => {
    const { message, path: found } = refused(fullWith(change));
    expect(found).toBe(path);
    expect(message).toMatch(new RegExp(`^manifest: ${path.replaceAll('.', '\\.')}: unknown field`));
    expect(message).toMatch(/newer toolkit/);
  };

  it('refuses one at the top level', () => {
    unknownAt('permissions', (m) => {
      m.permissions = ['all'];
    });
  });

  it('refuses one in an action, naming the action by its name', () => {
    unknownAt('actions.screen.retry.jitter', (m) => {
      (m.actions[0] as { retry: Record<string, unknown> }).retry.jitter = 0.1;
    });
    unknownAt('actions.status.cost', (m) => {
      (m.actions[1] as Record<string, unknown>).cost = 1;
    });
    unknownAt('actions.screen.async.maxWait', (m) => {
      (m.actions[0] as { async: Record<string, unknown> }).async.maxWait = 1;
    });
    unknownAt('actions.screen.outputFromInput.1.depth', (m) => {
      (m.actions[0] as { outputFromInput: Record<string, unknown>[] }).outputFromInput[1] = {
        kind: 'keys',
        output: '/a',
        input: '/b',
        key: 'id',
        depth: 2,
      };
    });
    // key belongs to kind keys only.
    unknownAt('actions.screen.outputFromInput.0.key', (m) => {
      (m.actions[0] as { outputFromInput: Record<string, unknown>[] }).outputFromInput[0] = {
        kind: 'schema',
        output: '/a',
        input: '/b',
        key: 'id',
      };
    });
  });

  it('refuses one in handles and in the webhook id source', () => {
    unknownAt('handles.x', (m) => {
      m.handles.x = true;
    });
    unknownAt('handles.webhookExternalId.cookie', (m) => {
      m.handles = { webhook: true, webhookExternalId: { cookie: 'id' } };
    });
  });

  it('refuses one in secrets and their conditions, naming items by index', () => {
    unknownAt('secrets.0.x', (m) => {
      (m.secrets[0] as Record<string, unknown>).x = 1;
    });
    unknownAt('secrets.1.requiredWhen.0.equals', (m) => {
      (m.secrets[1] as { requiredWhen: Record<string, unknown>[] }).requiredWhen[0] = {
        config: '/a',
        equals: 1,
      };
    });
  });

  it('names an action by index while its name is unusable', () => {
    const { path } = refused(
      fullWith((m) => {
        m.actions[1] = { name: '1st', input: {}, output: {} };
      }),
    );
    expect(path).toBe('actions.1.name');
  });
});

describe('parseManifest: interface', () => {
  it('refuses any interface but 2, saying to rebuild with a toolkit for this platform', () => {
    for (const value of [1, 3, '2', 2.5, null]) {
      const { path, message } = refused({ ...fullManifest(), interface: value });
      expect(path).toBe('interface');
      expect(message).toMatch(/rebuild the app with a toolkit for this platform/);
    }
    const missing: Record<string, unknown> = fullManifest();
    delete missing.interface;
    expect(refused(missing)).toMatchObject({
      path: 'interface',
      message: expect.stringMatching(/is required/),
    });
  });

  it('reports the interface before the unknown fields a newer contract brings', () => {
    const { path, message } = refused({ ...fullManifest(), interface: 3, streaming: true });
    expect(path).toBe('interface');
    expect(message).toBe(
      'manifest: interface: 3 is not supported: this platform runs interface 2; rebuild the app with a toolkit for this platform',
    );
  });

  it('refuses what is not an object', () => {
    for (const value of [null, [], 'manifest', 2]) {
      expect(refused(value)).toEqual({ path: '', message: 'manifest: expected an object' });
    }
  });
});

describe('parseManifest: required fields and types', () => {
  for (const field of ['name', 'version', 'configSchema', 'actions']) {
    it(`refuses a manifest without ${field}`, () => {
      const manifest: Record<string, unknown> = minimalManifest();
      delete manifest[field];
      expect(refused(manifest)).toEqual({ path: field, message: `manifest: ${field}: is required` });
    });
  }

  it('defaults secrets, hosts and handles to nothing when an app needs none', () => {
    const manifest: Record<string, unknown> = minimalManifest();
    for (const field of ['secrets', 'hosts', 'handles']) delete manifest[field];
    const parsed = parseManifest(manifest);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.manifest).toMatchObject({
      secrets: [],
      hosts: [],
      handles: { webhook: false, handoff: false },
    });
  });

  it('refuses an action without input or output', () => {
    expect(refused(fullSet(['actions', 0, 'input'], undefined)).path).toBe('actions.screen.input');
    expect(refused(fullSet(['actions', 1, 'output'], undefined)).path).toBe('actions.status.output');
    expect(refused({ ...minimalManifest(), actions: [] }).path).toBe('actions');
  });

  it('refuses values of the wrong type', () => {
    const wrong: [string, (string | number)[], unknown][] = [
      ['memoryMiB', ['memoryMiB'], '64'],
      ['memoryMiB', ['memoryMiB'], 64.5],
      ['capabilities', ['capabilities'], 'screening'],
      ['capabilities.1', ['capabilities'], ['a', 2]],
      ['actions.screen.idempotent', ['actions', 0, 'idempotent'], 'yes'],
      ['actions.screen.timeoutMs', ['actions', 0, 'timeoutMs'], 1000.5],
      ['actions.screen.retry', ['actions', 0, 'retry'], [3, 500]],
      ['handles.handoff', ['handles', 'handoff'], 1],
      ['secrets.0', ['secrets', 0], 'API_KEY'],
      ['secrets.1.requiredWhen.0.in.0', ['secrets', 1, 'requiredWhen', 0, 'in'], [null]],
      ['secrets.1.requiredWhen.0.in.0', ['secrets', 1, 'requiredWhen', 0, 'in'], [{}]],
      ['needs.0', ['needs'], ['network']],
      ['needs', ['needs'], ['documents', 'documents']],
      ['docsUrl', ['docsUrl'], 'http://docs.example.com'],
      ['docsUrl', ['docsUrl'], 'docs.example.com'],
      ['docsUrl', ['docsUrl'], ' https://docs.example.com'],
      ['actions.screen.outputFromInput.0.kind', ['actions', 0, 'outputFromInput'], [{ kind: 'list' }]],
      ['actions.screen.outputFromInput.1.key', ['actions', 0, 'outputFromInput', 1, 'key'], undefined],
      [
        'actions.screen.outputFromInput.0.key',
        ['actions', 0, 'outputFromInput'],
        [{ kind: 'keys', output: '/a', input: '/b', key: '' }],
      ],
      ['actions.screen.mappable.0', ['actions', 0, 'mappable'], ['name']],
      ['secretsFromConfig', ['secretsFromConfig'], 'variables'],
      ['title', ['title'], 7],
    ];
    for (const [path, at, value] of wrong) expect(refused(fullSet(at, value)).path, at.join('.')).toBe(path);
  });
});

describe('parseManifest: names, versions, hosts and pointers', () => {
  it('refuses reserved and malformed app names', () => {
    for (const name of [
      'approvals',
      'health',
      'metering',
      'uploads',
      'KYC',
      '-kyc',
      'kyc_screen',
      '',
      'k'.repeat(101),
    ]) {
      expect(refused({ ...minimalManifest(), name }).path).toBe('name');
    }
    for (const name of ['a', '0day', 'uploads-2', 'k'.repeat(100)])
      expect(accepted({ ...minimalManifest(), name }).name).toBe(name);
  });

  it('takes semantic versions of at most 50 characters without build metadata', () => {
    for (const version of ['0.0.0', '1.10.0', '2.0.0-rc.1', '1.0.0-alpha-2', `1.0.0-${'a'.repeat(44)}`]) {
      expect(accepted({ ...minimalManifest(), version }).version).toBe(version);
    }
    for (const version of [
      'v1.0.0',
      '1.0',
      '01.0.0',
      '1.0.0+build.5',
      '1.0.0-',
      '1.0.0-a..b',
      `1.0.0-${'a'.repeat(45)}`,
    ]) {
      expect(refused({ ...minimalManifest(), version }).path).toBe('version');
    }
  });

  it('takes secret and action names as the spec writes them, each once', () => {
    const secret = (name: string) => ({ ...minimalManifest(), secrets: [{ name }] });
    expect(accepted(secret(`K${'_'.repeat(63)}`)).secrets).toHaveLength(1);
    for (const name of [`K${'_'.repeat(64)}`, '_KEY', '1KEY', 'API-KEY', ''])
      expect(refused(secret(name)).path).toBe('secrets.0.name');
    expect(
      refused({ ...minimalManifest(), secrets: [{ name: 'A' }, { name: 'B' }, { name: 'A' }] }),
    ).toMatchObject({
      path: 'secrets.2',
      message: expect.stringMatching(/"A" appears more than once/),
    });
    const action = (name: string) => ({ ...minimalManifest(), actions: [{ name, input: {}, output: {} }] });
    expect(accepted(action(`a${'B'.repeat(99)}`)).actions[0]?.name).toHaveLength(100);
    for (const name of [`a${'B'.repeat(100)}`, '_run', 'run-it', ''])
      expect(refused(action(name)).path).toBe('actions.0.name');
    const twice = {
      ...minimalManifest(),
      actions: [
        { name: 'run', input: {}, output: {} },
        { name: 'run', input: {}, output: {} },
      ],
    };
    expect(refused(twice).path).toBe('actions.1');
  });

  it('refuses bad host strings and a host written twice', () => {
    const hosts = (list: string[]) => ({ ...minimalManifest(), hosts: list });
    expect(
      accepted(hosts(['*.example.com', 'localhost:8080', '10.1.2.3', 'x.example.com:65535'])).hosts,
    ).toHaveLength(4);
    for (const host of [
      'api.example.com:443',
      'api.example.com:80',
      'API.example.com',
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}:655350`,
    ]) {
      expect(refused(hosts([host])).path).toBe('hosts.0');
    }
    expect(refused(hosts(['a.example.com', 'b.example.com', 'a.example.com'])).path).toBe('hosts.2');
  });

  it('refuses malformed JSON Pointers', () => {
    for (const pointer of ['name', '', '/a~2b', '/a~', `/${'a'.repeat(200)}`]) {
      expect(refused(fullSet(['secretsFromConfig'], pointer)).path).toBe('secretsFromConfig');
    }
    const longest = `/${'a'.repeat(199)}`;
    expect(accepted(fullSet(['secretsFromConfig'], longest)).secretsFromConfig).toBe(longest);
    expect(accepted(fullSet(['secretsFromConfig'], '/a~1b/~0c')).secretsFromConfig).toBe('/a~1b/~0c');
    expect(accepted(fullSet(['secretsFromConfig'], '/')).secretsFromConfig).toBe('/');
  });
});

describe('parseManifest: JSON Schemas', () => {
  const notCompiling: unknown[] = [
    { type: 'strin' },
    { type: 'string', pattern: '(' },
    { type: 'string', minLength: 'a' },
    { $ref: 'https://schemas.example.com/subject.json' },
    { $schema: 'http://json-schema.org/draft-07/schema#' },
    'object',
    null,
    [],
  ];

  it('refuses a configSchema, input or output that does not compile, naming it', () => {
    for (const schema of notCompiling) {
      const config = refused({ ...minimalManifest(), configSchema: schema });
      expect(config).toMatchObject({
        path: 'configSchema',
        message: expect.stringMatching(/^manifest: configSchema: /),
      });
      expect(refused(fullSet(['actions', 0, 'input'], schema)).path).toBe('actions.screen.input');
      expect(refused(fullSet(['actions', 1, 'output'], schema)).path).toBe('actions.status.output');
    }
  });

  it('accepts boolean schemas, formats, local references and $ids used twice', () => {
    const schema = {
      $id: 'https://apps.example.com/s',
      $defs: { d: { type: 'string', format: 'date-time' } },
      $ref: '#/$defs/d',
    };
    const manifest = fullWith((m) => {
      if (m.actions[0]) m.actions[0].input = schema;
      if (m.actions[1]) Object.assign(m.actions[1], { input: schema, output: false });
    });
    expect(accepted(manifest).actions[1]?.output).toBe(false);
    const declared = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
    expect(accepted({ ...minimalManifest(), configSchema: declared }).configSchema).toEqual(declared);
  });
});

describe('parseManifest: fields the platform reads from config', () => {
  it('refuses a default at a hostsFromConfig field, however it is given', () => {
    const withConfig = (configSchema: unknown, pointer = '/baseUrl') =>
      refused({ ...minimalManifest(), configSchema, hostsFromConfig: [pointer] });
    const direct = withConfig({
      type: 'object',
      properties: { baseUrl: { type: 'string', default: 'https://a.example.com' } },
    });
    expect(direct).toMatchObject({
      path: 'hostsFromConfig.0',
      message: expect.stringMatching(/\/baseUrl a default/),
    });
    const nested = {
      type: 'object',
      properties: {
        vendor: {
          type: 'object',
          properties: { url: { type: 'string' } },
          default: { url: 'https://a.example.com' },
        },
      },
    };
    expect(withConfig(nested, '/vendor/url').path).toBe('hostsFromConfig.0');
    const byRef = {
      type: 'object',
      $defs: { url: { type: 'string', default: 'https://a.example.com' } },
      properties: { baseUrl: { $ref: '#/$defs/url' } },
    };
    expect(withConfig(byRef).path).toBe('hostsFromConfig.0');
    const combined = {
      type: 'object',
      properties: { baseUrl: { allOf: [{ type: 'string' }, { default: 'https://a.example.com' }] } },
    };
    expect(withConfig(combined).path).toBe('hostsFromConfig.0');
    // A pointer that names no declared property cannot be checked, so it is refused too.
    expect(withConfig({ type: 'object', properties: {} })).toMatchObject({
      message: expect.stringMatching(/declares no property at \/baseUrl/),
    });
  });

  it('accepts hostsFromConfig fields without defaults, nested or escaped', () => {
    const configSchema = {
      type: 'object',
      default: {},
      properties: {
        vendor: { type: 'object', default: { region: 'eu' }, properties: { 'api/url': { type: 'string' } } },
        other: { type: 'string', default: 'x' },
      },
    };
    expect(
      accepted({ ...minimalManifest(), configSchema, hostsFromConfig: ['/vendor/api~1url'] }).hostsFromConfig,
    ).toEqual(['/vendor/api~1url']);
    expect(
      refused({
        ...minimalManifest(),
        configSchema,
        hostsFromConfig: ['/vendor/api~1url', '/vendor/api~1url'],
      }).path,
    ).toBe('hostsFromConfig.1');
  });

  it('takes documentsFromConfig only with needs [documents] and without a default', () => {
    expect(refused(fullSet(['needs'], [])).path).toBe('documentsFromConfig');
    expect(refused(fullSet(['needs'], undefined)).path).toBe('documentsFromConfig');
    const withDefault = fullWith((m) => {
      (m.configSchema as { properties: Record<string, unknown> }).properties.readDocuments = {
        type: 'boolean',
        default: true,
      };
    });
    expect(refused(withDefault)).toMatchObject({
      path: 'documentsFromConfig',
      message: expect.stringMatching(/default/),
    });
  });

  it('takes webhookExternalIdFromConfig only with webhook true, never with webhookExternalId, without a default', () => {
    expect(refused(fullSet(['handles', 'webhookExternalId'], { header: 'x-id' }))).toMatchObject({
      path: 'handles.webhookExternalIdFromConfig',
      message: expect.stringMatching(/not allowed together with webhookExternalId/),
    });
    expect(refused(fullSet(['handles', 'webhook'], false))).toMatchObject({
      path: 'handles.webhookExternalIdFromConfig',
      message: expect.stringMatching(/only with webhook true/),
    });
    const withDefault = fullWith((m) => {
      (m.configSchema as { properties: Record<string, unknown> }).properties.externalIdSource = {
        type: 'object',
        default: { header: 'x-id' },
      };
    });
    expect(refused(withDefault).path).toBe('handles.webhookExternalIdFromConfig');
  });

  it('reads the webhook id source as exactly one of json, header or query', () => {
    const source = (webhookExternalId: unknown) => ({
      ...minimalManifest(),
      handles: { webhook: true, webhookExternalId },
    });
    for (const good of [
      { json: '/data/id' },
      { header: 'x-vendor-ref' },
      { query: 'ref' },
      { header: 'h'.repeat(100) },
    ]) {
      expect(accepted(source(good)).handles.webhookExternalId).toEqual(good);
    }
    const bad: [unknown, string][] = [
      [{}, 'handles.webhookExternalId'],
      [{ json: '/id', query: 'id' }, 'handles.webhookExternalId'],
      [{ header: 'X-Vendor-Ref' }, 'handles.webhookExternalId.header'],
      [{ header: 'x vendor' }, 'handles.webhookExternalId.header'],
      [{ header: 'h'.repeat(101) }, 'handles.webhookExternalId.header'],
      [{ query: '' }, 'handles.webhookExternalId.query'],
      [{ query: 'q'.repeat(101) }, 'handles.webhookExternalId.query'],
      [{ json: 'id' }, 'handles.webhookExternalId.json'],
    ];
    for (const [value, path] of bad) expect(refused(source(value)).path).toBe(path);
  });
});

describe('parseManifest: results', () => {
  it('answers a discriminated result', () => {
    expect(parseManifest(minimalManifest())).toMatchObject({ ok: true, manifest: { name: 'minimal' } });
    expect(parseManifest({ ...minimalManifest(), name: 'health' })).toEqual({
      ok: false,
      code: 'invalid_module',
      path: 'name',
      message: 'manifest: name: health is a reserved name',
    });
  });
});
