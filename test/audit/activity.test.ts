// GET /activity through the real api on a real database: the newest case events for every caller,
// publishes and definition approvals only with definitions:read, the limit and its bounds, the trimmed
// payload, sentences naming the actor, and another tenant's trail never shown. Case events and definition
// approvals are written with recordAudit (their features are not in this service yet); a workflow is
// published through its own route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, recordAudit } from '../../src/audit/trail.ts';
import { expectError } from '../http/expect.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

interface Item {
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: string; id: string; name: string | null };
  text: string;
  href: string | null;
  tone: 'neutral' | 'alert';
  data: Record<string, unknown>;
}

let platform: TestPlatform;
let tenantId: string;

const system = { type: 'system', id: 'sla-monitor', name: null } as const;
const ana = { type: 'user', id: 'user:ana', name: 'Ana Ruiz' } as const;

const write = (entry: Partial<AuditEntry> & Pick<AuditEntry, 'action'>) =>
  recordAudit(platform.database.db, {
    tenantId,
    actor: ana,
    resource: { type: 'case', id: 'case-1' },
    ...entry,
  });

beforeAll(async () => {
  platform = await startTestPlatform();
  tenantId = await platform.tenantId('feed');
  const other = await platform.tenantId('feed-other');
  // Oldest first. A workflow published through its route, by ana (her token's name claim is "ana").
  const admin = await platform.token({ tenant: 'feed', user: 'ana' });
  const created = await platform.fetch('/workflow-definitions', {
    method: 'POST',
    token: admin,
    json: {
      key: 'onboarding',
      body: {
        steps: [
          {
            id: 'out',
            type: 'decide',
            branches: [{ when: { path: 'score', gt: 50 }, outcome: 'review' }],
            otherwise: 'approve',
          },
        ],
      },
    },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const published = await platform.fetch('/workflow-definitions/onboarding/publish', {
    method: 'POST',
    token: admin,
  });
  expect(published.status, await published.clone().text()).toBe(200);
  await write({
    action: 'definition.approval.requested',
    resource: { type: 'definition', id: 'def-aml' },
    data: { kind: 'rule_set', key: 'aml', version: 2, approvalId: 'ap-1', comment: 'new thresholds' },
  });
  await write({
    action: 'case.decided',
    resource: { type: 'case', id: 'c-1' },
    data: { outcome: 'approve', riskScore: 12, subjectId: 'subject-7', note: 'applicant Jo Bloggs' },
  });
  await write({
    action: 'app.installed',
    resource: { type: 'app_install', id: 'i-1' },
    data: { name: 'kyc' },
  });
  await write({
    action: 'definition.approval.rejected',
    actor: { type: 'user', id: 'user:grace', name: 'Grace' },
    resource: { type: 'definition', id: 'def-aml' },
    data: { kind: 'rule_set', key: 'aml', version: 2, comment: 'too strict' },
  });
  await write({ action: 'case.sla.breached', actor: system, resource: { type: 'case', id: 'c-2' } });
  await write({
    action: 'definition.created',
    resource: { type: 'definition', id: 'x' },
    data: { key: 'x' },
  });
  await write({
    action: 'rule_set.published',
    actor: { type: 'machine', id: 'svc:ci', name: null },
    resource: { type: 'definition', id: 'def-aml' },
    data: { kind: 'rule_set', key: 'aml', version: 3 },
  });
  await write({ action: 'case.decided', resource: { type: 'case', id: 'c-3' }, data: { outcome: 'reject' } });
  // Another tenant's and the operator's trail: never in feed's activity.
  await recordAudit(platform.database.db, {
    tenantId: other,
    action: 'case.decided',
    actor: { type: 'user', id: 'user:eve', name: 'Eve' },
    resource: { type: 'case', id: 'c-other' },
    data: { outcome: 'approve' },
  });
  await recordAudit(platform.database.db, {
    tenantId: null,
    action: 'case.decided',
    actor: { type: 'operator', id: 'op', name: 'op' },
    resource: { type: 'case', id: 'c-op' },
  });
}, 60_000);
afterAll(async () => platform?.close());

const activity = async (token: string, query = '') => {
  const response = await platform.fetch(`/activity${query}`, { token });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { items: Item[] }).items;
};
const reader = () =>
  platform.token({ tenant: 'feed', user: 'dee', roles: [], permissions: ['definitions:read'] });
const analyst = () => platform.token({ tenant: 'feed', user: 'rita', roles: ['analyst'] });

describe('GET /activity', () => {
  it('answers the five newest items by default, newest first, with definitions:read', async () => {
    const items = await activity(await reader());
    expect(items.map((i) => i.action)).toEqual([
      'case.decided',
      'rule_set.published',
      'case.sla.breached',
      'definition.approval.rejected',
      'case.decided',
    ]);
    // The order is the trail's; ids are UUIDs, one per record (test/audit/ids.test.ts).
    const ids = items.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('answers up to the limit asked, only the feed’s actions', async () => {
    const items = await activity(await reader(), '?limit=50');
    expect(items.map((i) => i.action)).toEqual([
      'case.decided',
      'rule_set.published',
      'case.sla.breached',
      'definition.approval.rejected',
      'case.decided',
      'definition.approval.requested',
      'workflow.published',
    ]);
    expect((await activity(await reader(), '?limit=1')).map((i) => i.action)).toEqual(['case.decided']);
  });

  it('leaves publishes and approvals out without definitions:read', async () => {
    for (const token of [
      await analyst(),
      await platform.token({ tenant: 'feed', roles: [], permissions: [] }),
    ]) {
      const items = await activity(token, '?limit=50');
      expect(items.map((i) => [i.action, i.data])).toEqual([
        ['case.decided', { outcome: 'reject' }],
        ['case.sla.breached', {}],
        ['case.decided', { outcome: 'approve' }],
      ]);
    }
    // An admin holds definitions:read.
    expect(await activity(await platform.token({ tenant: 'feed' }), '?limit=50')).toHaveLength(7);
  });

  it('writes each item with a sentence naming its actor, its console link, its tone and the trimmed payload', async () => {
    const items = await activity(await reader(), '?limit=50');
    expect(items.map(({ text, href, tone, data }) => ({ text, href, tone, data }))).toEqual([
      {
        text: 'Ana Ruiz decided a case: reject',
        href: '/cases/c-3',
        tone: 'neutral',
        data: { outcome: 'reject' },
      },
      {
        text: 'svc:ci published rule set aml version 3',
        href: '/rule-sets/aml/versions/3',
        tone: 'neutral',
        data: { kind: 'rule_set', key: 'aml', version: 3 },
      },
      {
        text: 'The platform reported a case past its due date',
        href: '/cases/c-2',
        tone: 'alert',
        data: {},
      },
      {
        text: 'Grace rejected publishing rule set aml version 2',
        href: '/rule-sets/aml/versions/2',
        tone: 'alert',
        data: { kind: 'rule_set', key: 'aml', version: 2 },
      },
      {
        text: 'Ana Ruiz decided a case: approve',
        href: '/cases/c-1',
        tone: 'neutral',
        data: { outcome: 'approve' },
      },
      {
        text: 'Ana Ruiz asked for approval to publish rule set aml version 2',
        href: '/rule-sets/aml/versions/2',
        tone: 'neutral',
        data: { kind: 'rule_set', key: 'aml', version: 2 },
      },
      {
        text: 'ana published workflow onboarding version 1',
        href: '/workflows/onboarding/versions/1',
        tone: 'neutral',
        data: { kind: 'workflow', key: 'onboarding', version: 1 },
      },
    ]);
    const published = items.at(-1) as Item;
    expect(published.actor).toEqual({ type: 'user', id: 'user:ana', name: 'ana' });
    expect(published.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Nothing beyond outcome, keys and versions: no comment, subject, score or approval id.
    expect(JSON.stringify(items)).not.toMatch(/subject-7|Jo Bloggs|riskScore|too strict|new thresholds|ap-1/);
  });

  it('never shows another tenant’s events nor the operator’s', async () => {
    const other = await activity(await platform.token({ tenant: 'feed-other' }), '?limit=50');
    expect(other.map((i) => i.text)).toEqual(['Eve decided a case: approve']);
    expect(await activity(await platform.token({ tenant: 'feed-empty' }))).toEqual([]);
  });

  it('refuses a limit out of 1 to 50, or no integer, and any other parameter', async () => {
    const token = await reader();
    for (const query of ['?limit=0', '?limit=51', '?limit=2.5', '?limit=five', '?limit=-1', '?offset=0']) {
      const error = await expectError(
        await platform.fetch(`/activity${query}`, { token }),
        400,
        'validation_error',
      );
      const path = query.startsWith('?offset') ? 'query.offset' : 'query.limit';
      expect(error.details, query).toEqual({ issues: [expect.objectContaining({ path })] });
    }
  });

  it('needs a token', async () => {
    await expectError(await platform.fetch('/activity', { token: null }), 401, 'unauthorized');
  });
});
