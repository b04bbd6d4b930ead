// Opening approvals of definitions inside a publish's transaction (docs/runs.md "Approvals of
// definitions"): the tenant's settings for definitions, the open request of a definition, and requesting
// one with its audit record and notification. Used by service.ts (publish, drafts), callers.ts (a
// rename's rewrite) and approvals.ts (decisions); it imports none of them, so none closes an import circle.
import { and, eq } from 'drizzle-orm';
import { auditedBy } from '../../audit/actor.ts';
import { recordAudit } from '../../audit/trail.ts';
import type { Queryable, Tx } from '../../db/pool.ts';
import { conflict } from '../../http/errors.ts';
import { notify } from '../../notifications/index.ts';
import { defaultTenantSettings } from '../../tenants/default-settings.ts';
import { tenants } from '../../tenants/tables.ts';
import { type ApprovalRow, publishSettingsOf } from './approvals-rules.ts';
import { type ApprovalOrigin, definitionApprovals } from './approvals-tables.ts';
import type { DefinitionContext, DefinitionRow, VersionRow } from './context.ts';

/** The tenant's approval settings for definitions as they are now. */
export async function publishSettings(db: Queryable, tenantId: string) {
  const [tenant] = await db
    .select({ settings: tenants.settings })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return publishSettingsOf(tenant?.settings ?? defaultTenantSettings());
}

/** The definition's open request (status open), or null; at most one exists (a partial unique index). */
export async function openApprovalOf(db: Queryable, def: DefinitionRow): Promise<ApprovalRow | null> {
  const [row] = await db
    .select()
    .from(definitionApprovals)
    .where(and(eq(definitionApprovals.definitionId, def.id), eq(definitionApprovals.status, 'open')));
  return row ?? null;
}

/**
 * 409 conflict naming the open request while the definition has one: its draft is pinned until the
 * request is decided, so neither another publish nor a save of the draft may come in between.
 */
export async function assertNoOpenApproval(db: Queryable, def: DefinitionRow, doing: 'publish' | 'save') {
  const open = await openApprovalOf(db, def);
  if (!open) return;
  const noun = def.kind === 'workflow' ? 'workflow' : 'rule set';
  const message =
    doing === 'publish'
      ? `${noun} ${def.key} already awaits approval of version ${open.version}`
      : `version ${open.version} of ${noun} ${def.key} awaits approval: withdraw the request before saving the draft`;
  throw conflict(message, { kind: def.kind, key: def.key, version: open.version, approvalId: open.id });
}

/**
 * Audits an approval's step (definition.approval.requested, .approved, .rejected, .withdrawn) against the
 * request: data { kind, key, version, approvalId, comment? }, never a body.
 */
export const auditApproval = (tx: Tx, ctx: DefinitionContext, action: string, approval: ApprovalRow) =>
  recordAudit(tx, {
    ...auditedBy(ctx),
    action,
    resource: { type: 'definition_approval', id: approval.id },
    data: {
      kind: approval.kind,
      key: approval.key,
      version: approval.version,
      approvalId: approval.id,
      ...(approval.comment === null ? {} : { comment: approval.comment }),
    },
  });

/**
 * Opens the request a held publish asks for: pins `version` (the definition's draft, its row locked by the
 * caller) with the four-eyes setting in force, audits definition.approval.requested and notifies holders of
 * definitions:publish (approval_requested).
 */
export async function requestApproval(
  tx: Tx,
  ctx: DefinitionContext,
  def: DefinitionRow,
  version: VersionRow,
  request: { origin: ApprovalOrigin; fourEyes: boolean },
): Promise<ApprovalRow> {
  const [row] = await tx
    .insert(definitionApprovals)
    .values({
      tenantId: def.tenantId,
      definitionId: def.id,
      kind: def.kind,
      key: def.key,
      versionId: version.id,
      version: version.version,
      origin: request.origin,
      fourEyes: request.fourEyes,
      requestedBy: ctx.principal.subject,
      requestedByName: ctx.principal.name,
    })
    .returning();
  const approval = row as ApprovalRow;
  await auditApproval(tx, ctx, 'definition.approval.requested', approval);
  await notify(tx, {
    tenantId: def.tenantId,
    kind: 'approval_requested',
    audiencePermission: 'definitions:publish',
    resource: { type: 'definition_approval', id: approval.id },
    data: {
      kind: def.kind,
      key: def.key,
      version: version.version,
      approvalId: approval.id,
      requestedBy: ctx.principal.name,
    },
  });
  return approval;
}
