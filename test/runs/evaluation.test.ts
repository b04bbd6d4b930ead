// Rule evaluation through the real api and runner: POST /rule-sets/:key/evaluate with condition rules
// and an app rule on http-connector against a vendor double (docs/runs.md "Rule evaluation").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, ok } from '../installs/support.ts';
import { installConnector, publishDefinition, type RunsStack, startRunsStack } from './stack.ts';

let stack: RunsStack;

beforeAll(async () => {
  stack = await startRunsStack([
    {
      method: 'GET',
      path: '/score/:name',
      respond: (request) => ({ json: { risk: request.params.name === 'mallory' ? 'high' : 'low' } }),
    },
  ]);
  const tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'scorer');
  await publishDefinition(stack, tenantId, 'rule_set', 'onboarding', {
    rules: [
      { key: 'adult', type: 'condition', when: { path: 'applicant.age', gte: 18 } },
      {
        key: 'vendor-risk',
        type: 'app',
        install: 'scorer',
        action: 'request',
        input: { method: 'GET' },
        inputMapping: { path: 'applicant.scorePath' },
        resultPath: 'body.risk',
        failWhen: { equals: 'high' },
      },
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

const evaluate = (body: unknown, token?: string, key = 'onboarding') =>
  stack.platform.fetch(`/rule-sets/${key}/evaluate`, {
    method: 'POST',
    json: body,
    ...(token ? { token } : {}),
  });

const applicant = (name: string, age: number) => ({ applicant: { age, scorePath: `/score/${name}` } });

describe('POST /rule-sets/:key/evaluate', () => {
  it('passes when every rule passes, with each rule’s value', async () => {
    const result = await ok(await evaluate({ data: applicant('ada', 36) }));
    expect(result).toEqual({
      ruleSet: { key: 'onboarding', version: 1 },
      passed: true,
      rules: [
        { key: 'adult', type: 'condition', status: 'passed', value: 36 },
        { key: 'vendor-risk', type: 'app', status: 'passed', value: 'low' },
      ],
    });
  });

  it('fails an app rule when failWhen matches, and a condition rule that does not hold', async () => {
    const result = await ok(await evaluate({ data: applicant('mallory', 16), subjectId: 's-1' }));
    expect(result).toMatchObject({
      passed: false,
      rules: [
        { key: 'adult', status: 'failed', value: 16 },
        { key: 'vendor-risk', status: 'failed', value: 'high' },
      ],
    });
  });

  it('skips app rules on a dry run, calling nothing; an analyst may dry-run only', async () => {
    stack.vendor.reset();
    const result = await ok(await evaluate({ data: applicant('mallory', 40), dryRun: true }));
    expect(result).toMatchObject({
      passed: true,
      rules: [
        { key: 'adult', status: 'passed' },
        { key: 'vendor-risk', status: 'skipped' },
      ],
    });
    expect(stack.vendor.requests).toHaveLength(0);
    const reader = await stack.platform.token({ roles: [], permissions: ['definitions:read'] });
    const refused = await errorOf(await evaluate({ data: applicant('ada', 40) }, reader), 403);
    expect(refused.details).toEqual({ permission: 'apps:write' });
    await ok(await evaluate({ data: applicant('ada', 40), dryRun: true }, reader));
  });

  it('an app rule on an unknown install ends in error with the spec’s code', async () => {
    await publishDefinition(stack, await stack.platform.tenantId(), 'rule_set', 'ghost', {
      rules: [
        {
          key: 'gone',
          type: 'app',
          install: 'ghost',
          action: 'request',
          resultPath: 'x',
          failWhen: { exists: true },
        },
      ],
    });
    const result = await ok(await evaluate({ data: {} }, undefined, 'ghost'));
    expect(result).toMatchObject({
      passed: false,
      rules: [{ key: 'gone', status: 'error', error: { code: 'unknown_install' } }],
    });
  });

  it('refuses bad bodies with pointers; 404 for an unknown rule set and for another tenant’s', async () => {
    const bad = await errorOf(await evaluate({ data: [], dryRun: 'yes', more: 1 }), 400);
    const paths = (bad.details?.issues as { path: string }[]).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/data', '/dryRun', '/more']));
    await errorOf(await evaluate({ data: {} }, undefined, 'missing'), 404);
    const other = await stack.platform.token({ tenant: 'other' });
    await errorOf(await evaluate({ data: {} }, other), 404);
  });
});
