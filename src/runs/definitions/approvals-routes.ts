// Approval routes of definitions (docs/runs.md "Approvals of definitions"): the list, one request, and the
// decisions. Thin: parse, authorize, call approvals.ts, answer the request.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { absentBodyIsEmpty } from '../../http/optional-body.ts';
import { errors } from '../../http/responses.ts';
import {
  approveApproval,
  getApproval,
  listApprovals,
  rejectApproval,
  withdrawApproval,
} from './approvals.ts';
import { Approval, ApprovalPage, ApprovalParams, ApprovalsQuery, DecisionBody } from './approvals-schemas.ts';
import { type DefinitionRouteDeps, definitionContextOf } from './routes.ts';

const tags = ['definitions'];

/** The three decisions: one body ({ comment? }, optional), one answer (the decided request). */
const DECISIONS = [
  {
    action: 'approve',
    decide: approveApproval,
    operationId: 'approveDefinitionApproval',
    summary: 'Approve an open request: the pinned version, validated again, is published',
    description:
      '400 validation_error (details.issues, details.approvalId) while the pinned version has validation errors: the request stays open. Under four-eyes (as set when requested) the requester is refused: 403 four_eyes.',
    refusals: errors('not_found', 'four_eyes', 'conflict'),
  },
  {
    action: 'reject',
    decide: rejectApproval,
    operationId: 'rejectDefinitionApproval',
    summary: 'Reject an open request: the pinned draft stays a draft',
    description: 'Under four-eyes (as set when requested) the requester is refused: 403 four_eyes.',
    refusals: errors('not_found', 'four_eyes', 'conflict'),
  },
  {
    action: 'withdraw',
    decide: withdrawApproval,
    operationId: 'withdrawDefinitionApproval',
    summary: 'Withdraw an open request (its requester, or an administrator holding tenants:settings)',
    description: 'Anyone else is refused: 403 not_requester. The pinned draft may be saved again afterwards.',
    refusals: errors('not_found', 'not_requester', 'conflict'),
  },
] as const;

export function definitionApprovalRoutes(deps: DefinitionRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/definition-approvals',
      {
        config: { permission: 'definitions:read' },
        schema: {
          tags,
          operationId: 'listDefinitionApprovals',
          summary:
            'Approval requests of workflows and rule sets: open ones oldest first (default), or decided ones newest first',
          querystring: ApprovalsQuery,
          response: { 200: ApprovalPage },
        },
      },
      async (request) => listApprovals(definitionContextOf(deps, request), request.query),
    );

    app.get(
      '/definition-approvals/:id',
      {
        config: { permission: 'definitions:read' },
        schema: {
          tags,
          operationId: 'getDefinitionApproval',
          summary: 'One approval request of a workflow or rule set',
          params: ApprovalParams,
          response: { 200: Approval, ...errors('not_found') },
        },
      },
      async (request) => getApproval(definitionContextOf(deps, request), request.params.id),
    );

    for (const d of DECISIONS) {
      app.post(
        `/definition-approvals/:id/${d.action}`,
        {
          config: { permission: 'definitions:publish' },
          schema: {
            tags,
            operationId: d.operationId,
            summary: d.summary,
            description: `${d.description} 409 conflict when the request is already decided.`,
            params: ApprovalParams,
            body: DecisionBody,
            response: { 200: Approval, ...d.refusals },
          },
          preValidation: absentBodyIsEmpty,
        },
        async (request) =>
          d.decide(definitionContextOf(deps, request), request.params.id, request.body.comment ?? null),
      );
    }
  };
}
