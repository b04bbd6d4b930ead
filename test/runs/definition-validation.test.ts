// Validation of definition bodies (src/runs/definitions/validation.ts), pure: bodies and tenant snapshots
// in, errors and warnings at JSON Pointers out; the install names a body calls; repeated ids and keys; the
// body a rename's rewrite writes. Also the request issues of discriminated unions and member names.
import { describe, expect, it } from 'vitest';
import { issuesFromAjv } from '../../src/http/errors.ts';
import {
  appCallsOf,
  type InstallFacts,
  installNamesOf,
  type Snapshot,
  shapeIssues,
  validateDefinition,
  withInstallRenamed,
} from '../../src/runs/definitions/validation.ts';
import { unmappableKeys } from '../../src/runs/input-mapping.ts';
import type { RuleSetBody, WorkflowBody } from '../../src/runs/model.ts';

const install = (name: string, facts: Partial<InstallFacts> = {}): [string, InstallFacts] => [
  name,
  {
    name,
    app: 'kit',
    version: '1.0.0',
    enabled: true,
    changePending: false,
    receivesWebhooks: true,
    actions: new Map([
      ['screen', { async: false, mappable: ['/person', '/a~1b'] }],
      ['lookup', { async: false }],
      ['verify', { async: true }],
    ]),
    ...facts,
  },
];

const tenant: Snapshot = {
  installs: new Map([
    install('kyc'),
    install('off', { enabled: false }),
    install('held', { changePending: true }),
    install('deaf', { receivesWebhooks: false }),
  ]),
  aliases: new Map([['old-kyc', 'kyc']]),
  ruleSets: new Map([
    ['live', { published: true }],
    ['wip', { published: false }],
  ]),
};

const call = (id: string, install: string, action: string, extra: object = {}) => ({
  id,
  type: 'call_app' as const,
  install,
  action,
  outputKey: id,
  ...extra,
});
const codes = (issues: { code: string; path: string }[]) => issues.map((i) => [i.code, i.path]);

describe('validateDefinition', () => {
  it('passes a workflow whose installs, actions, mappings and rule sets all hold', () => {
    const body: WorkflowBody = {
      steps: [
        call('a', 'kyc', 'screen', { inputMapping: { person: 'x', 'person.name': 'y', 'a/b.c': 'z' } }),
        call('b', 'kyc', 'lookup', {
          inputMapping: { anything: 'x' },
          fallback: { install: 'kyc', action: 'verify' },
        }),
        { id: 'c', type: 'rule_set', ruleSet: 'live', outputKey: 'c' },
        {
          id: 'd',
          type: 'decide',
          branches: [{ when: { path: 'a.x', exists: true }, outcome: 'review' }],
          otherwise: 'approve',
        },
      ],
    };
    expect(validateDefinition('workflow', body, tenant)).toEqual({ errors: [], warnings: [] });
  });

  it('names each error and warning at its pointer, a fallback’s under /fallback', () => {
    const body: WorkflowBody = {
      steps: [
        call('a', 'nobody', 'screen'),
        call('b', 'kyc', 'nothing'),
        call('c', 'kyc', 'screen', { inputMapping: { persons: 'x', 'a~b': 'y', 'person.name': 'z' } }),
        call('d', 'OLD-KYC', 'lookup'),
        call('e', 'off', 'lookup', { fallback: { install: 'held', action: 'lookup' } }),
        call('f', 'deaf', 'verify', { fallback: { install: 'kyc', action: 'verify' } }),
        { id: 'g', type: 'rule_set', ruleSet: 'missing', outputKey: 'g' },
        { id: 'h', type: 'rule_set', ruleSet: 'wip', outputKey: 'h' },
      ],
    };
    const result = validateDefinition('workflow', body, tenant);
    expect(codes(result.errors)).toEqual([
      ['unknown_install', '/steps/0/install'],
      ['unknown_action', '/steps/1/action'],
      ['unmappable_input', '/steps/2/inputMapping/a~0b'],
      ['unmappable_input', '/steps/2/inputMapping/persons'],
      ['unknown_rule_set', '/steps/6/ruleSet'],
    ]);
    expect(codes(result.warnings)).toEqual([
      ['install_renamed', '/steps/3/install'],
      ['install_disabled', '/steps/4/install'],
      ['install_pending', '/steps/4/fallback/install'],
      ['install_no_webhook', '/steps/5/action'],
      ['rule_set_unpublished', '/steps/7/ruleSet'],
    ]);
    expect(result.warnings[0]?.message).toBe('old-kyc is a former name of install kyc; name kyc instead');
    expect(result.errors[1]?.message).toBe('install kyc runs kit 1.0.0, which has no action nothing');
  });

  it('refuses two steps writing one context key (outputKey, or a decide step’s id) at the later one', () => {
    const decide = (id: string) => ({
      id,
      type: 'decide' as const,
      branches: [{ when: { path: 'a', exists: true }, outcome: 'review' as const }],
      otherwise: 'approve' as const,
    });
    const body: WorkflowBody = {
      steps: [
        call('a', 'kyc', 'lookup', { outputKey: 'screening' }),
        { id: 'b', type: 'rule_set', ruleSet: 'live', outputKey: 'screening' },
        decide('verdict'),
        call('c', 'kyc', 'lookup', { outputKey: 'verdict' }),
        decide('screening'),
        call('d', 'kyc', 'lookup', { outputKey: 'other' }),
      ],
    };
    const result = validateDefinition('workflow', body, tenant);
    expect(codes(result.errors)).toEqual([
      ['duplicate_output_key', '/steps/1/outputKey'],
      ['duplicate_output_key', '/steps/3/outputKey'],
      ['duplicate_output_key', '/steps/4/id'],
    ]);
    expect(result.errors[0]?.message).toBe(
      'step b writes the context key screening, which step a (/steps/0/outputKey) writes too',
    );
    expect(result.errors[2]?.message).toBe(
      'step screening writes the context key screening, which step a (/steps/0/outputKey) writes too',
    );
    expect(result.warnings).toEqual([]);
  });

  it('refuses asynchronous actions in app rules and their fallbacks, and reads no rule sets for rule sets', () => {
    const body: RuleSetBody = {
      rules: [
        { key: 'c', type: 'condition', when: { path: 'x', equals: null } },
        {
          key: 'a',
          type: 'app',
          install: 'deaf',
          action: 'verify',
          resultPath: 'r',
          failWhen: { exists: true },
        },
        {
          key: 'b',
          type: 'app',
          install: 'kyc',
          action: 'screen',
          resultPath: 'r',
          failWhen: { in: [1] },
          fallback: { install: 'gone', action: 'lookup' },
        },
      ],
    };
    const result = validateDefinition('rule_set', body, { ...tenant, ruleSets: new Map() });
    expect(codes(result.errors)).toEqual([
      ['async_rule', '/rules/1/action'],
      ['unknown_install', '/rules/2/fallback/install'],
    ]);
    // async_rule says it all: no install_no_webhook besides.
    expect(result.warnings).toEqual([]);
  });
});

describe('what a body names', () => {
  const body: WorkflowBody = {
    steps: [
      call('a', 'Kyc', 'screen', { fallback: { install: 'backup', action: 'lookup' } }),
      { id: 'b', type: 'rule_set', ruleSet: 'live', outputKey: 'b' },
      call('c', 'kyc', 'lookup'),
    ],
  };

  it('lists its calls in order, fallbacks after their step, and its install names lower case, once each', () => {
    expect(appCallsOf('workflow', body).map((c) => [c.path, c.call.install, c.rule])).toEqual([
      ['/steps/0', 'Kyc', false],
      ['/steps/0/fallback', 'backup', false],
      ['/steps/2', 'kyc', false],
    ]);
    expect(installNamesOf('workflow', body)).toEqual(['backup', 'kyc']);
    expect(
      installNamesOf('rule_set', { rules: [{ key: 'k', type: 'condition', when: { path: 'a', lt: 1 } }] }),
    ).toEqual([]);
  });

  it('renames the calls naming any of the given names, leaving the body it read alone', () => {
    const renamed = withInstallRenamed('workflow', body, new Set(['kyc', 'backup']), 'screening');
    expect(installNamesOf('workflow', renamed)).toEqual(['screening']);
    expect(renamed.steps[1]).toEqual(body.steps[1]);
    expect(installNamesOf('workflow', body)).toEqual(['backup', 'kyc']);
  });

  it('finds repeated step ids and rule keys', () => {
    expect(
      shapeIssues('workflow', { steps: [call('a', 'k', 'x'), call('b', 'k', 'x'), call('a', 'k', 'x')] }),
    ).toEqual([{ path: '/steps/2/id', message: 'repeats the step id of /steps/0' }]);
    const rule = { key: 'r', type: 'condition' as const, when: { path: 'a', gt: 1 } };
    expect(shapeIssues('rule_set', { rules: [rule, rule] })).toEqual([
      { path: '/rules/1/key', message: 'repeats the rule key of /rules/0' },
    ]);
  });

  it.each([
    [
      '__proto__',
      'outputKey of a call_app step',
      call('a', 'k', 'x', { outputKey: '__proto__' }),
      'outputKey',
    ],
    [
      'constructor',
      'outputKey of a rule_set step',
      { id: 'a', type: 'rule_set', ruleSet: 'r', outputKey: 'constructor' },
      'outputKey',
    ],
    [
      'prototype',
      'id of a decide step',
      { id: 'prototype', type: 'decide', branches: [], otherwise: 'approve' },
      'id',
    ],
  ] as const)('refuses the reserved context key %s as the %s', (key, _what, reserved, field) => {
    const body = { steps: [call('ok', 'k', 'x'), reserved] } as WorkflowBody;
    expect(shapeIssues('workflow', body)).toEqual([
      {
        path: `/steps/1/${field}`,
        message: `${key} is reserved: the run context cannot hold it (__proto__, constructor, prototype are refused)`,
      },
    ]);
  });

  it('takes other keys, whatever their case or prefix, and reserves nothing in rule sets', () => {
    const body: WorkflowBody = {
      steps: ['Constructor', 'proto', '__proto', 'prototypes'].map((key, i) =>
        call(`s${i}`, 'k', 'x', { outputKey: key }),
      ),
    };
    expect(shapeIssues('workflow', body)).toEqual([]);
    const rule = { key: 'constructor', type: 'condition' as const, when: { path: 'a', gt: 1 } };
    expect(shapeIssues('rule_set', { rules: [rule] })).toEqual([]);
  });
});

describe('unmappableKeys (stand-in)', () => {
  it('takes any key without mappable; else keys at or under a declared pointer', () => {
    expect(unmappableKeys(undefined, { a: 'x' })).toEqual([]);
    expect(unmappableKeys(['/a'], undefined)).toEqual([]);
    expect(
      unmappableKeys(['/person/name', '/x~1y'], {
        'person.name': '',
        'person.name.first': '',
        person: '',
        'x/y': '',
        x: '',
      }),
    ).toEqual(['person', 'x']);
  });
});

describe('request issues', () => {
  it('names the tag of a discriminated union and the member whose name is refused', () => {
    expect(
      issuesFromAjv(
        [
          {
            instancePath: '/steps/0',
            keyword: 'discriminator',
            params: { error: 'mapping', tag: 'type', tagValue: 'x' },
          },
          { instancePath: '/steps/1', keyword: 'discriminator', params: { error: 'tag', tag: 'type' } },
          {
            instancePath: '/m',
            keyword: 'pattern',
            message: 'must match pattern "^a$"',
            propertyName: 'b/c',
          },
          {
            instancePath: '/m',
            keyword: 'propertyNames',
            message: 'property name must be valid',
            params: { propertyName: 'b/c' },
          },
        ],
        'body',
      ),
    ).toEqual([
      { path: '/steps/0/type', message: 'is not a type this place takes' },
      { path: '/steps/1/type', message: 'is required' },
      { path: '/m/b~1c', message: 'name must match pattern "^a$"' },
    ]);
  });
});
