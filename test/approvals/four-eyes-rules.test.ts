// Who may decide a request that waits for a second person (src/approvals/four-eyes-rules.ts): one table,
// a column per request, so where the requests differ the row says so.
import { describe, expect, it } from 'vitest';
import {
  type ApprovalKind,
  type Decision,
  type DecisionRefusal,
  decisionRefusal,
  fourEyesRefuses,
  mayWithdraw,
  refusalError,
} from '../../src/approvals/four-eyes-rules.ts';

const ada = { subject: 'user:ada', permissions: new Set(['apps:publish', 'definitions:publish']) };
const grace = { subject: 'user:grace', permissions: new Set(['apps:publish', 'definitions:publish']) };
const root = { subject: 'user:root', permissions: new Set(['apps:publish', 'tenants:settings']) };
const adaAsAdmin = { subject: 'user:ada', permissions: new Set(['apps:publish', 'tenants:settings']) };

/** Asked by ada: four-eyes on or off when it was requested. */
const on = { fourEyes: true, requestedBy: 'user:ada' };
const off = { fourEyes: false, requestedBy: 'user:ada' };

/** A publish request is never withdrawn on its own: it goes with its version (DELETE, apps:publish). */
const NOT_ASKED = 'not asked';
type Answer = DecisionRefusal | null | typeof NOT_ASKED;

// [sentence, request, decision, decider, publish_request, install_change, definition_approval]
const rows: [string, typeof on, Decision, typeof ada, Answer, Answer, Answer][] = [
  [
    'under four-eyes the requester may not approve',
    on,
    'approved',
    ada,
    'four_eyes',
    'four_eyes',
    'four_eyes',
  ],
  [
    'holding tenants:settings does not lift four-eyes',
    on,
    'approved',
    adaAsAdmin,
    'four_eyes',
    'four_eyes',
    'four_eyes',
  ],
  ['another approves', on, 'approved', grace, null, null, null],
  ['without four-eyes the requester approves', off, 'approved', ada, null, null, null],
  [
    'under four-eyes the requester rejects, but not a definition',
    on,
    'rejected',
    ada,
    null,
    null,
    'four_eyes',
  ],
  ['another rejects', on, 'rejected', grace, null, null, null],
  ['without four-eyes the requester rejects', off, 'rejected', ada, null, null, null],
  ['under four-eyes the requester withdraws', on, 'withdrawn', ada, NOT_ASKED, null, null],
  ['another may not withdraw', on, 'withdrawn', grace, NOT_ASKED, 'not_requester', 'not_requester'],
  ['nor without four-eyes', off, 'withdrawn', grace, NOT_ASKED, 'not_requester', 'not_requester'],
  ['a holder of tenants:settings withdraws another’s', on, 'withdrawn', root, NOT_ASKED, null, null],
];

const KINDS: ApprovalKind[] = ['publish_request', 'install_change', 'definition_approval'];

describe('decisionRefusal', () => {
  it.each(rows)('%s', (_sentence, request, decision, decider, ...answers) => {
    KINDS.forEach((kind, i) => {
      if (answers[i] === NOT_ASKED) return;
      expect(decisionRefusal(kind, request, decision, decider), kind).toBe(answers[i]);
    });
  });

  it('four-eyes refuses only the requester, and only when it was on at request time', () => {
    expect(fourEyesRefuses({ fourEyes: true, requestedBy: 'user:ada' }, 'user:ada')).toBe(true);
    expect(fourEyesRefuses({ fourEyes: true, requestedBy: 'user:ada' }, 'user:grace')).toBe(false);
    expect(fourEyesRefuses({ fourEyes: false, requestedBy: 'user:ada' }, 'user:ada')).toBe(false);
  });

  it('the requester or a holder of tenants:settings may withdraw', () => {
    const change = { requestedBy: 'user:bob' };
    expect(mayWithdraw(change, { subject: 'user:bob', permissions: new Set(['apps:write']) })).toBe(true);
    expect(mayWithdraw(change, { subject: 'user:carl', permissions: new Set(['apps:write']) })).toBe(false);
    expect(mayWithdraw(change, { subject: 'user:carl', permissions: new Set(['tenants:settings']) })).toBe(
      true,
    );
  });
});

describe('refusalError', () => {
  // [kind, refusal, decision, message]
  const messages: [ApprovalKind, DecisionRefusal, Decision, string][] = [
    [
      'publish_request',
      'four_eyes',
      'approved',
      'under four-eyes the requester may not approve their own request',
    ],
    [
      'install_change',
      'four_eyes',
      'approved',
      'under four-eyes the requester may not approve their own change',
    ],
    [
      'definition_approval',
      'four_eyes',
      'rejected',
      'under four-eyes the requester may not reject their own request; withdraw it instead',
    ],
    [
      'install_change',
      'not_requester',
      'withdrawn',
      'only the requester, or an administrator holding tenants:settings, may withdraw this change',
    ],
  ];
  it.each(messages)('%s %s %s', (kind, refusal, decision, message) => {
    const error = refusalError(kind, refusal, decision, { id: 'r1' });
    expect(error).toMatchObject({ code: refusal, statusCode: 403, message, details: { id: 'r1' } });
  });

  it('carries no details when none are given', () => {
    expect(refusalError('publish_request', 'four_eyes', 'approved').details).toBeUndefined();
  });
});
