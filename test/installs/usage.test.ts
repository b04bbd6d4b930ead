// Who calls an install (docs/runs.md "Who calls an install") through the real api: GET …/usage,
// renames with rewrite drafts or publish, a rename without an alias and alias removal while published
// definitions call the name, and removal of the install.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, definitionVersions, workflowRuns } from '../../src/runs/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import {
  callStep,
  type Definition,
  definitionCalls,
  errorOf,
  ok,
  releaseApps,
  ruleSetCalling,
  workflowCalling,
} from '../runs/support.ts';

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
const usageOf = async (token: string, install: string) =>
  (await ok<{ items: unknown[] }>(await api.call(`/app-installs/${install}/usage`, token))).items;
const rename = (token: string, name: string, body: Record<string, unknown>) =>
  api.call(`/app-installs/${name}/rename`, token, 'POST', body);

describe('usage', () => {
  it('lists the current published definitions naming the install, by each name they use, with the actions', async () => {
    const token = await api.admin('use-list');
    await api.install(token, 'kyc');
    await api.install(token, 'other');
    const flow = {
      steps: [
        callStep('kyc', 'screen', { fallback: { install: 'other', action: 'lookup' } }),
        { ...callStep('kyc', 'verify'), id: 'two', outputKey: 'two' },
      ],
    };
    await api.published(token, 'workflow', 'flow', flow);
    expect(await usageOf(token, 'kyc')).toEqual([
      { kind: 'workflow', key: 'flow', version: 1, calledAs: 'kyc', actions: ['screen', 'verify'] },
    ]);
    expect(await usageOf(token, 'other')).toEqual([
      { kind: 'workflow', key: 'flow', version: 1, calledAs: 'other', actions: ['lookup'] },
    ]);
    // Renamed, keeping kyc: the workflow still calls it as kyc; a rule set calling the new name adds a row.
    await ok(await rename(token, 'kyc', { name: 'screening' }));
    await api.published(token, 'rule_set', 'rules', ruleSetCalling('screening', 'lookup'));
    // Drafts are no callers; only the current published version counts.
    await ok(await api.create(token, 'workflow', 'draft-only', workflowCalling('screening')), 201);
    await ok(await api.save(token, 'workflow', 'flow', workflowCalling('other')));
    await ok(await api.publish(token, 'workflow', 'flow'));
    await api.published(token, 'workflow', 'mixed', {
      steps: [callStep('kyc'), { ...callStep('screening', 'lookup'), id: 'two', outputKey: 'two' }],
    });
    expect(await usageOf(token, 'screening')).toEqual([
      { kind: 'rule_set', key: 'rules', version: 1, calledAs: 'screening', actions: ['lookup'] },
      { kind: 'workflow', key: 'mixed', version: 1, calledAs: 'screening', actions: ['lookup'] },
      { kind: 'workflow', key: 'mixed', version: 1, calledAs: 'kyc', actions: ['screen'] },
    ]);
    expect(await usageOf(token, 'other')).toEqual([
      { kind: 'workflow', key: 'flow', version: 2, calledAs: 'other', actions: ['screen'] },
    ]);
  });

  it('needs apps:read, takes the current name only, and answers 404 for another tenant’s install', async () => {
    const token = await api.admin('use-refuse');
    await api.install(token, 'kyc');
    await ok(await rename(token, 'kyc', { name: 'screening' }));
    const definitionsOnly = await api.holder('use-refuse', ['definitions:read']);
    const denied = await errorOf(await api.call('/app-installs/screening/usage', definitionsOnly), 403);
    expect(denied).toMatchObject({ code: 'forbidden', details: { permission: 'apps:read' } });
    const analyst = await platform.token({ tenant: 'use-refuse', roles: ['analyst'] });
    expect(await usageOf(analyst, 'screening')).toEqual([]);
    const former = await errorOf(await api.call('/app-installs/kyc/usage', token), 404);
    expect(former).toMatchObject({ code: 'unknown_install', details: { renamedTo: 'screening' } });
    const stranger = await api.admin('use-stranger');
    expect((await errorOf(await api.call('/app-installs/screening/usage', stranger), 404)).code).toBe(
      'unknown_install',
    );
    expect((await errorOf(await api.call('/app-installs/Bad/usage', token), 400)).code).toBe(
      'validation_error',
    );
  });
});

const tenantIdOf = async (token: string) =>
  (await ok<{ id: string }>(await api.call('/tenants/me', token))).id;

describe('renames with callers', () => {
  it('refuses a rename without an alias while published definitions call the name (install_in_use)', async () => {
    const token = await api.admin('use-in-use');
    await api.install(token, 'kyc');
    await ok(await api.create(token, 'workflow', 'draft-only', workflowCalling('kyc')), 201);
    await api.published(token, 'rule_set', 'rules', ruleSetCalling('kyc'));
    const refused = await errorOf(await rename(token, 'kyc', { name: 'aml', keepAlias: false }), 409);
    expect(refused).toMatchObject({
      code: 'install_in_use',
      details: { definitions: [{ kind: 'rule_set', key: 'rules', version: 1 }], runs: [] },
    });
    expect((await ok<{ name: string }>(await api.call('/app-installs/kyc', token))).name).toBe('kyc');
    // With the alias kept it renames, and nothing is rewritten unless asked.
    const renamed = await ok<{ definitions: unknown[]; skipped: unknown[] }>(
      await rename(token, 'kyc', { name: 'aml' }),
    );
    expect(renamed).toMatchObject({ alias: 'kyc', definitions: [], skipped: [] });
  });

  it('refuses a rename without an alias while runs in flight call the name, and lets it by once they end', async () => {
    const token = await api.admin('use-runs');
    await api.install(token, 'kyc');
    await api.published(token, 'workflow', 'flow', workflowCalling('kyc'));
    const [version] = await platform.database.db
      .select()
      .from(definitionVersions)
      .innerJoin(definitions, eq(definitions.id, definitionVersions.definitionId))
      .where(and(eq(definitions.key, 'flow'), eq(definitions.tenantId, await tenantIdOf(token))));
    if (!version) throw new Error('no version');
    const [run] = await platform.database.db
      .insert(workflowRuns)
      .values({
        tenantId: version.definitions.tenantId,
        definitionId: version.definitions.id,
        definitionVersionId: version.definition_versions.id,
        workflowKey: 'flow',
        version: 1,
        subjectId: 'subject-1',
        context: {},
        createdBy: 'test',
      })
      .returning();
    if (!run) throw new Error('no run');
    const refused = await errorOf(await rename(token, 'kyc', { name: 'aml', keepAlias: false }), 409);
    expect(refused).toMatchObject({ code: 'install_in_use', details: { runs: [{ id: run.id }] } });
    await platform.database.db
      .update(workflowRuns)
      .set({ status: 'completed' })
      .where(eq(workflowRuns.id, run.id));
    const stillCalled = await errorOf(await rename(token, 'kyc', { name: 'aml', keepAlias: false }), 409);
    expect(stillCalled.details).toMatchObject({ runs: [], definitions: [{ kind: 'workflow', key: 'flow' }] });
  });

  it('rewrite drafts: a new draft naming the new name for each caller, skipping those with a draft (draft_pending)', async () => {
    const token = await api.admin('use-drafts');
    await api.install(token, 'kyc');
    await api.published(token, 'workflow', 'flow', {
      steps: [callStep('kyc', 'screen', { fallback: { install: 'kyc', action: 'lookup' } })],
    });
    await api.published(token, 'rule_set', 'rules', ruleSetCalling('kyc'));
    await api.published(token, 'workflow', 'busy', workflowCalling('kyc'));
    await ok(await api.save(token, 'workflow', 'busy', workflowCalling('kyc', 'lookup')));

    const renamed = await ok<Record<string, unknown>>(
      await rename(token, 'kyc', { name: 'screening', rewrite: 'drafts' }),
    );
    expect(renamed).toMatchObject({
      alias: 'kyc',
      definitions: [
        { kind: 'rule_set', key: 'rules', version: 2, status: 'draft' },
        { kind: 'workflow', key: 'flow', version: 2, status: 'draft' },
      ],
      skipped: [{ kind: 'workflow', key: 'busy', reason: 'draft_pending' }],
    });
    const flow = await ok<Definition>(await api.get(token, 'workflow', 'flow'));
    expect(flow.published?.body).toEqual({
      steps: [callStep('kyc', 'screen', { fallback: { install: 'kyc', action: 'lookup' } })],
    });
    expect(flow.published?.validation.warnings.map((w) => [w.code, w.path])).toEqual([
      ['install_renamed', '/steps/0/install'],
      ['install_renamed', '/steps/0/fallback/install'],
    ]);
    expect(flow.draft).toMatchObject({
      version: 2,
      body: {
        steps: [callStep('screening', 'screen', { fallback: { install: 'screening', action: 'lookup' } })],
      },
      installNames: ['screening'],
      validation: { errors: [], warnings: [] },
    });
    const busy = await ok<Definition>(await api.get(token, 'workflow', 'busy'));
    expect(busy.draft?.body).toEqual(workflowCalling('kyc', 'lookup'));
    const saved = await api.auditOf(token, 'definition.draft.saved');
    expect(saved[0]?.data).toMatchObject({ version: 2, rename: { from: ['kyc'], to: 'screening' } });
  });

  it('rewrite publish: publishes the new drafts, following the install’s older names too', async () => {
    const token = await api.admin('use-publish');
    await api.install(token, 'a');
    await api.published(token, 'workflow', 'old', workflowCalling('a'));
    await ok(await rename(token, 'a', { name: 'b' }));
    await api.published(token, 'workflow', 'new', workflowCalling('b', 'lookup'));
    const renamed = await ok<Record<string, unknown>>(
      await rename(token, 'b', { name: 'c', rewrite: 'publish' }),
    );
    expect(renamed).toMatchObject({
      alias: 'b',
      definitions: [
        { kind: 'workflow', key: 'new', version: 2, status: 'published' },
        { kind: 'workflow', key: 'old', version: 2, status: 'published' },
      ],
      skipped: [],
    });
    expect(await usageOf(token, 'c')).toEqual([
      { kind: 'workflow', key: 'new', version: 2, calledAs: 'c', actions: ['lookup'] },
      { kind: 'workflow', key: 'old', version: 2, calledAs: 'c', actions: ['screen'] },
    ]);
    expect((await api.auditOf(token, 'workflow.published')).map((a) => [a.data.key, a.data.version])).toEqual(
      [
        ['old', 2],
        ['new', 2],
        ['new', 1],
        ['old', 1],
      ],
    );
    // The aliases are no longer called: removing them needs no force.
    await ok(await api.call('/app-installs/c/aliases/a', token, 'DELETE'));
    await ok(await api.call('/app-installs/c/aliases/b', token, 'DELETE'));
  });

  it('rewrite publish leaves a draft with errors a draft', async () => {
    const token = await api.admin('use-publish-errors');
    await api.install(token, 'kyc');
    await api.install(token, 'gone');
    await api.published(token, 'workflow', 'flow', {
      steps: [callStep('kyc'), { ...callStep('gone'), id: 'two', outputKey: 'two' }],
    });
    await ok(await api.call('/app-installs/gone', token, 'DELETE'), 204);
    const renamed = await ok<Record<string, unknown>>(
      await rename(token, 'kyc', { name: 'aml', rewrite: 'publish' }),
    );
    expect(renamed).toMatchObject({ definitions: [{ key: 'flow', version: 2, status: 'draft' }] });
    const flow = await ok<Definition>(await api.get(token, 'workflow', 'flow'));
    expect(flow).toMatchObject({
      published: { version: 1 },
      draft: { version: 2, installNames: ['aml', 'gone'] },
    });
    expect(flow.draft?.validation.errors.map((e) => [e.code, e.path])).toEqual([
      ['unknown_install', '/steps/1/install'],
    ]);
  });
});

describe('removing a called alias or install', () => {
  it('answers 409 alias_in_use while published definitions call the alias; force removes it and calls then fail validation', async () => {
    const token = await api.admin('use-alias');
    await api.install(token, 'kyc');
    await ok(await rename(token, 'kyc', { name: 'screening' }));
    await api.published(token, 'workflow', 'flow', workflowCalling('kyc'));
    const refused = await errorOf(
      await api.call('/app-installs/screening/aliases/kyc', token, 'DELETE'),
      409,
    );
    expect(refused).toMatchObject({
      code: 'alias_in_use',
      details: { definitions: [{ kind: 'workflow', key: 'flow', version: 1 }], runs: [] },
    });
    expect(
      (await ok<{ aliases: string[] }>(await api.call('/app-installs/screening', token))).aliases,
    ).toEqual(['kyc']);
    await ok(await api.call('/app-installs/screening/aliases/kyc?force=true', token, 'DELETE'));
    const flow = await ok<Definition>(await api.get(token, 'workflow', 'flow'));
    expect(flow.published?.validation.errors.map((e) => [e.code, e.path])).toEqual([
      ['unknown_install', '/steps/0/install'],
    ]);
  });

  it('removes an install published definitions call; validating them then gives unknown_install', async () => {
    const token = await api.admin('use-delete');
    await api.install(token, 'kyc');
    await api.published(token, 'rule_set', 'rules', ruleSetCalling('kyc'));
    await ok(await api.call('/app-installs/kyc', token, 'DELETE'), 204);
    const rules = await ok<Definition>(await api.get(token, 'rule_set', 'rules'));
    expect(rules.published?.validation.errors.map((e) => [e.code, e.path])).toEqual([
      ['unknown_install', '/rules/0/install'],
    ]);
  });
});
