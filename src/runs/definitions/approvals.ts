// Approvals of definitions: the list and the decisions (docs/runs.md "Approvals of definitions").
// Publishes open requests (service.ts, callers.ts through approvals-store.ts); here they are approved,
// rejected or withdrawn. A decision locks the definition's row, then the request's, in one transaction (an
// approval takes the tenant's install lock first, as a publish does): a decision and a save or publish of
// the definition take turns.
import { and, asc, desc, eq, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/pool.ts';
import { notFound } from '../../http/errors.ts';
import { countCapped, type Page } from '../../http/paging.ts';
import { lockTenantInstalls } from '../../installs/index.ts';
import { notify } from '../../notifications/index.ts';
import { definitionVersions } from '../tables.ts';
import {
  type ApprovalRow,
  type ApprovalView,
  approvalView,
  type Decision,
  decisionRefusal,
  notifiesRequester,
} from './approvals-rules.ts';
import type { ApprovalsQueryValue } from './approvals-schemas.ts';
import { auditApproval } from './approvals-store.ts';
import { definitionApprovals } from './approvals-tables.ts';
import {
  assertPublishable,
  type DefinitionContext,
  lockDefinition,
  publishVersion,
  type VersionRow,
  validated,
} from './service.ts';

const ofTenant = (ctx: DefinitionContext, id: string) =>
  and(eq(definitionApprovals.tenantId, ctx.principal.tenantId), eq(definitionApprovals.id, id));

/** GET /definition-approvals: open ones oldest first (default), or decided ones newest first. */
export async function listApprovals(
  ctx: DefinitionContext,
  query: ApprovalsQueryValue,
): Promise<Page<ApprovalView>> {
  const db = ctx.database.db;
  const status = query.status ?? 'open';
  const a = definitionApprovals;
  const conditions: SQL[] = [eq(a.tenantId, ctx.principal.tenantId), eq(a.status, status)];
  if (query.kind !== undefined) conditions.push(eq(a.kind, query.kind));
  if (query.key !== undefined) conditions.push(eq(a.key, query.key));
  const where = and(...conditions);
  const order = status === 'open' ? [asc(a.requestedAt), asc(a.id)] : [desc(a.decidedAt), desc(a.id)];
  const rows = await db
    .select()
    .from(a)
    .where(where)
    .orderBy(...order)
    .limit(query.limit)
    .offset(query.offset);
  return { items: rows.map(approvalView), ...(await countCapped(db, a, where)) };
}

/** GET /definition-approvals/:id: the tenant's request of that id (another tenant's is 404). */
export async function getApproval(ctx: DefinitionContext, id: string): Promise<ApprovalView> {
  const [row] = await ctx.database.db.select().from(definitionApprovals).where(ofTenant(ctx, id));
  if (!row) throw notFound('no definition approval request has this id');
  return approvalView(row);
}

/**
 * The tenant's request of that id (404 not_found) with its definition, both locked for this transaction,
 * once the decider may take the decision on it (decisionRefusal: 409 conflict, 403 four_eyes or
 * not_requester).
 */
async function lockedForDecision(tx: Tx, ctx: DefinitionContext, id: string, decision: Decision) {
  const tenantId = ctx.principal.tenantId;
  const [found] = await tx
    .select({ definitionId: definitionApprovals.definitionId })
    .from(definitionApprovals)
    .where(ofTenant(ctx, id));
  if (!found) throw notFound('no definition approval request has this id');
  // As a publish: the install lock, then the definition's row (validation reads the tenant's installs).
  if (decision === 'approved') await lockTenantInstalls(tx, tenantId);
  const def = await lockDefinition(tx, tenantId, found.definitionId);
  const [approval] = await tx.select().from(definitionApprovals).where(ofTenant(ctx, id)).for('update');
  if (!def || !approval) throw notFound('no definition approval request has this id');
  const refusal = decisionRefusal(approval, decision, ctx.principal);
  if (refusal) throw refusal;
  return { def, approval };
}

/** Writes the decision, audits definition.approval.<decision> and tells the requester when someone else took it. */
async function decide(
  tx: Tx,
  ctx: DefinitionContext,
  approval: ApprovalRow,
  decision: Decision,
  comment: string | null,
): Promise<ApprovalRow> {
  const [row] = await tx
    .update(definitionApprovals)
    .set({ status: decision, decidedBy: ctx.principal.subject, decidedAt: new Date(), comment })
    .where(eq(definitionApprovals.id, approval.id))
    .returning();
  const decided = row as ApprovalRow;
  await auditApproval(tx, ctx, `definition.approval.${decision}`, decided);
  if (notifiesRequester(approval, ctx.principal)) {
    await notify(tx, {
      tenantId: decided.tenantId,
      kind: 'approval_decided',
      recipient: decided.requestedBy,
      resource: { type: 'definition_approval', id: decided.id },
      data: {
        kind: decided.kind,
        key: decided.key,
        version: decided.version,
        approvalId: decided.id,
        decision,
        comment,
        decidedBy: ctx.principal.name,
      },
    });
  }
  return decided;
}

/**
 * POST /definition-approvals/:id/approve (definitions:publish): publishes the pinned version, validated
 * again: while it has errors, 400 validation_error and the request stays open. Audited
 * definition.approval.approved, then <kind>.published with the approvalId.
 */
export async function approveApproval(ctx: DefinitionContext, id: string, comment: string | null) {
  return ctx.database.db.transaction(async (tx) => {
    const { def, approval } = await lockedForDecision(tx, ctx, id, 'approved');
    const [version] = await tx
      .select()
      .from(definitionVersions)
      .where(eq(definitionVersions.id, approval.versionId));
    const pinned = version as VersionRow;
    const validation = await validated(tx, ctx, def.kind, pinned.body);
    assertPublishable(pinned, validation, 'withdraw the request, fix the draft and publish it again', {
      approvalId: approval.id,
    });
    const decided = await decide(tx, ctx, approval, 'approved', comment);
    await publishVersion(tx, ctx, def, pinned, { approvalId: approval.id });
    return approvalView(decided);
  });
}

/** Reject and withdraw: the pinned draft stays a draft, free to be saved and published again. */
async function closeApproval(ctx: DefinitionContext, id: string, decision: Decision, comment: string | null) {
  return ctx.database.db.transaction(async (tx) => {
    const { approval } = await lockedForDecision(tx, ctx, id, decision);
    return approvalView(await decide(tx, ctx, approval, decision, comment));
  });
}

/** POST /definition-approvals/:id/reject (definitions:publish), { comment? }. */
export const rejectApproval = (ctx: DefinitionContext, id: string, comment: string | null) =>
  closeApproval(ctx, id, 'rejected', comment);

/** POST /definition-approvals/:id/withdraw: the requester, or a holder of tenants:settings. */
export const withdrawApproval = (ctx: DefinitionContext, id: string, comment: string | null) =>
  closeApproval(ctx, id, 'withdrawn', comment);
