// Approvals of definitions through the real api, beside approvals.test.ts (docs/runs.md "Approvals of
// definitions"): the list's filters and order, permissions, another tenant's id, refusals of queries and
// bodies, and a rename's rewrite publish opening requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { type Approval, adultRule, approvalCalls, decideOnly } from './approvals-support.ts';
import {
  type Definition,
  definitionCalls,
  errorOf,
  type Issue,
  ok,
  releaseApps,
  ruleSetCalling,
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
const approvals = approvalCalls(api);
const paths = (issues: unknown) => (issues as Issue[]).map((i) => [i.path, i.message]);

/** A tenant requiring approvals, with open requests of a workflow `flow` and a rule set `flow`. */
async function withRequests(tenant: string) {
  const ada = await api.admin(tenant);
  const grace = await api.admin(tenant, 'grace');
  await approvals.requireApprovals(ada);
  await api.create(ada, 'workflow', 'flow', decideOnly());
  await api.create(ada, 'rule_set', 'flow', adultRule());
  await api.create(ada, 'rule_set', 'other', adultRule());
  const workflow = (await approvals.held(await api.publish(ada, 'workflow', 'flow'))).approval;
  const rules = (await approvals.held(await api.publish(ada, 'rule_set', 'flow'))).approval;
  const other = (await approvals.held(await api.publish(ada, 'rule_set', 'other'))).approval;
  return { ada, grace, workflow, rules, other };
}

describe('the list', () => {
  it('lists open requests oldest first, filters by kind and key, pages; decided ones newest decided first', async () => {
    const { ada, grace, workflow, rules, other } = await withRequests('appr-list');
    const ids = (page: { items: Approval[] }) => page.items.map((a) => a.id);
    expect(ids(await approvals.list(ada))).toEqual([workflow.id, rules.id, other.id]);
    expect(ids(await approvals.list(ada, '?status=open&kind=rule_set'))).toEqual([rules.id, other.id]);
    expect(ids(await approvals.list(ada, '?key=flow'))).toEqual([workflow.id, rules.id]);
    expect(ids(await approvals.list(ada, '?kind=workflow&key=other'))).toEqual([]);
    const page = await approvals.list(ada, '?limit=1&offset=1');
    expect(page).toEqual({ items: [rules], total: 3, totalIsEstimate: false });

    await ok(await approvals.approve(grace, other.id));
    await ok(await approvals.approve(grace, workflow.id));
    expect(ids(await approvals.list(ada, '?status=approved'))).toEqual([workflow.id, other.id]);
    expect(ids(await approvals.list(ada, '?status=approved&kind=rule_set'))).toEqual([other.id]);
    expect(ids(await approvals.list(ada))).toEqual([rules.id]);
  });

  it('refuses what the query and the bodies may not hold', async () => {
    const { ada, grace, rules } = await withRequests('appr-refusals');
    for (const [query, path] of [
      ['?status=decided', 'query.status'],
      ['?kind=rule', 'query.kind'],
      ['?key=Not%20A%20Key', 'query.key'],
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?offset=-1', 'query.offset'],
      ['?install=kyc', 'query.install'],
    ]) {
      const refused = await errorOf(await api.call(`/definition-approvals${query}`, ada), 400);
      expect(refused.code, query).toBe('validation_error');
      expect(paths(refused.details?.issues).map(([p]) => p)).toEqual([path]);
    }
    const badId = await errorOf(await approvals.get(ada, 'not-a-uuid'), 400);
    expect(paths(badId.details?.issues).map(([p]) => p)).toEqual(['params.id']);
    for (const [json, expected] of [
      [{ comment: 5 }, [['/comment', 'must be string']]],
      [{ comment: null }, [['/comment', 'must be string']]],
      [{ comment: 'x'.repeat(2001) }, [['/comment', 'must NOT have more than 2000 characters']]],
      [{ note: 'hi' }, [['/note', 'unknown field']]],
      [[], [['/', 'must be object']]],
    ] as const) {
      const refused = await errorOf(await approvals.approve(grace, rules.id, json), 400);
      expect(paths(refused.details?.issues), JSON.stringify(json)).toEqual(expected);
    }
    // Nothing was decided; no body at all is fine.
    expect(await ok<Approval>(await approvals.reject(grace, rules.id))).toMatchObject({
      status: 'rejected',
      comment: null,
    });
  });
});

describe('access', () => {
  it('needs definitions:read to read and definitions:publish to decide', async () => {
    const { ada, rules } = await withRequests('appr-perms');
    const analyst = await platform.token({ tenant: 'appr-perms', user: 'rita', roles: ['analyst'] });
    for (const refused of [
      await api.call('/definition-approvals', analyst),
      await approvals.get(analyst, rules.id),
    ]) {
      expect(await errorOf(refused, 403)).toMatchObject({
        code: 'forbidden',
        details: { permission: 'definitions:read' },
      });
    }
    const reader = await api.holder('appr-perms', ['definitions:read', 'definitions:write']);
    for (const refused of [
      await approvals.approve(reader, rules.id),
      await approvals.reject(reader, rules.id),
      await approvals.withdraw(reader, rules.id),
    ]) {
      expect(await errorOf(refused, 403)).toMatchObject({
        code: 'forbidden',
        details: { permission: 'definitions:publish' },
      });
    }
    expect(await ok<Approval>(await approvals.get(ada, rules.id))).toMatchObject({ status: 'open' });
  });

  it('answers 404 for another tenant’s request and for an id nobody has', async () => {
    const { rules } = await withRequests('appr-mine');
    const stranger = await api.admin('appr-theirs');
    const nobody = '00000000-0000-4000-8000-000000000000';
    for (const id of [rules.id, nobody]) {
      for (const refused of [
        await approvals.get(stranger, id),
        await approvals.approve(stranger, id),
        await approvals.reject(stranger, id),
        await approvals.withdraw(stranger, id),
      ]) {
        expect(await errorOf(refused, 404)).toMatchObject({ code: 'not_found' });
      }
    }
    expect((await approvals.list(stranger)).items).toEqual([]);
  });
});

describe('a rename’s rewrite publish', () => {
  it('opens a request for each definition it would publish, requested by the renamer', async () => {
    const tenant = 'appr-rename';
    const ada = await api.admin(tenant);
    const grace = await api.admin(tenant, 'grace');
    await api.install(ada, 'kyc');
    await api.published(ada, 'workflow', 'flow', workflowCalling('kyc'));
    await api.published(ada, 'rule_set', 'rules', ruleSetCalling('kyc'));
    await approvals.requireApprovals(ada);

    const renamed = await ok<{ definitions: Record<string, unknown>[]; skipped: unknown[] }>(
      await api.call('/app-installs/kyc/rename', grace, 'POST', { name: 'screening', rewrite: 'publish' }),
    );
    const open = (await approvals.list(ada)).items;
    expect(open.map((a) => [a.kind, a.key, a.version, a.origin, a.requestedBy])).toEqual([
      ['rule_set', 'rules', 2, 'rename', 'user:grace'],
      ['workflow', 'flow', 2, 'rename', 'user:grace'],
    ]);
    expect(renamed).toMatchObject({
      definitions: [
        { kind: 'rule_set', key: 'rules', version: 2, status: 'approval_requested', approvalId: open[0]?.id },
        { kind: 'workflow', key: 'flow', version: 2, status: 'approval_requested', approvalId: open[1]?.id },
      ],
      skipped: [],
    });
    // Version 1 stays the published one until the request is approved, by someone other than the renamer.
    expect(await ok<Definition>(await api.get(ada, 'workflow', 'flow'))).toMatchObject({
      published: { version: 1 },
      draft: { version: 2, installNames: ['screening'] },
    });
    const requested = await approvals.trail(ada, ['definition.approval.requested']);
    expect(requested.map((a) => [a.actor.id, a.data.key])).toEqual([
      ['user:grace', 'rules'],
      ['user:grace', 'flow'],
    ]);
    expect(await errorOf(await approvals.approve(grace, open[1]?.id as string), 403)).toMatchObject({
      code: 'four_eyes',
    });
    await ok(await approvals.approve(ada, open[1]?.id as string));
    expect(await ok<Definition>(await api.get(ada, 'workflow', 'flow'))).toMatchObject({
      published: { version: 2, installNames: ['screening'] },
      draft: null,
    });

    // Renamed again while the rule set's request is open: its pinned draft is left alone.
    const again = await ok<{ definitions: unknown[]; skipped: unknown[] }>(
      await api.call('/app-installs/screening/rename', grace, 'POST', { name: 'aml', rewrite: 'publish' }),
    );
    expect(again.skipped).toEqual([{ kind: 'rule_set', key: 'rules', reason: 'draft_pending' }]);
  });
});
