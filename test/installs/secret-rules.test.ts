import { describe, expect, it } from 'vitest';
import {
  checkSecretReferences,
  checkSecretVariables,
  conditionHolds,
  type DeclaringVersion,
  MAX_SECRET_VARIABLES,
  mayStoreSecret,
  requiredSecrets,
  type SecretsManifest,
  storableSecrets,
} from '../../src/installs/secrets/secrets-rules.ts';

/** The http-connector's secrets, as its manifest declares them. */
const CONNECTOR: SecretsManifest = {
  secrets: [
    { name: 'TOKEN', requiredWhen: [{ config: '/auth/type', in: ['bearer'] }] },
    { name: 'PASSWORD', requiredWhen: [{ config: '/auth/type', in: ['basic', 'digest'] }] },
    { name: 'USERNAME' },
    { name: 'WEBHOOK_SECRET', requiredWhen: [{ config: '/webhook/scheme' }] },
  ],
  secretsFromConfig: '/variables',
};
const plain = (names: string[]): SecretsManifest => ({ secrets: names.map((name) => ({ name })) });

describe('conditionHolds', () => {
  const cond = (config: string, values?: (string | number | boolean)[]) =>
    values === undefined ? { config } : { config, in: values };

  it('with in: holds when the value is one of the values, compared strictly', () => {
    expect(conditionHolds(cond('/a', ['x', 'y']), { a: 'y' })).toBe(true);
    expect(conditionHolds(cond('/a', ['x']), { a: 'z' })).toBe(false);
    expect(conditionHolds(cond('/a', [1]), { a: 1 })).toBe(true);
    expect(conditionHolds(cond('/a', [1]), { a: '1' })).toBe(false);
    expect(conditionHolds(cond('/a', ['1']), { a: 1 })).toBe(false);
    expect(conditionHolds(cond('/a', [true]), { a: true })).toBe(true);
    expect(conditionHolds(cond('/a', [true]), { a: 'true' })).toBe(false);
    expect(conditionHolds(cond('/a', [false]), { a: 0 })).toBe(false);
    expect(conditionHolds(cond('/a', [0]), { a: false })).toBe(false);
    expect(conditionHolds(cond('/a', ['']), { a: '' })).toBe(true);
    expect(conditionHolds(cond('/a', ['x']), { a: ['x'] })).toBe(false);
    expect(conditionHolds(cond('/a', ['x']), {})).toBe(false);
    expect(conditionHolds(cond('/a', ['null']), { a: null })).toBe(false);
  });

  it('without in: holds when the config has a value that is not null or empty text', () => {
    for (const value of ['x', ' ', 0, false, true, [], {}, ['a']]) {
      expect(conditionHolds(cond('/a'), { a: value }), JSON.stringify(value)).toBe(true);
    }
    expect(conditionHolds(cond('/a'), { a: '' })).toBe(false);
    expect(conditionHolds(cond('/a'), { a: null })).toBe(false);
    expect(conditionHolds(cond('/a'), {})).toBe(false);
    expect(conditionHolds(cond('/a/b'), { a: 'text' })).toBe(false);
  });

  it('reads nested pointers', () => {
    expect(conditionHolds(cond('/auth/type', ['bearer']), { auth: { type: 'bearer' } })).toBe(true);
    expect(conditionHolds(cond('/list/1', ['b']), { list: ['a', 'b'] })).toBe(true);
  });
});

describe('requiredSecrets', () => {
  it('requires a manifest secret without requiredWhen whatever the config', () => {
    expect(requiredSecrets(plain(['A', 'B']), {})).toEqual(['A', 'B']);
    expect(requiredSecrets(plain(['A']), undefined)).toEqual(['A']);
  });

  it('requires a secret with requiredWhen only when a condition holds, reading the config as saved', () => {
    expect(requiredSecrets(CONNECTOR, {})).toEqual(['USERNAME']);
    expect(requiredSecrets(CONNECTOR, { auth: { type: 'bearer' } })).toEqual(['TOKEN', 'USERNAME']);
    expect(requiredSecrets(CONNECTOR, { auth: { type: 'digest' } })).toEqual(['PASSWORD', 'USERNAME']);
    expect(requiredSecrets(CONNECTOR, { webhook: { scheme: 'hmac' } })).toEqual([
      'USERNAME',
      'WEBHOOK_SECRET',
    ]);
    expect(requiredSecrets(CONNECTOR, { webhook: { scheme: '' } })).toEqual(['USERNAME']);
    expect(requiredSecrets(CONNECTOR, { webhook: { scheme: null } })).toEqual(['USERNAME']);
  });

  it('needs any one condition to hold', () => {
    const m: SecretsManifest = {
      secrets: [
        {
          name: 'KEY',
          requiredWhen: [
            { config: '/mode', in: ['live'] },
            { config: '/level', in: [2, 3] },
            { config: '/override' },
          ],
        },
      ],
    };
    expect(requiredSecrets(m, {})).toEqual([]);
    expect(requiredSecrets(m, { mode: 'test', level: 1, override: '' })).toEqual([]);
    expect(requiredSecrets(m, { mode: 'live' })).toEqual(['KEY']);
    expect(requiredSecrets(m, { level: 3 })).toEqual(['KEY']);
    expect(requiredSecrets(m, { level: '3' })).toEqual([]);
    expect(requiredSecrets(m, { override: 'yes' })).toEqual(['KEY']);
  });

  it('requires a secret variable used as <<key>> in config text or with stepPlaces', () => {
    const config = {
      headers: { 'X-Account': '<<ACCOUNT>>', 'X-Region': '<<region>>', '<<NAMEONLY>>': 'x' },
      variables: [
        { key: 'ACCOUNT', secret: true },
        { key: 'PIN', secret: true, stepPlaces: ['body'] },
        { key: 'UNUSED', secret: true },
        { key: 'EMPTY_PLACES', secret: true, stepPlaces: [] },
        { key: 'NAMEONLY', secret: true },
        { key: 'region', value: 'eu' },
      ],
    };
    expect(requiredSecrets({ secrets: [], secretsFromConfig: '/variables' }, config)).toEqual([
      'ACCOUNT',
      'PIN',
    ]);
  });

  it('reads secret variables only at the manifest pointer', () => {
    const config = { vars: [{ key: 'PIN', secret: true, stepPlaces: ['path'] }] };
    expect(requiredSecrets({ secrets: [], secretsFromConfig: '/vars' }, config)).toEqual(['PIN']);
    expect(requiredSecrets({ secrets: [], secretsFromConfig: '/variables' }, config)).toEqual([]);
    expect(requiredSecrets({ secrets: [] }, config)).toEqual([]);
  });

  it('requires each {{secret:NAME}} of config text, each once, after the others', () => {
    const config = {
      auth: { type: 'basic', username: '{{secret:USERNAME}}' },
      headers: { A: '{{secret:API_KEY}} and {{secret:API_KEY}}', B: 'x{{secret:OTHER}}y' },
      bad: '{{secret:1BAD}} {{secret:}} {{ secret:SPACED }} {{secret:A:tag}}',
    };
    expect(requiredSecrets(CONNECTOR, config)).toEqual(['PASSWORD', 'USERNAME', 'API_KEY', 'OTHER']);
  });
});

describe('storableSecrets', () => {
  it("is the manifest's secrets and the config's secret variables, each once", () => {
    const config = {
      variables: [
        { key: 'ACCOUNT', secret: true },
        { key: 'TOKEN', secret: true },
        { key: 'region', value: 'eu' },
        { key: 'bad key', secret: true },
        { key: 'TRUTHY', secret: 'true' },
        'not an object',
      ],
    };
    expect(storableSecrets(CONNECTOR, config)).toEqual([
      'TOKEN',
      'PASSWORD',
      'USERNAME',
      'WEBHOOK_SECRET',
      'ACCOUNT',
    ]);
    expect(storableSecrets(CONNECTOR, {})).toEqual(['TOKEN', 'PASSWORD', 'USERNAME', 'WEBHOOK_SECRET']);
    expect(storableSecrets(CONNECTOR, { variables: 'x' })).toHaveLength(4);
  });
});

describe('checkSecretReferences', () => {
  it('refuses each undeclared name at the pointer of the text holding it, nested and escaped', () => {
    const config = {
      auth: { username: '{{secret:USERNAME}}' },
      headers: { 'X-Key/1': '{{secret:API_KEY}}', 'X~Other': '{{secret:TOKEN}} {{secret:NOPE}}' },
      steps: [{ body: { text: ['ok', '{{secret:API_KEY}}{{secret:API_KEY}}'] } }],
      variables: [{ key: 'ACCOUNT', secret: true, stepPlaces: ['path'] }],
      note: '{{secret:ACCOUNT}}',
    };
    expect(checkSecretReferences(CONNECTOR, config)).toEqual([
      {
        path: '/headers/X-Key~11',
        message:
          "{{secret:API_KEY}} names a secret neither the app nor the config's secret variables declare",
      },
      {
        path: '/headers/X~0Other',
        message: "{{secret:NOPE}} names a secret neither the app nor the config's secret variables declare",
      },
      {
        path: '/steps/0/body/text/1',
        message:
          "{{secret:API_KEY}} names a secret neither the app nor the config's secret variables declare",
      },
    ]);
  });

  it('takes names the manifest or a secret variable declares, not a plain variable', () => {
    expect(checkSecretReferences(CONNECTOR, { a: '{{secret:TOKEN}}' })).toEqual([]);
    const config = { a: '{{secret:region}}', variables: [{ key: 'region', value: 'eu' }] };
    expect(checkSecretReferences(CONNECTOR, config).map((i) => i.path)).toEqual(['/a']);
  });

  it('finds nothing in a config without references', () => {
    expect(checkSecretReferences(CONNECTOR, {})).toEqual([]);
    expect(checkSecretReferences(CONNECTOR, { a: '{secret:X}', b: '<<X>>' })).toEqual([]);
  });
});

describe('checkSecretVariables', () => {
  const check = (variables: unknown, pointer = '/variables') =>
    checkSecretVariables({ secrets: [], secretsFromConfig: pointer }, { settings: { variables } });
  const at = '/settings/variables';

  it('takes valid variables and an absent or null array', () => {
    const valid = [
      { key: 'region', value: 'eu' },
      { key: 'plain' },
      { key: 'ACCOUNT', secret: true, stepPlaces: ['path', 'query', 'headers', 'body'] },
      { key: 'PIN', secret: true, stepPlaces: [] },
      { key: 'OFF', secret: false, value: 'x' },
      { key: 'NULLVALUE', secret: true, value: null },
    ];
    expect(check(valid, at)).toEqual([]);
    expect(check(undefined, at)).toEqual([]);
    expect(check(null, at)).toEqual([]);
    expect(checkSecretVariables({ secrets: [] }, { variables: [{ key: '1' }] })).toEqual([]);
  });

  it('uses the manifest pointer, not /variables', () => {
    expect(check([{ key: 'bad key' }], at)).toEqual([
      {
        path: '/settings/variables/0/key',
        message: 'key is a letter followed by up to 63 letters, digits or underscores',
      },
    ]);
    expect(check([{ key: 'bad key' }], '/variables')).toEqual([]);
  });

  it(`refuses more than ${MAX_SECRET_VARIABLES} variables at the array`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `V${i}`, value: 'x' }));
    expect(check(many(20), at)).toEqual([]);
    expect(check(many(21), at)).toEqual([{ path: at, message: 'a config holds at most 20 variables' }]);
  });

  it('refuses something other than an array at the array pointer, and items that are not objects', () => {
    expect(check({ key: 'A' }, at)).toEqual([{ path: at, message: 'expected an array of variables' }]);
    expect(check(['A', null], at)).toEqual([
      { path: `${at}/0`, message: 'a variable is an object { key, value?, secret?, stepPlaces? }' },
      { path: `${at}/1`, message: 'a variable is an object { key, value?, secret?, stepPlaces? }' },
    ]);
  });

  it('refuses keys that break the secret name rule or repeat another variable', () => {
    const keys = ['', '1abc', '_a', 'a-b', 'a b', `A${'b'.repeat(64)}`];
    const issues = check([...keys.map((key) => ({ key })), { value: 'x' }, { key: 7 }], at);
    expect(issues.map((i) => i.path)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `${at}/${i}/key`));
    expect(check([{ key: `A${'b'.repeat(63)}` }], at)).toEqual([]);
    expect(
      check(
        [
          { key: 'A', value: 'x' },
          { key: 'A', secret: true },
        ],
        at,
      ),
    ).toEqual([{ path: `${at}/1/key`, message: 'key A is used by another variable' }]);
  });

  it('refuses a value on a secret variable at /value', () => {
    expect(
      check(
        [
          { key: 'A', value: 'x' },
          { key: 'B', secret: true, value: 'hunter2' },
        ],
        at,
      ),
    ).toEqual([
      { path: `${at}/1/value`, message: 'a secret variable holds no value in config: store it as a secret' },
    ]);
    expect(check([{ key: 'B', secret: true, value: '' }], at).map((i) => i.path)).toEqual([`${at}/0/value`]);
  });

  it('refuses stepPlaces on a plain variable, and places other than path, query, headers, body', () => {
    expect(
      check(
        [
          { key: 'A', value: 'x', stepPlaces: ['path'] },
          { key: 'B', stepPlaces: [] },
          { key: 'C', secret: false, stepPlaces: ['body'] },
          { key: 'D', secret: true, stepPlaces: ['url'] },
          { key: 'E', secret: true, stepPlaces: 'path' },
          { key: 'F', secret: true, stepPlaces: ['path', 'path'] },
          { key: 'G', secret: true, stepPlaces: ['Path'] },
        ],
        at,
      ),
    ).toEqual([
      { path: `${at}/0/stepPlaces`, message: 'stepPlaces are allowed only on secret variables' },
      { path: `${at}/1/stepPlaces`, message: 'stepPlaces are allowed only on secret variables' },
      { path: `${at}/2/stepPlaces`, message: 'stepPlaces are allowed only on secret variables' },
      { path: `${at}/3/stepPlaces`, message: 'stepPlaces is a list of path, query, headers, body' },
      { path: `${at}/4/stepPlaces`, message: 'stepPlaces is a list of path, query, headers, body' },
      { path: `${at}/5/stepPlaces`, message: 'stepPlaces names each place once' },
      { path: `${at}/6/stepPlaces`, message: 'stepPlaces is a list of path, query, headers, body' },
    ]);
  });

  it('refuses a secret flag that is not a boolean, treating the variable as plain', () => {
    expect(check([{ key: 'A', secret: 'true', stepPlaces: ['path'] }], at)).toEqual([
      { path: `${at}/0/secret`, message: 'secret is true or false' },
      { path: `${at}/0/stepPlaces`, message: 'stepPlaces are allowed only on secret variables' },
    ]);
  });

  it('names every violation of one variable, and never echoes a value', () => {
    const issues = check([{ key: '9', secret: true, value: 'hunter2', stepPlaces: ['everywhere'] }], at);
    expect(issues.map((i) => i.path)).toEqual([`${at}/0/key`, `${at}/0/value`, `${at}/0/stepPlaces`]);
    expect(JSON.stringify(issues)).not.toContain('hunter2');
  });
});

describe('mayStoreSecret', () => {
  const config = {
    variables: [
      { key: 'ACCOUNT', secret: true },
      { key: 'region', value: 'eu' },
    ],
  };
  const installed: DeclaringVersion = { manifest: CONNECTOR, config };

  it('takes a name the installed version declares under the config', () => {
    expect(mayStoreSecret('TOKEN', { installed, published: [] })).toBe(true);
    expect(mayStoreSecret('ACCOUNT', { installed, published: [] })).toBe(true);
    expect(mayStoreSecret('region', { installed, published: [] })).toBe(false);
    expect(mayStoreSecret('ACCOUNT', { installed: { manifest: CONNECTOR }, published: [] })).toBe(false);
  });

  it('takes a name a published version of the app declares', () => {
    const published = [{ manifest: plain(['OLD']) }, { manifest: plain(['NEW_KEY']) }];
    expect(mayStoreSecret('NEW_KEY', { installed, published })).toBe(true);
    expect(mayStoreSecret('OTHER', { installed, published })).toBe(false);
  });

  it('takes a name the version the last automatic upgrade left declares', () => {
    const upgradedFrom = { manifest: plain(['LEGACY']) };
    expect(mayStoreSecret('LEGACY', { installed, published: [], upgradedFrom })).toBe(true);
    expect(mayStoreSecret('LEGACY', { installed, published: [], upgradedFrom: null })).toBe(false);
  });

  it('takes a name the change awaiting approval declares, its config variables included', () => {
    const pendingChange: DeclaringVersion = {
      manifest: { secrets: [{ name: 'CHANGED' }], secretsFromConfig: '/vars' },
      config: { vars: [{ key: 'NEW_VAR', secret: true }] },
    };
    expect(mayStoreSecret('CHANGED', { installed, published: [], pendingChange })).toBe(true);
    expect(mayStoreSecret('NEW_VAR', { installed, published: [], pendingChange })).toBe(true);
    expect(mayStoreSecret('NEW_VAR', { installed, published: [], pendingChange: null })).toBe(false);
  });

  it('refuses a name that breaks the secret name rule, whoever declares it', () => {
    const odd = { manifest: plain(['bad-name', '']) };
    expect(mayStoreSecret('bad-name', { installed: odd, published: [odd] })).toBe(false);
    expect(mayStoreSecret('', { installed: odd, published: [] })).toBe(false);
  });
});
