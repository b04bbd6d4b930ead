// Approvals: who may decide a request that waits for a second person. Three requests wait so: a tenant's
// app version to publish (src/catalogue/lifecycle.ts), an install change (src/installs/changes/) and a
// definition to publish (src/runs/definitions/approvals-*); each keeps its own rows and locks, and asks
// this one rule who may decide (docs/rules.md "Approvals"). Pure: a request and a principal in, a refusal out.
import { ApiError } from '../http/errors.ts';

/** The requests that wait for a decision. */
export type ApprovalKind = 'publish_request' | 'install_change' | 'definition_approval';
export type Decision = 'approved' | 'rejected' | 'withdrawn';

/** A request as the rule reads it: four-eyes as the tenant's settings said when it was requested. */
export interface ApprovalRequest {
  fourEyes: boolean;
  requestedBy: string;
}

/** Who decides: the principal's subject and the permissions it holds. */
export interface Decider {
  subject: string;
  permissions: ReadonlySet<string>;
}

/**
 * The decisions four-eyes keeps from the requester, per request. The apps area refuses the requester's
 * approval only: rejecting one's own request is allowed. Definitions, outside the apps area, refuse a
 * rejection too, so that a "no" on record is never the requester's (they withdraw instead).
 */
export const FOUR_EYES_DECISIONS: Record<ApprovalKind, readonly Decision[]> = {
  publish_request: ['approved'],
  install_change: ['approved'],
  definition_approval: ['approved', 'rejected'],
};

/**
 * Whether four-eyes stands between this subject and the request: it was on when the request was made
 * (turning it off later does not help; turning it on later does not bind), and the subject requested it.
 */
export const fourEyesRefuses = (request: ApprovalRequest, subject: string) =>
  request.fourEyes && request.requestedBy === subject;

/** Who may withdraw a request: its requester, or an administrator holding tenants:settings. */
export const mayWithdraw = (request: Pick<ApprovalRequest, 'requestedBy'>, decider: Decider) =>
  request.requestedBy === decider.subject || decider.permissions.has('tenants:settings');

export type DecisionRefusal = 'four_eyes' | 'not_requester';

/** Why the decider may not take the decision on an open request of that kind, or null when they may. */
export function decisionRefusal(
  kind: ApprovalKind,
  request: ApprovalRequest,
  decision: Decision,
  decider: Decider,
): DecisionRefusal | null {
  if (FOUR_EYES_DECISIONS[kind].includes(decision) && fourEyesRefuses(request, decider.subject)) {
    return 'four_eyes';
  }
  if (decision === 'withdrawn' && !mayWithdraw(request, decider)) return 'not_requester';
  return null;
}

/** How each request is named in a refusal, and what its requester is told to do instead. */
const WORDING: Record<ApprovalKind, { noun: string; instead: string }> = {
  publish_request: { noun: 'request', instead: '' },
  install_change: { noun: 'change', instead: '' },
  definition_approval: { noun: 'request', instead: '; withdraw it instead' },
};

const VERB: Record<Decision, string> = { approved: 'approve', rejected: 'reject', withdrawn: 'withdraw' };

/** The error answered for a refusal (403 four_eyes or 403 not_requester), with the request's details. */
export function refusalError(
  kind: ApprovalKind,
  refusal: DecisionRefusal,
  decision: Decision,
  details?: Record<string, unknown>,
): ApiError {
  const { noun, instead } = WORDING[kind];
  if (refusal === 'four_eyes') {
    return new ApiError(
      'four_eyes',
      `under four-eyes the requester may not ${VERB[decision]} their own ${noun}${instead}`,
      details,
    );
  }
  return new ApiError(
    'not_requester',
    `only the requester, or an administrator holding tenants:settings, may withdraw this ${noun}`,
    details,
  );
}
