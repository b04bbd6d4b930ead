// Approvals of definitions (docs/runs.md "Approvals of definitions"): the view and the rules of a
// decision. Pure: rows and principals in, answers out; approvals.ts does the reading and writing.
import { ApiError, conflict } from '../../http/errors.ts';
import type { TenantSettings } from '../../tenants/settings.ts';
import { approvalRequired } from '../../tenants/settings.ts';
import type { DefinitionKind } from '../model.ts';
import type { ApprovalOrigin, ApprovalStatus, definitionApprovals } from './approvals-tables.ts';

export type ApprovalRow = typeof definitionApprovals.$inferSelect;
export type Decision = Exclude<ApprovalStatus, 'open'>;

/** An approval as answered (docs/runs.md "Approvals of definitions"). */
export interface ApprovalView {
  id: string;
  kind: DefinitionKind;
  key: string;
  version: number;
  status: ApprovalStatus;
  origin: ApprovalOrigin;
  fourEyes: boolean;
  requestedBy: string;
  requestedByName: string | null;
  requestedAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  comment: string | null;
}

export const approvalView = (row: ApprovalRow): ApprovalView => ({
  id: row.id,
  kind: row.kind,
  key: row.key,
  version: row.version,
  status: row.status,
  origin: row.origin,
  fourEyes: row.fourEyes,
  requestedBy: row.requestedBy,
  requestedByName: row.requestedByName,
  requestedAt: row.requestedAt.toISOString(),
  decidedBy: row.decidedBy,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  comment: row.comment,
});

/** The tenant's settings for definitions as a publish reads them: hold it for approval, and under four-eyes? */
export const publishSettingsOf = (settings: TenantSettings) => ({
  required: approvalRequired(settings, 'definitions'),
  fourEyes: settings.approvals.fourEyes,
});

/** Who decides: the principal's subject and the permissions it holds. */
export interface Decider {
  subject: string;
  permissions: ReadonlySet<string>;
}

const VERB: Record<Decision, string> = { approved: 'approve', rejected: 'reject', withdrawn: 'withdraw' };

/**
 * Why `decider` may not take `decision` on the request, or null when they may, checked in this order:
 * a decided request is 409 conflict; under the four-eyes setting in force when it was requested the
 * requester may neither approve nor reject it (403 four_eyes: they withdraw it instead); only the
 * requester, or a holder of tenants:settings, withdraws it (403 not_requester).
 */
export function decisionRefusal(
  approval: Pick<ApprovalRow, 'id' | 'status' | 'fourEyes' | 'requestedBy'>,
  decision: Decision,
  decider: Decider,
): ApiError | null {
  const approvalId = approval.id;
  if (approval.status !== 'open') {
    return conflict(`this approval request is already decided (${approval.status})`, {
      approvalId,
      status: approval.status,
    });
  }
  const own = approval.requestedBy === decider.subject;
  if (decision !== 'withdrawn' && own && approval.fourEyes) {
    return new ApiError(
      'four_eyes',
      `under four-eyes the requester may not ${VERB[decision]} their own request; withdraw it instead`,
      { approvalId },
    );
  }
  if (decision === 'withdrawn' && !own && !decider.permissions.has('tenants:settings')) {
    return new ApiError(
      'not_requester',
      'only the requester, or an administrator holding tenants:settings, may withdraw this request',
      { approvalId },
    );
  }
  return null;
}

/** The requester hears of a decision (approval_decided) unless they took it themselves. */
export const notifiesRequester = (approval: Pick<ApprovalRow, 'requestedBy'>, decider: Decider) =>
  approval.requestedBy !== decider.subject;
