// Approvals of definitions (docs/runs.md "Approvals of definitions"): the view and the rules of a
// decision. Pure: rows and principals in, answers out; approvals.ts does the reading and writing.
import {
  decisionRefusal as approvalRefusal,
  type Decider,
  refusalError,
} from '../../approvals/four-eyes-rules.ts';
import { requestFields } from '../../approvals/request-view.ts';
import { type ApiError, conflict } from '../../http/errors.ts';
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
  ...requestFields(row),
});

/** The tenant's settings for definitions as a publish reads them: hold it for approval, and under four-eyes? */
export const publishSettingsOf = (settings: TenantSettings) => ({
  required: approvalRequired(settings, 'definitions'),
  fourEyes: settings.approvals.fourEyes,
});

/**
 * Why `decider` may not take `decision` on the request, or null when they may: a decided request is 409
 * conflict; then the approvals' rule (src/approvals/four-eyes-rules.ts): under the four-eyes setting in
 * force when it was requested the requester may neither approve nor reject it (403 four_eyes: they
 * withdraw it instead); only the requester, or a holder of tenants:settings, withdraws it (403 not_requester).
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
  const refusal = approvalRefusal('definition_approval', approval, decision, decider);
  return refusal && refusalError('definition_approval', refusal, decision, { approvalId });
}

/** The requester hears of a decision (approval_decided) unless they took it themselves. */
export const notifiesRequester = (approval: Pick<ApprovalRow, 'requestedBy'>, decider: Decider) =>
  approval.requestedBy !== decider.subject;
