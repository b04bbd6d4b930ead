// The activity feed's pure rules: which actions it reads, the payload it keeps, and each item's sentence,
// link and tone.
import { describe, expect, it } from 'vitest';
import {
  activityActions,
  activityHref,
  activityItem,
  activityText,
  actorLabel,
  toneOf,
  trimPayload,
} from '../../src/audit/activity-rules.ts';
import type { Actor, AuditEvent } from '../../src/audit/trail.ts';

const ana: Actor = { type: 'user', id: 'user:ana', name: 'Ana Ruiz' };

const event = (
  action: string,
  data: Record<string, unknown>,
  over: Partial<AuditEvent> = {},
): AuditEvent => ({
  id: '0193f0c2-7b1e-7c4a-9d3e-2a5b6c7d8e9f',
  tenantId: 't',
  action,
  actor: ana,
  resource: { type: 'definition', id: 'd-1' },
  data,
  requestId: 'r-1',
  occurredAt: '2026-11-26T10:00:00.000Z',
  ...over,
});

describe('activityActions', () => {
  it('reads case events for everyone, and publishes of each definition kind and approvals with definitions:read', () => {
    expect(activityActions(false)).toEqual(['case.decided', 'case.sla.breached']);
    expect(activityActions(true)).toEqual([
      'case.decided',
      'case.sla.breached',
      'workflow.published',
      'rule_set.published',
      'definition.approval.requested',
      'definition.approval.approved',
      'definition.approval.rejected',
      'definition.approval.withdrawn',
    ]);
  });
});

describe('trimPayload', () => {
  it.each([
    ['nothing', {}, {}],
    [
      'outcome, kind, key and version kept',
      { outcome: 'approve', kind: 'workflow', key: 'kyc', version: 3 },
      {
        outcome: 'approve',
        kind: 'workflow',
        key: 'kyc',
        version: 3,
      },
    ],
    [
      'every other field dropped',
      { key: 'kyc', version: 2, comment: 'looks fine', subjectId: 's-9', approvalId: 'a-1', riskScore: 80 },
      { key: 'kyc', version: 2 },
    ],
    ['a boolean outcome kept', { outcome: false }, { outcome: false }],
    ['text versions kept', { version: '1.2.0' }, { version: '1.2.0' }],
    [
      'objects and arrays under a kept name dropped',
      { outcome: { score: 1, applicant: 'Jo' }, key: ['a'], version: null },
      {},
    ],
    ['numbers that are no numbers dropped', { version: Number.NaN, outcome: Number.POSITIVE_INFINITY }, {}],
    ['inherited names are not fields', Object.create({ key: 'inherited' }), {}],
    ['names differing in case dropped', { Key: 'x', OUTCOME: 'y', versionId: 'v' }, {}],
  ])('%s', (_name, data, kept) => {
    expect(trimPayload(data as Record<string, unknown>)).toEqual(kept);
  });
});

describe('actorLabel', () => {
  it.each([
    [{ type: 'user', id: 'user:ana', name: 'Ana Ruiz' }, 'Ana Ruiz'],
    [{ type: 'user', id: 'user:ana', name: '  ' }, 'user:ana'],
    [{ type: 'machine', id: 'svc:crm', name: null }, 'svc:crm'],
    [{ type: 'operator', id: 'op', name: null }, 'The operator'],
    [{ type: 'system', id: 'sla', name: null }, 'The platform'],
    [{ type: 'system', id: 'sla', name: 'SLA monitor' }, 'SLA monitor'],
    [{ type: 'applicant', id: 'sub-1', name: null }, 'An applicant'],
  ] as [Actor, string][])('%j reads %s', (actor, label) => {
    expect(actorLabel(actor)).toBe(label);
  });
});

describe('activityText', () => {
  it.each([
    [
      'workflow.published',
      { kind: 'workflow', key: 'onboarding', version: 3 },
      'Ana Ruiz published workflow onboarding version 3',
    ],
    [
      'rule_set.published',
      { kind: 'rule_set', key: 'aml', version: 1 },
      'Ana Ruiz published rule set aml version 1',
    ],
    ['rule_set.published', {}, 'Ana Ruiz published a rule set'],
    [
      'definition.approval.requested',
      { kind: 'workflow', key: 'onboarding', version: 4 },
      'Ana Ruiz asked for approval to publish workflow onboarding version 4',
    ],
    [
      'definition.approval.approved',
      { kind: 'rule_set', key: 'aml', version: 2 },
      'Ana Ruiz approved publishing rule set aml version 2',
    ],
    ['definition.approval.rejected', { key: 'aml' }, 'Ana Ruiz rejected publishing definition aml'],
    [
      'definition.approval.withdrawn',
      { kind: 'nonsense', version: 5 },
      'Ana Ruiz withdrew the request to publish a definition version 5',
    ],
    ['case.decided', { outcome: 'reject' }, 'Ana Ruiz decided a case: reject'],
    ['case.decided', { key: 'C-1042', outcome: 'approve' }, 'Ana Ruiz decided case C-1042: approve'],
    ['case.decided', {}, 'Ana Ruiz decided a case'],
    ['case.sla.breached', {}, 'Ana Ruiz reported a case past its due date'],
  ])('%s %j', (action, data, text) => {
    expect(activityText({ action, actor: ana }, data)).toBe(text);
  });

  it('names a system actor without a name as the platform', () => {
    expect(
      activityText(
        { action: 'case.sla.breached', actor: { type: 'system', id: 'sla', name: null } },
        { key: 'C-7' },
      ),
    ).toBe('The platform reported case C-7 past its due date');
  });
});

describe('activityHref', () => {
  it.each([
    [
      'workflow.published',
      { type: 'definition', id: 'd' },
      { key: 'onboarding', version: 3 },
      '/workflows/onboarding/versions/3',
    ],
    [
      'rule_set.published',
      { type: 'definition', id: 'd' },
      { key: 'aml', version: 1 },
      '/rule-sets/aml/versions/1',
    ],
    [
      'definition.approval.approved',
      { type: 'definition', id: 'd' },
      { kind: 'workflow', key: 'kyc' },
      '/workflows/kyc',
    ],
    ['definition.approval.requested', { type: 'definition_approval', id: 'a' }, { version: 2 }, null],
    ['definition.approval.requested', { type: 'definition', id: 'd' }, { key: 'kyc', version: 2 }, null],
    [
      'workflow.published',
      { type: 'definition', id: 'd' },
      { key: 'a b/c', version: 1 },
      '/workflows/a%20b%2Fc/versions/1',
    ],
    ['case.decided', { type: 'case', id: 'c-1' }, { outcome: 'approve' }, '/cases/c-1'],
    ['case.sla.breached', { type: 'subject', id: 's-1' }, {}, null],
  ])('%s on %j with %j', (action, resource, data, href) => {
    expect(activityHref({ action, resource }, data)).toBe(href);
  });
});

describe('toneOf', () => {
  it.each([
    ['case.sla.breached', 'alert'],
    ['definition.approval.rejected', 'alert'],
    ['case.decided', 'neutral'],
    ['definition.approval.approved', 'neutral'],
    ['definition.approval.withdrawn', 'neutral'],
    ['workflow.published', 'neutral'],
  ])('%s is %s', (action, tone) => {
    expect(toneOf(action)).toBe(tone);
  });
});

describe('activityItem', () => {
  it('builds text and link from the trimmed payload only', () => {
    expect(
      activityItem(
        event('workflow.published', { kind: 'workflow', key: 'onboarding', version: 3, body: { steps: [] } }),
      ),
    ).toEqual({
      id: '0193f0c2-7b1e-7c4a-9d3e-2a5b6c7d8e9f',
      occurredAt: '2026-11-26T10:00:00.000Z',
      action: 'workflow.published',
      actor: ana,
      text: 'Ana Ruiz published workflow onboarding version 3',
      href: '/workflows/onboarding/versions/3',
      tone: 'neutral',
      data: { kind: 'workflow', key: 'onboarding', version: 3 },
    });
  });
});
