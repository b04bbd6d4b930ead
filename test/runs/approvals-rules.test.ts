// The pure rules of definition approvals (docs/runs.md "Approvals of definitions"): when a publish waits,
// who may decide a request and who hears of the decision; the view.
import { describe, expect, it } from 'vitest';
import {
  type ApprovalRow,
  approvalView,
  type Decision,
  decisionRefusal,
  notifiesRequester,
  publishSettingsOf,
} from '../../src/runs/definitions/approvals-rules.ts';
import { defaultTenantSettings } from '../../src/tenants/default-settings.ts';
import type { TenantSettings } from '../../src/tenants/settings.ts';

const settings = (approvals: TenantSettings['approvals']): TenantSettings => ({
  ...defaultTenantSettings(),
  approvals,
});

describe('publishSettingsOf', () => {
  const rows: [string, TenantSettings['approvals'], { required: boolean; fourEyes: boolean }][] = [
    ['approvals off', { required: false, fourEyes: true }, { required: false, fourEyes: true }],
    [
      'off, even naming definitions',
      { required: false, requiredFor: ['definitions'], fourEyes: false },
      { required: false, fourEyes: false },
    ],
    [
      'on for every area (requiredFor unset)',
      { required: true, fourEyes: true },
      { required: true, fourEyes: true },
    ],
    [
      'on naming definitions',
      { required: true, requiredFor: ['definitions'], fourEyes: false },
      { required: true, fourEyes: false },
    ],
    [
      'on for apps only',
      { required: true, requiredFor: ['app'], fourEyes: true },
      { required: false, fourEyes: true },
    ],
    [
      'on for apps by the older spelling only',
      { required: true, requiredFor: ['apps'], fourEyes: true },
      { required: false, fourEyes: true },
    ],
    [
      'on for no area',
      { required: true, requiredFor: [], fourEyes: true },
      { required: false, fourEyes: true },
    ],
  ];
  it.each(rows)('%s', (_name, approvals, expected) => {
    expect(publishSettingsOf(settings(approvals))).toEqual(expected);
  });
});

describe('decisionRefusal', () => {
  const request = (over: Partial<ApprovalRow> = {}) => ({
    id: 'a1',
    status: 'open' as ApprovalRow['status'],
    fourEyes: true,
    requestedBy: 'user:ada',
    ...over,
  });
  const ada = { subject: 'user:ada', permissions: new Set(['definitions:publish']) };
  const grace = { subject: 'user:grace', permissions: new Set(['definitions:publish']) };
  const admin = { subject: 'user:root', permissions: new Set(['definitions:publish', 'tenants:settings']) };

  // [sentence, request, decision, decider, code answered or null]
  const rows: [string, ReturnType<typeof request>, Decision, typeof ada, string | null][] = [
    ['another publisher approves', request(), 'approved', grace, null],
    ['another publisher rejects', request(), 'rejected', grace, null],
    ['under four-eyes the requester may not approve', request(), 'approved', ada, 'four_eyes'],
    ['under four-eyes the requester may not reject', request(), 'rejected', ada, 'four_eyes'],
    ['under four-eyes the requester may withdraw', request(), 'withdrawn', ada, null],
    ['without four-eyes the requester approves', request({ fourEyes: false }), 'approved', ada, null],
    ['without four-eyes the requester rejects', request({ fourEyes: false }), 'rejected', ada, null],
    ['another publisher may not withdraw', request(), 'withdrawn', grace, 'not_requester'],
    ['nor without four-eyes', request({ fourEyes: false }), 'withdrawn', grace, 'not_requester'],
    ['a holder of tenants:settings withdraws another’s', request(), 'withdrawn', admin, null],
    ['an approved request is decided', request({ status: 'approved' }), 'approved', grace, 'conflict'],
    ['a rejected one too', request({ status: 'rejected' }), 'withdrawn', ada, 'conflict'],
    ['a withdrawn one too, before four-eyes', request({ status: 'withdrawn' }), 'approved', ada, 'conflict'],
    ['decided, before not_requester', request({ status: 'approved' }), 'withdrawn', grace, 'conflict'],
  ];
  it.each(rows)('%s', (_name, approval, decision, decider, code) => {
    const refusal = decisionRefusal(approval, decision, decider);
    expect(refusal?.code ?? null).toBe(code);
    if (refusal) expect(refusal.details).toMatchObject({ approvalId: 'a1' });
  });

  it('names the status of a decided request', () => {
    expect(decisionRefusal(request({ status: 'rejected' }), 'approved', grace)).toMatchObject({
      statusCode: 409,
      details: { approvalId: 'a1', status: 'rejected' },
    });
  });
});

describe('notifiesRequester', () => {
  it.each([
    ['user:grace', true],
    ['user:ada', false],
  ])('decided by %s: %s', (subject, expected) => {
    expect(notifiesRequester({ requestedBy: 'user:ada' }, { subject, permissions: new Set() })).toBe(
      expected,
    );
  });
});

describe('approvalView', () => {
  it('answers the row with ISO timestamps', () => {
    const row: ApprovalRow = {
      id: 'a1',
      tenantId: 't1',
      definitionId: 'd1',
      kind: 'rule_set',
      key: 'onboarding',
      versionId: 'v1',
      version: 3,
      status: 'rejected',
      origin: 'rename',
      fourEyes: true,
      requestedBy: 'user:ada',
      requestedByName: 'Ada',
      requestedAt: new Date('2026-01-02T03:04:05.000Z'),
      decidedBy: 'user:grace',
      decidedAt: new Date('2026-01-03T00:00:00.000Z'),
      comment: 'not yet',
    };
    expect(approvalView(row)).toEqual({
      id: 'a1',
      kind: 'rule_set',
      key: 'onboarding',
      version: 3,
      status: 'rejected',
      origin: 'rename',
      fourEyes: true,
      requestedBy: 'user:ada',
      requestedByName: 'Ada',
      requestedAt: '2026-01-02T03:04:05.000Z',
      decidedBy: 'user:grace',
      decidedAt: '2026-01-03T00:00:00.000Z',
      comment: 'not yet',
    });
  });
});
