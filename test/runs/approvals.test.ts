// Approvals of definitions through the real api (docs/runs.md "Approvals of definitions"): a publish held
// for approval (202) or not (200), four-eyes, approve publishing the pinned version (audit and
// notifications), reject, withdraw, and the draft pinned while a request is open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { type Approval, adultRule, approvalCalls, decideOnly } from './approvals-support.ts';
import {
  type Definition,
  definitionCalls,
  errorOf,
  ok,
  releaseApps,
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
const approvals = approvalCalls(api);

const ACTIONS = [
  'definition.approval.requested',
  'definition.approval.approved',
  'definition.approval.rejected',
  'definition.approval.withdrawn',
  'workflow.published',
  'rule_set.published',
];

describe('publishing under approvals', () => {
  it('publishes at once (200) while the tenant requires approval for apps only', async () => {
    const ada = await api.admin('appr-apps-only');
    await approvals.requireApprovals(ada, true, ['app']);
    await ok(await api.create(ada, 'workflow', 'flow', decideOnly()), 201);
    expect(await ok<Version>(await api.publish(ada, 'workflow', 'flow'))).toMatchObject({
      version: 1,
      status: 'published',
    });
    expect((await approvals.list(ada)).items).toEqual([]);
  });

  it('holds a publish (202), notifies publishers; the requester may not approve; another approves and it publishes', async () => {
    const tenant = 'appr-flow';
    const ada = await api.admin(tenant);
    const grace = await api.admin(tenant, 'grace');
    await approvals.requireApprovals(ada);
    await ok(await api.create(ada, 'workflow', 'flow', decideOnly()), 201);

    const { version, approval } = await approvals.held(await api.publish(ada, 'workflow', 'flow'));
    expect(version).toMatchObject({ kind: 'workflow', key: 'flow', version: 1, body: decideOnly() });
    expect(approval).toEqual({
      id: expect.any(String),
      kind: 'workflow',
      key: 'flow',
      version: 1,
      status: 'open',
      origin: 'publish',
      fourEyes: true,
      requestedBy: 'user:ada',
      requestedByName: 'ada',
      requestedAt: expect.any(String),
      decidedBy: null,
      decidedAt: null,
      comment: null,
    });
    // Nothing is published yet; the request is listed and shown.
    const shown = await ok<Definition>(await api.get(ada, 'workflow', 'flow'));
    expect(shown).toMatchObject({ published: null, draft: { version: 1 } });
    expect((await approvals.list(grace)).items).toEqual([approval]);
    expect(await ok<Approval>(await approvals.get(grace, approval.id))).toEqual(approval);

    // Holders of definitions:publish hear of it; an analyst does not.
    expect(await approvals.notes(grace)).toContainEqual({
      id: expect.any(String),
      kind: 'approval_requested',
      resource: { type: 'definition_approval', id: approval.id },
      data: { kind: 'workflow', key: 'flow', version: 1, approvalId: approval.id, requestedBy: 'ada' },
      createdAt: expect.any(String),
      read: false,
    });
    const analyst = await platform.token({ tenant, user: 'rita', roles: ['analyst'] });
    expect(await approvals.notes(analyst)).toEqual([]);

    // Four-eyes: the requester may neither approve nor reject.
    for (const refused of [
      await approvals.approve(ada, approval.id),
      await approvals.reject(ada, approval.id),
    ]) {
      expect(await errorOf(refused, 403)).toMatchObject({
        code: 'four_eyes',
        details: { approvalId: approval.id },
      });
    }

    const approved = await ok<Approval>(
      await approvals.approve(grace, approval.id, { comment: 'looks right' }),
    );
    expect(approved).toMatchObject({
      status: 'approved',
      decidedBy: 'user:grace',
      decidedAt: expect.any(String),
      comment: 'looks right',
    });
    const after = await ok<Definition>(await api.get(ada, 'workflow', 'flow'));
    expect(after).toMatchObject({
      published: { version: 1, status: 'published', publishedBy: 'user:grace' },
      draft: null,
    });

    // In the trail, in order: requested, approved, published (with the approvalId); no body.
    const trail = await approvals.trail(ada, ACTIONS);
    expect(trail.map((a) => [a.action, a.actor.id, a.resource.type])).toEqual([
      ['definition.approval.requested', 'user:ada', 'definition_approval'],
      ['definition.approval.approved', 'user:grace', 'definition_approval'],
      ['workflow.published', 'user:grace', 'definition'],
    ]);
    const base = { kind: 'workflow', key: 'flow', version: 1, approvalId: approval.id };
    expect(trail[0]?.data).toEqual(base);
    expect(trail[0]?.resource.id).toBe(approval.id);
    expect(trail[1]?.data).toEqual({ ...base, comment: 'looks right' });
    expect(trail[2]?.data).toEqual(base);

    // The requester hears of the decision.
    expect(await approvals.notes(ada)).toContainEqual(
      expect.objectContaining({
        kind: 'approval_decided',
        resource: { type: 'definition_approval', id: approval.id },
        data: { ...base, decision: 'approved', comment: 'looks right', decidedBy: 'grace' },
      }),
    );
    // Decided: no second decision, and it is listed among the approved.
    for (const again of [
      await approvals.approve(grace, approval.id),
      await approvals.reject(grace, approval.id),
      await approvals.withdraw(ada, approval.id),
    ]) {
      expect(await errorOf(again, 409)).toMatchObject({
        code: 'conflict',
        details: { approvalId: approval.id, status: 'approved' },
      });
    }
    expect((await approvals.list(ada, '?status=approved')).items.map((a) => a.id)).toEqual([approval.id]);
    expect((await approvals.list(ada)).items).toEqual([]);
  });

  it('answers a publisher without definitions:read the pinned version without its body', async () => {
    const ada = await api.admin('appr-blind');
    await approvals.requireApprovals(ada);
    await ok(await api.create(ada, 'rule_set', 'rules', adultRule()), 201);
    const publisher = await api.holder('appr-blind', ['definitions:publish']);
    const body = await ok<{ version: Record<string, unknown>; approval: Approval }>(
      await api.publish(publisher, 'rule_set', 'rules'),
      202,
    );
    expect(Object.keys(body.version).sort()).toEqual(
      ['createdAt', 'createdBy', 'key', 'kind', 'publishedAt', 'publishedBy', 'status', 'version'].sort(),
    );
    expect(body.approval).toMatchObject({ kind: 'rule_set', requestedBy: 'user:holder' });
  });

  it('pins the draft: another publish and a save are 409 while open; withdraw frees it; reject leaves a draft', async () => {
    const tenant = 'appr-pinned';
    const ada = await api.admin(tenant);
    const grace = await api.admin(tenant, 'grace');
    await approvals.requireApprovals(ada);
    await api.create(ada, 'rule_set', 'rules', adultRule());
    const { approval } = await approvals.held(await api.publish(ada, 'rule_set', 'rules'));

    const again = await errorOf(await api.publish(grace, 'rule_set', 'rules'), 409);
    expect(again).toMatchObject({
      code: 'conflict',
      details: { kind: 'rule_set', key: 'rules', version: 1, approvalId: approval.id },
    });
    const saved = await errorOf(await api.save(grace, 'rule_set', 'rules', adultRule(21)), 409);
    expect(saved).toMatchObject({ code: 'conflict', details: { approvalId: approval.id } });
    expect(saved.message).toContain('withdraw');

    // Only the requester (or a holder of tenants:settings) withdraws it.
    const other = await api.holder(tenant, ['definitions:publish', 'definitions:write']);
    expect(await errorOf(await approvals.withdraw(other, approval.id), 403)).toMatchObject({
      code: 'not_requester',
      details: { approvalId: approval.id },
    });
    const withdrawn = await ok<Approval>(await approvals.withdraw(ada, approval.id));
    expect(withdrawn).toMatchObject({ status: 'withdrawn', decidedBy: 'user:ada', comment: null });
    // Withdrawn by herself: no approval_decided for the requester.
    expect((await approvals.notes(ada)).map((n) => n.kind)).not.toContain('approval_decided');

    // The draft is free again: saved, published again (a new request), rejected with a comment.
    expect(await ok<Version>(await api.save(ada, 'rule_set', 'rules', adultRule(21)))).toMatchObject({
      version: 1,
      status: 'draft',
    });
    const second = (await approvals.held(await api.publish(ada, 'rule_set', 'rules'))).approval;
    expect(second.id).not.toBe(approval.id);
    const rejected = await ok<Approval>(await approvals.reject(grace, second.id, { comment: 'not 21' }));
    expect(rejected).toMatchObject({ status: 'rejected', decidedBy: 'user:grace', comment: 'not 21' });
    expect(await ok<Definition>(await api.get(ada, 'rule_set', 'rules'))).toMatchObject({
      published: null,
      draft: { version: 1, body: adultRule(21) },
    });
    expect(await approvals.notes(ada)).toContainEqual(
      expect.objectContaining({
        kind: 'approval_decided',
        data: expect.objectContaining({ approvalId: second.id, decision: 'rejected', comment: 'not 21' }),
      }),
    );
    const trail = await approvals.trail(ada, ACTIONS);
    expect(trail.map((a) => [a.action, a.resource.id, a.data.comment])).toEqual([
      ['definition.approval.requested', approval.id, undefined],
      ['definition.approval.withdrawn', approval.id, undefined],
      ['definition.approval.requested', second.id, undefined],
      ['definition.approval.rejected', second.id, 'not 21'],
    ]);
    // Decided ones are listed newest decided first.
    expect((await approvals.list(ada, '?status=rejected')).items.map((a) => a.id)).toEqual([second.id]);
    expect((await approvals.list(ada, '?status=withdrawn')).items.map((a) => a.id)).toEqual([approval.id]);
  });

  it('lets a holder of tenants:settings withdraw another’s request, and tells the requester', async () => {
    const tenant = 'appr-admin-withdraw';
    const ada = await api.admin(tenant);
    const grace = await api.admin(tenant, 'grace');
    await approvals.requireApprovals(ada);
    await api.create(ada, 'workflow', 'flow', decideOnly());
    const { approval } = await approvals.held(await api.publish(ada, 'workflow', 'flow'));
    const withdrawn = await ok<Approval>(await approvals.withdraw(grace, approval.id, { comment: 'stale' }));
    expect(withdrawn).toMatchObject({ status: 'withdrawn', decidedBy: 'user:grace', comment: 'stale' });
    expect(await approvals.notes(ada)).toContainEqual(
      expect.objectContaining({
        kind: 'approval_decided',
        data: expect.objectContaining({ decision: 'withdrawn', decidedBy: 'grace' }),
      }),
    );
  });

  it('follows four-eyes as set when requested', async () => {
    const tenant = 'appr-eyes';
    const ada = await api.admin(tenant);
    await approvals.requireApprovals(ada, true);
    await api.create(ada, 'workflow', 'bound', decideOnly());
    const bound = (await approvals.held(await api.publish(ada, 'workflow', 'bound'))).approval;
    await approvals.requireApprovals(ada, false);
    expect(await errorOf(await approvals.approve(ada, bound.id), 403)).toMatchObject({ code: 'four_eyes' });

    // Requested without four-eyes, the requester approves their own; nobody else is told.
    await api.create(ada, 'workflow', 'free', decideOnly());
    const free = (await approvals.held(await api.publish(ada, 'workflow', 'free'))).approval;
    expect(free.fourEyes).toBe(false);
    await approvals.requireApprovals(ada, true);
    expect(await ok<Approval>(await approvals.approve(ada, free.id))).toMatchObject({ status: 'approved' });
    expect(await ok<Definition>(await api.get(ada, 'workflow', 'free'))).toMatchObject({
      published: { version: 1, publishedBy: 'user:ada' },
    });
    expect((await approvals.notes(ada)).map((n) => n.kind)).not.toContain('approval_decided');
  });

  it('validates the pinned version again on approve: with errors now, 400 and the request stays open', async () => {
    const tenant = 'appr-revalidate';
    const ada = await api.admin(tenant);
    const grace = await api.admin(tenant, 'grace');
    await api.install(ada, 'kyc');
    await approvals.requireApprovals(ada);
    await api.create(ada, 'workflow', 'flow', workflowCalling('kyc'));
    // A draft with errors never opens a request.
    await api.create(ada, 'workflow', 'broken', workflowCalling('nobody'));
    expect(await errorOf(await api.publish(ada, 'workflow', 'broken'), 400)).toMatchObject({
      code: 'validation_error',
    });
    expect((await approvals.list(ada)).items).toEqual([]);

    const { approval } = await approvals.held(await api.publish(ada, 'workflow', 'flow'));
    await ok(await api.call('/app-installs/kyc', ada, 'DELETE'), 204);
    const refused = await errorOf(await approvals.approve(grace, approval.id), 400);
    expect(refused).toMatchObject({
      code: 'validation_error',
      details: { approvalId: approval.id, issues: [{ code: 'unknown_install', path: '/steps/0/install' }] },
    });
    expect(await ok<Approval>(await approvals.get(ada, approval.id))).toMatchObject({ status: 'open' });
    expect(await ok<Definition>(await api.get(ada, 'workflow', 'flow'))).toMatchObject({ published: null });
    // Withdrawn, the draft is fixed and may be asked for again.
    await ok(await approvals.withdraw(ada, approval.id));
    await ok(await api.save(ada, 'workflow', 'flow', decideOnly()));
    await approvals.held(await api.publish(ada, 'workflow', 'flow'));
  });
});
