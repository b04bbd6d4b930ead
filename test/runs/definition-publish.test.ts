// Definitions through the real api, beside definitions.test.ts: what a publish refuses for the steps'
// context keys (duplicate_output_key; reserved keys are refused on save there) and what a publish answers
// a caller who may publish but not read definitions (docs/runs.md "Definitions").
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
  platform = await startCataloguePlatform();
  versions = await releaseApps(platform);
}, 120_000);
afterAll(async () => platform?.close());

const api = definitionCalls(
  () => platform,
  () => versions,
);

describe('publishing', () => {
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
});
