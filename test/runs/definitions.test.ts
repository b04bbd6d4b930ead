// Workflow and rule set definitions through the real api (docs/runs.md "Definitions"): create, drafts,
// publish, list, show; validation against the tenant's installs, aliases, changes and rule sets; every
// refusal (400 at its pointer, 403, 404 for another tenant's key, 409). Answers are checked against
// /openapi.json by platform.fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import {
  callStep,
  type Definition,
  definitionCalls,
  errorOf,
  type Issue,
  ok,
  releaseApps,
  ruleSetCalling,
  type Version,
  workflowCalling,
} from './support.ts';

let platform: CataloguePlatform;
let versions: Record<string, string>;
beforeAll(async () => {
  platform = await startCataloguePlatform({ WEBHOOK_PUBLIC_URL: 'https://hooks.example.com' });
  versions = await releaseApps(platform);
}, 120_000);
afterAll(async () => platform?.close());

const api = definitionCalls(
  () => platform,
  () => versions,
);
const codes = (issues: { code: string; path: string }[]) => issues.map((i) => [i.code, i.path]);

describe('creating, drafting and publishing', () => {
  it('creates a workflow with its first draft, publishes it, and starts the next draft after it', async () => {
    const token = await api.admin('def-flow');
    await api.install(token, 'kyc');
    await api.published(token, 'rule_set', 'onboarding', ruleSetCalling('kyc'));
    const body = {
      steps: [
        callStep('kyc', 'screen', {
          input: { threshold: 80, person: { country: 'NL' } },
          inputMapping: { 'person.name': 'subject.name', threshold: 'limits.screening' },
          retry: { maxAttempts: 3, backoffMs: 500 },
          fallback: { install: 'kyc', action: 'lookup', inputMapping: { anything: 'subject.id' } },
        }),
        { id: 'rules', type: 'rule_set', ruleSet: 'onboarding', outputKey: 'rules' },
        {
          id: 'decide',
          type: 'decide',
          branches: [
            { when: { path: 'out.hits', gt: 0 }, outcome: 'review', riskScore: 70 },
            { when: { path: 'rules.failed', in: ['sanctions'] }, outcome: 'decline' },
          ],
          otherwise: 'approve',
          riskScorePath: 'out.score',
        },
      ],
    };
    const created = await ok<Version>(await api.create(token, 'workflow', 'onboarding', body), 201);
    expect(created).toMatchObject({
      kind: 'workflow',
      key: 'onboarding',
      version: 1,
      status: 'draft',
      body,
      installNames: ['kyc'],
      createdBy: 'user:ada',
      publishedAt: null,
      publishedBy: null,
      validation: { errors: [], warnings: [] },
    });

    const published = await ok<Version>(await api.publish(token, 'workflow', 'onboarding'));
    expect(published).toMatchObject({ version: 1, status: 'published', publishedBy: 'user:ada', body });
    expect(published.publishedAt).toEqual(expect.any(String));

    // Nothing to publish now: 409 conflict.
    const none = await errorOf(await api.publish(token, 'workflow', 'onboarding'), 409);
    expect(none).toMatchObject({ code: 'conflict', details: { key: 'onboarding', publishedVersion: 1 } });

    // The next draft is version 2; saving it again replaces it; the published version stays as it was.
    const next = { steps: [callStep('kyc', 'lookup')] };
    expect(await ok<Version>(await api.save(token, 'workflow', 'onboarding', body))).toMatchObject({
      version: 2,
      status: 'draft',
    });
    expect(await ok<Version>(await api.save(token, 'workflow', 'onboarding', next))).toMatchObject({
      version: 2,
      status: 'draft',
      body: next,
    });
    const shown = await ok<Definition>(await api.get(token, 'workflow', 'onboarding'));
    expect(shown).toMatchObject({
      kind: 'workflow',
      key: 'onboarding',
      published: { version: 1, status: 'published', body },
      draft: { version: 2, status: 'draft', body: next },
    });
    expect(shown.versions.map((v) => [v.version, v.status])).toEqual([
      [2, 'draft'],
      [1, 'published'],
    ]);
    await ok(await api.publish(token, 'workflow', 'onboarding'));
    const after = await ok<Definition>(await api.get(token, 'workflow', 'onboarding'));
    expect(after).toMatchObject({ published: { version: 2, body: next }, draft: null });
    expect(after.versions.map((v) => [v.version, v.status])).toEqual([
      [2, 'published'],
      [1, 'published'],
    ]);

    const audit = await api.auditOf(token, 'definition.');
    expect(audit.map((a) => [a.action, a.data.kind, a.data.key, a.data.version])).toEqual([
      ['definition.draft.saved', 'workflow', 'onboarding', 2],
      ['definition.draft.saved', 'workflow', 'onboarding', 2],
      ['definition.created', 'workflow', 'onboarding', 1],
      ['definition.created', 'rule_set', 'onboarding', 1],
    ]);
    expect(audit[0]?.resource.type).toBe('definition');
    expect((await api.auditOf(token, 'workflow.published')).map((a) => a.data.version)).toEqual([2, 1]);
    expect((await api.auditOf(token, 'rule_set.published')).map((a) => a.data.key)).toEqual(['onboarding']);
  });

  it('saves a draft with errors, refuses to publish it (400 with each issue’s pointer and code), publishes once fixed', async () => {
    const token = await api.admin('def-errors');
    await api.install(token, 'kyc');
    const body = {
      steps: [
        callStep('nobody'),
        { ...callStep('kyc', 'missing'), id: 'second', outputKey: 'second' },
        {
          ...callStep('kyc', 'screen', { inputMapping: { 'person.name': 'a', address: 'b', 'a/b': 'c' } }),
          id: 'third',
          outputKey: 'third',
        },
        { id: 'rules', type: 'rule_set', ruleSet: 'absent', outputKey: 'rules' },
      ],
    };
    const saved = await ok<Version>(await api.create(token, 'workflow', 'broken', body), 201);
    expect(codes(saved.validation.errors)).toEqual([
      ['unknown_install', '/steps/0/install'],
      ['unknown_action', '/steps/1/action'],
      ['unmappable_input', '/steps/2/inputMapping/a~1b'],
      ['unmappable_input', '/steps/2/inputMapping/address'],
      ['unknown_rule_set', '/steps/3/ruleSet'],
    ]);
    expect(saved.validation.errors[1]?.message).toContain('kit 1.0.0');
    const refused = await errorOf(await api.publish(token, 'workflow', 'broken'), 400);
    expect(refused.code).toBe('validation_error');
    expect(refused.details?.issues).toEqual(
      saved.validation.errors.map(({ path, message, code }) => ({ path, message, code })),
    );
    expect((await ok<Definition>(await api.get(token, 'workflow', 'broken'))).published).toBeNull();

    const fixed = await ok<Version>(await api.save(token, 'workflow', 'broken', workflowCalling('kyc')));
    expect(fixed).toMatchObject({ version: 1, validation: { errors: [], warnings: [] } });
    expect(await ok<Version>(await api.publish(token, 'workflow', 'broken'))).toMatchObject({
      version: 1,
      status: 'published',
    });
  });

  it('saves a draft whose steps write one context key twice, refuses to publish it (duplicate_output_key)', async () => {
    const token = await api.admin('def-twice');
    await api.install(token, 'kyc');
    const body = {
      steps: [
        callStep('kyc', 'lookup', { outputKey: 'screening' }),
        { ...callStep('kyc', 'lookup'), id: 'again', outputKey: 'screening' },
        {
          id: 'out',
          type: 'decide',
          branches: [{ when: { path: 'screening.hits', gt: 0 }, outcome: 'review' }],
          otherwise: 'approve',
        },
        { ...callStep('kyc', 'lookup'), id: 'late', outputKey: 'out' },
      ],
    };
    const saved = await ok<Version>(await api.create(token, 'workflow', 'twice', body), 201);
    expect(saved.validation.errors).toEqual([
      {
        code: 'duplicate_output_key',
        path: '/steps/1/outputKey',
        message:
          'step again writes the context key screening, which step call (/steps/0/outputKey) writes too',
      },
      {
        code: 'duplicate_output_key',
        path: '/steps/3/outputKey',
        message: 'step late writes the context key out, which step out (/steps/2/id) writes too',
      },
    ]);
    const refused = await errorOf(await api.publish(token, 'workflow', 'twice'), 400);
    expect(refused).toMatchObject({ code: 'validation_error' });
    expect((refused.details?.issues as Issue[]).map((i) => [i.code, i.path])).toEqual([
      ['duplicate_output_key', '/steps/1/outputKey'],
      ['duplicate_output_key', '/steps/3/outputKey'],
    ]);
    expect((await ok<Definition>(await api.get(token, 'workflow', 'twice'))).published).toBeNull();
  });

  it('warns of disabled, pending, renamed and webhook-less installs and of unpublished rule sets, and publishes anyway', async () => {
    const token = await api.admin('def-warn');
    await api.install(token, 'kyc');
    await api.install(token, 'quiet', 'quiet');
    await ok(
      await api.call('/app-installs/kyc', token, 'PUT', {
        versionId: versions.kit,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
    );
    await ok(await api.call('/app-installs/kyc/rename', token, 'POST', { name: 'screening' }));
    // Under approvals, a new install waits (stored disabled) with its change open.
    await ok(
      await api.call('/tenants/me/settings', token, 'PUT', {
        approvals: { required: true, requiredFor: ['app'], fourEyes: false },
        collection: { flowUrl: null },
      }),
    );
    await ok(
      await api.call('/app-installs', token, 'POST', {
        name: 'held',
        versionId: versions.kit,
        approveHosts: ['api.vendor.test'],
      }),
      202,
    );
    await ok(await api.create(token, 'rule_set', 'later', ruleSetCalling('screening')), 201);
    const body = {
      steps: [
        callStep('kyc'),
        { ...callStep('held', 'lookup'), id: 'two', outputKey: 'two' },
        { ...callStep('quiet', 'verify'), id: 'three', outputKey: 'three' },
        { ...callStep('screening', 'verify'), id: 'four', outputKey: 'four' },
        { id: 'rules', type: 'rule_set', ruleSet: 'later', outputKey: 'rules' },
      ],
    };
    const saved = await ok<Version>(await api.create(token, 'workflow', 'warned', body), 201);
    expect(saved.validation.errors).toEqual([]);
    expect(codes(saved.validation.warnings)).toEqual([
      ['install_renamed', '/steps/0/install'],
      ['install_disabled', '/steps/0/install'],
      ['install_disabled', '/steps/1/install'],
      ['install_pending', '/steps/1/install'],
      ['install_no_webhook', '/steps/2/action'],
      ['install_disabled', '/steps/3/install'],
      ['rule_set_unpublished', '/steps/4/ruleSet'],
    ]);
    expect(saved.validation.warnings[0]?.message).toContain('screening');
    expect(saved.installNames).toEqual(['held', 'kyc', 'quiet', 'screening']);
    expect((await ok<Version>(await api.publish(token, 'workflow', 'warned'))).status).toBe('published');
  });

  it('refuses an app rule on an asynchronous action (async_rule), its fallback’s too; condition rules need no install', async () => {
    const token = await api.admin('def-rules');
    await api.install(token, 'kyc');
    const body = {
      rules: [
        { key: 'adult', type: 'condition', when: { path: 'age', gte: 18 } },
        ruleSetCalling('kyc', 'verify').rules[0],
        {
          ...ruleSetCalling('kyc', 'screen', { fallback: { install: 'kyc', action: 'verify' } }).rules[0],
          key: 'fb',
        },
      ],
    };
    const saved = await ok<Version>(await api.create(token, 'rule_set', 'checks', body), 201);
    expect(codes(saved.validation.errors)).toEqual([
      ['async_rule', '/rules/1/action'],
      ['async_rule', '/rules/2/fallback/action'],
    ]);
    expect(saved.validation.warnings).toEqual([]);
    expect((await errorOf(await api.publish(token, 'rule_set', 'checks'), 400)).details?.issues).toHaveLength(
      2,
    );
  });

  it('shows unknown_install once the install is removed, on the published version and on a new draft', async () => {
    const token = await api.admin('def-removed');
    await api.install(token, 'kyc');
    await api.published(token, 'workflow', 'flow', workflowCalling('kyc'));
    await ok(await api.call('/app-installs/kyc', token, 'DELETE'), 204);
    const shown = await ok<Definition>(await api.get(token, 'workflow', 'flow'));
    expect(codes(shown.published?.validation.errors ?? [])).toEqual([
      ['unknown_install', '/steps/0/install'],
    ]);
    const saved = await ok<Version>(await api.save(token, 'workflow', 'flow', workflowCalling('kyc')));
    expect(codes(saved.validation.errors)).toEqual([['unknown_install', '/steps/0/install']]);
    expect((await errorOf(await api.publish(token, 'workflow', 'flow'), 400)).code).toBe('validation_error');
  });
});

describe('lists', () => {
  it('pages the tenant’s definitions of one kind by key, with their published and draft numbers', async () => {
    const token = await api.admin('def-list');
    for (const key of ['c-flow', 'a-flow', 'b-flow']) {
      await ok(await api.create(token, 'workflow', key, workflowCalling('kyc')), 201);
    }
    await ok(await api.create(token, 'rule_set', 'a-flow', ruleSetCalling('kyc')), 201);
    await ok(
      await api.create(await api.admin('def-list-other'), 'workflow', 'a-flow', workflowCalling('x')),
      201,
    );
    const page = await ok<{ items: Record<string, unknown>[]; total: number; totalIsEstimate: boolean }>(
      await api.call('/workflow-definitions?limit=2', token),
    );
    expect(page).toMatchObject({ total: 3, totalIsEstimate: false });
    expect(page.items).toEqual([
      expect.objectContaining({
        kind: 'workflow',
        key: 'a-flow',
        publishedVersion: null,
        draftVersion: 1,
        publishedAt: null,
      }),
      expect.objectContaining({ key: 'b-flow' }),
    ]);
    const rest = await ok<{ items: { key: string }[] }>(
      await api.call('/workflow-definitions?limit=2&offset=2', token),
    );
    expect(rest.items.map((i) => i.key)).toEqual(['c-flow']);
    const ruleSets = await ok<{ items: { kind: string; key: string }[]; total: number }>(
      await api.call('/rule-sets', token),
    );
    expect(ruleSets).toMatchObject({ total: 1, items: [{ kind: 'rule_set', key: 'a-flow' }] });
    // Not valid here: a zero limit, an unknown parameter.
    const bad = await errorOf(await api.call('/rule-sets?limit=0&kind=x', token), 400);
    expect((bad.details?.issues as { path: string }[]).map((i) => i.path).sort()).toEqual([
      'query.kind',
      'query.limit',
    ]);
  });
});

describe('refusals', () => {
  it('refuses bodies that break the schema, at their pointers, and writes nothing', async () => {
    const token = await api.admin('def-bad');
    const step = callStep('kyc');
    const cases: [unknown, string][] = [
      [{ key: 'Bad Key', body: workflowCalling('kyc') }, '/key'],
      [{ key: 'k', body: workflowCalling('kyc'), extra: 1 }, '/extra'],
      [{ key: 'k', body: { steps: [] } }, '/body/steps'],
      [
        { key: 'k', body: { steps: Array.from({ length: 51 }, (_, i) => ({ ...step, id: `s${i}` })) } },
        '/body/steps',
      ],
      [{ key: 'k', body: { steps: [{ ...step, extra: true }] } }, '/body/steps/0/extra'],
      [{ key: 'k', body: { steps: [{ ...step, type: 'sleep' }] } }, '/body/steps/0/type'],
      [{ key: 'k', body: { steps: [{ id: 'x', install: 'kyc' }] } }, '/body/steps/0/type'],
      [{ key: 'k', body: { steps: [{ ...step, install: 'KYC' }] } }, '/body/steps/0/install'],
      [{ key: 'k', body: { steps: [{ ...step, outputKey: undefined }] } }, '/body/steps/0/outputKey'],
      [
        { key: 'k', body: { steps: [{ ...step, retry: { maxAttempts: 6 } }] } },
        '/body/steps/0/retry/maxAttempts',
      ],
      [
        { key: 'k', body: { steps: [{ ...step, retry: { backoffMs: 60_001 } }] } },
        '/body/steps/0/retry/backoffMs',
      ],
      [
        { key: 'k', body: { steps: [{ ...step, inputMapping: { 'a..b': 'x' } }] } },
        '/body/steps/0/inputMapping/a..b',
      ],
      [
        { key: 'k', body: { steps: [{ ...step, fallback: { install: 'kyc' } }] } },
        '/body/steps/0/fallback/action',
      ],
      [{ key: 'k', body: { steps: [step, { ...step, action: 'lookup' }] } }, '/body/steps/1/id'],
      [{ key: 'k', body: { steps: [{ ...step, outputKey: '__proto__' }] } }, '/body/steps/0/outputKey'],
      [
        {
          key: 'k',
          body: { steps: [{ id: 'r', type: 'rule_set', ruleSet: 'x', outputKey: 'constructor' }] },
        },
        '/body/steps/0/outputKey',
      ],
      [
        {
          key: 'k',
          body: {
            steps: [
              step,
              {
                id: 'prototype',
                type: 'decide',
                branches: [{ when: { path: 'a', gt: 1 }, outcome: 'approve' }],
                otherwise: 'review',
              },
            ],
          },
        },
        '/body/steps/1/id',
      ],
      [
        {
          key: 'k',
          body: {
            steps: [
              {
                id: 'd',
                type: 'decide',
                branches: [{ when: { path: 'a', gt: 1, lt: 5 }, outcome: 'approve' }],
                otherwise: 'review',
              },
            ],
          },
        },
        '/body/steps/0/branches/0/when',
      ],
      [
        {
          key: 'k',
          body: {
            steps: [
              {
                id: 'd',
                type: 'decide',
                branches: [{ when: { path: 'a', gt: 1 }, outcome: 'approve', riskScore: 101 }],
                otherwise: 'review',
              },
            ],
          },
        },
        '/body/steps/0/branches/0/riskScore',
      ],
      [
        { key: 'k', body: { steps: [{ id: 'd', type: 'decide', branches: [], otherwise: 'maybe' }] } },
        '/body/steps/0/otherwise',
      ],
    ];
    for (const [json, path] of cases) {
      const error = await errorOf(await api.call('/workflow-definitions', token, 'POST', json), 400);
      expect(error.code).toBe('validation_error');
      expect(
        (error.details?.issues as { path: string }[]).map((i) => i.path),
        JSON.stringify(json),
      ).toContain(path);
    }
    const rules: [unknown, string][] = [
      [{ rules: [{ key: 'r', type: 'condition', when: { path: 'a' } }] }, '/body/rules/0/when'],
      [{ rules: [{ ...ruleSetCalling('kyc').rules[0], failWhen: {} }] }, '/body/rules/0/failWhen'],
      [
        { rules: [{ ...ruleSetCalling('kyc').rules[0], failWhen: { equals: 1, exists: true } }] },
        '/body/rules/0/failWhen',
      ],
      [
        { rules: [{ ...ruleSetCalling('kyc').rules[0], failWhen: { matches: 'x' } }] },
        '/body/rules/0/failWhen/matches',
      ],
      [{ rules: [{ ...ruleSetCalling('kyc').rules[0], outputKey: 'x' }] }, '/body/rules/0/outputKey'],
      [{ rules: [ruleSetCalling('kyc').rules[0], ruleSetCalling('kyc').rules[0]] }, '/body/rules/1/key'],
    ];
    for (const [body, path] of rules) {
      const error = await errorOf(await api.create(token, 'rule_set', 'k', body), 400);
      expect(
        (error.details?.issues as { path: string }[]).map((i) => i.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await ok<{ total: number }>(await api.call('/workflow-definitions', token))).total).toBe(0);
    expect((await ok<{ total: number }>(await api.call('/rule-sets', token))).total).toBe(0);

    // A draft's body is the request's body: pointers start at its root.
    await ok(await api.create(token, 'workflow', 'k', workflowCalling('kyc')), 201);
    const error = await errorOf(await api.save(token, 'workflow', 'k', { steps: [{ ...step, x: 1 }] }), 400);
    expect(error.details?.issues).toEqual([{ path: '/steps/0/x', message: 'unknown field' }]);
    const twice = await errorOf(await api.save(token, 'workflow', 'k', { steps: [step, step] }), 400);
    expect(twice.details?.issues).toEqual([
      { path: '/steps/1/id', message: 'repeats the step id of /steps/0' },
    ]);
    const reserved = await errorOf(
      await api.save(token, 'workflow', 'k', { steps: [{ ...step, outputKey: 'prototype' }] }),
      400,
    );
    expect(reserved).toMatchObject({
      code: 'validation_error',
      details: {
        issues: [
          {
            path: '/steps/0/outputKey',
            message:
              'prototype is reserved: the run context cannot hold it (__proto__, constructor, prototype are refused)',
          },
        ],
      },
    });
    expect((await ok<Definition>(await api.get(token, 'workflow', 'k'))).draft?.body).toEqual(
      workflowCalling('kyc'),
    );
  });

  it('answers 409 definition_key_taken for a key the tenant has in that kind', async () => {
    const token = await api.admin('def-taken');
    await ok(await api.create(token, 'workflow', 'same', workflowCalling('kyc')), 201);
    const taken = await errorOf(await api.create(token, 'workflow', 'same', workflowCalling('other')), 409);
    expect(taken).toMatchObject({ code: 'definition_key_taken', details: { kind: 'workflow', key: 'same' } });
    // Another kind, or another tenant, may have the key.
    await ok(await api.create(token, 'rule_set', 'same', ruleSetCalling('kyc')), 201);
    await ok(
      await api.create(await api.admin('def-taken-2'), 'workflow', 'same', workflowCalling('kyc')),
      201,
    );
    expect((await ok<Definition>(await api.get(token, 'workflow', 'same'))).draft?.body).toEqual(
      workflowCalling('kyc'),
    );
  });

  it('needs definitions:read, write and publish; analysts hold none of them', async () => {
    const token = await api.admin('def-perm');
    await ok(await api.create(token, 'workflow', 'flow', workflowCalling('kyc')), 201);
    const analyst = await platform.token({ tenant: 'def-perm', roles: ['analyst'] });
    const writer = await api.holder('def-perm', ['definitions:read', 'definitions:write']);
    const reader = await api.holder('def-perm', ['definitions:read']);
    for (const [kind, path] of [
      ['workflow', '/workflow-definitions'],
      ['rule_set', '/rule-sets'],
    ] as const) {
      const body = kind === 'workflow' ? workflowCalling('kyc') : ruleSetCalling('kyc');
      for (const [response, permission] of [
        [await api.call(path, analyst), 'definitions:read'],
        [await api.call(`${path}/flow`, analyst), 'definitions:read'],
        [await api.create(reader, kind, 'x', body), 'definitions:write'],
        [await api.save(reader, kind, 'flow', body), 'definitions:write'],
        [await api.publish(writer, kind, 'flow'), 'definitions:publish'],
      ] as const) {
        expect(await errorOf(response, 403)).toMatchObject({ code: 'forbidden', details: { permission } });
      }
    }
    await ok(await api.save(writer, 'workflow', 'flow', workflowCalling('kyc')));
    await ok(await api.call('/workflow-definitions/flow', reader));
  });

  it('answers a publisher without definitions:read what was published, never the body', async () => {
    const token = await api.admin('def-blind');
    await api.install(token, 'kyc');
    const body = workflowCalling('kyc', 'screen', { input: { note: 'the-body-itself' } });
    await ok(await api.create(token, 'workflow', 'flow', body), 201);
    await ok(await api.create(token, 'rule_set', 'rules', ruleSetCalling('kyc')), 201);
    const publisher = await api.holder('def-blind', ['definitions:publish']);
    const blind = await ok<Record<string, unknown>>(await api.publish(publisher, 'workflow', 'flow'));
    expect(blind).toEqual({
      kind: 'workflow',
      key: 'flow',
      version: 1,
      status: 'published',
      createdAt: expect.any(String),
      createdBy: 'user:ada',
      publishedAt: expect.any(String),
      publishedBy: 'user:holder',
    });
    expect(JSON.stringify(blind)).not.toContain('the-body-itself');
    const rules = await ok<Record<string, unknown>>(await api.publish(publisher, 'rule_set', 'rules'));
    expect(Object.keys(rules).sort()).toEqual(
      ['createdAt', 'createdBy', 'key', 'kind', 'publishedAt', 'publishedBy', 'status', 'version'].sort(),
    );

    // With definitions:read the answer is the whole version.
    await ok(await api.save(token, 'workflow', 'flow', body));
    const reader = await api.holder('def-blind', ['definitions:publish', 'definitions:read']);
    const seen = await ok<Version>(await api.publish(reader, 'workflow', 'flow'));
    expect(seen).toMatchObject({ version: 2, body, installNames: ['kyc'], validation: { errors: [] } });
  });

  it('answers 404 for another tenant’s key, and for a key nobody has', async () => {
    const token = await api.admin('def-mine');
    await ok(await api.create(token, 'workflow', 'mine', workflowCalling('kyc')), 201);
    await ok(await api.create(token, 'rule_set', 'rules', ruleSetCalling('kyc')), 201);
    const stranger = await api.admin('def-stranger');
    for (const response of [
      await api.get(stranger, 'workflow', 'mine'),
      await api.save(stranger, 'workflow', 'mine', workflowCalling('kyc')),
      await api.publish(stranger, 'workflow', 'mine'),
      await api.get(stranger, 'rule_set', 'rules'),
      await api.save(stranger, 'rule_set', 'rules', ruleSetCalling('kyc')),
      await api.publish(stranger, 'rule_set', 'rules'),
      // The kinds do not mix: a workflow's key is no rule set's.
      await api.get(token, 'rule_set', 'mine'),
    ]) {
      expect((await errorOf(response, 404)).code).toBe('not_found');
    }
    expect((await ok<{ total: number }>(await api.call('/workflow-definitions', stranger))).total).toBe(0);
    expect((await ok<Definition>(await api.get(token, 'workflow', 'mine'))).published).toBeNull();
  });
});
