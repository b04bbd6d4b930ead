// Publish, approve, reject and withdraw a tenant's version (docs/catalogue.md). Each action locks the
// version row, so two decisions on one version take turns and the second sees the first's result.
import { and, desc, eq } from 'drizzle-orm';
import { decisionRefusal, refusalError } from '../approvals/four-eyes-rules.ts';
import { requestFields } from '../approvals/request-view.ts';
import { auditedBy } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Tx } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { conflict, notFound } from '../http/errors.ts';
import { notify } from '../notifications/index.ts';
import { tenants } from '../tenants/tables.ts';
import { assertNotBlocked } from './blocks.ts';
import { approvedRoute, publishRoute } from './catalogue-rules.ts';
import { assertProvenanceAllows, type SignatureMode } from './provenance/provenance-gate.ts';
import { appPublishRequests, appReviews, appVersions } from './tables.ts';
import { versionSummary } from './views.ts';

type VersionRow = typeof appVersions.$inferSelect;
type RequestRow = typeof appPublishRequests.$inferSelect;

export interface LifecycleContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
  /** APP_SIGNATURES: under required a tenant's version publishes only with a trusted signer. */
  signatures?: SignatureMode;
}

export function approvalView(row: RequestRow, version: Pick<VersionRow, 'name' | 'version'>) {
  return {
    id: row.id,
    versionId: row.versionId,
    name: version.name,
    version: version.version,
    status: row.status,
    ...requestFields(row),
  };
}

/** The tenant's own version of that app, locked for this transaction; another tenant's id is unknown. */
export async function lockOwnVersion(
  tx: Tx,
  tenantId: string,
  name: string,
  id: string,
): Promise<VersionRow> {
  const [row] = await tx
    .select()
    .from(appVersions)
    .where(and(eq(appVersions.id, id), eq(appVersions.name, name), eq(appVersions.tenantId, tenantId)))
    .for('update');
  if (!row) throw notFound('no version of this app has that id');
  return row;
}

export const pendingRequest = async (tx: Tx, versionId: string) =>
  (
    await tx
      .select()
      .from(appPublishRequests)
      .where(and(eq(appPublishRequests.versionId, versionId), eq(appPublishRequests.status, 'pending')))
  )[0] ?? null;

export const pendingReview = async (tx: Tx, versionId: string) =>
  (
    await tx
      .select()
      .from(appReviews)
      .where(and(eq(appReviews.versionId, versionId), eq(appReviews.status, 'pending')))
  )[0] ?? null;

async function tenantOf(tx: Tx, tenantId: string) {
  const [tenant] = await tx.select().from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw notFound('tenant not found');
  return tenant;
}

const blockTarget = (v: VersionRow) => ({
  sha256: v.sha256,
  publisher: v.publisher,
  tenantId: v.tenantId,
  name: v.name,
});

/** A change to a tenant's own version, in its trail, naming the version (data adds the rest). */
const auditVersion = (
  tx: Tx,
  ctx: LifecycleContext,
  action: string,
  version: VersionRow,
  data: Record<string, unknown>,
) =>
  recordAudit(tx, {
    ...auditedBy(ctx),
    action,
    resource: { type: 'app_version', id: version.id },
    data: { name: version.name, version: version.version, ...data },
  });

async function publishNow(tx: Tx, ctx: LifecycleContext, version: VersionRow, via: Record<string, unknown>) {
  const [published] = await tx
    .update(appVersions)
    .set({ status: 'published', publishedAt: new Date() })
    .where(eq(appVersions.id, version.id))
    .returning();
  await auditVersion(tx, ctx, 'app.published', version, { sha256: version.sha256, ...via });
  return published as VersionRow;
}

async function openReview(tx: Tx, ctx: LifecycleContext, version: VersionRow) {
  const [review] = await tx
    .insert(appReviews)
    .values({
      tenantId: ctx.principal.tenantId,
      versionId: version.id,
      status: 'pending',
      requestedBy: ctx.principal.subject,
    })
    .returning();
  return review as typeof appReviews.$inferSelect;
}

export async function publishVersion(ctx: LifecycleContext, name: string, id: string) {
  return ctx.database.db.transaction(async (tx) => {
    const version = await lockOwnVersion(tx, ctx.principal.tenantId, name, id);
    if (version.status !== 'uploaded') throw conflict(`version is ${version.status}, not uploaded`);
    if (await pendingRequest(tx, version.id)) throw conflict('an open publish request awaits a decision');
    if (await pendingReview(tx, version.id)) throw conflict('the version awaits the operator’s review');
    await assertNotBlocked(tx, blockTarget(version));
    // Before any publish request or review opens: neither could end in a publish.
    assertProvenanceAllows(ctx.signatures ?? 'off', version);
    const tenant = await tenantOf(tx, ctx.principal.tenantId);
    const route = publishRoute(tenant.settings, tenant.appReview);
    if (route === 'publish') {
      return {
        status: 200 as const,
        body: { version: versionSummary(await publishNow(tx, ctx, version, {})) },
      };
    }
    if (route === 'operator_review') {
      const review = await openReview(tx, ctx, version);
      return {
        status: 202 as const,
        body: { version: versionSummary(version, review), review: versionSummary(version, review).review },
      };
    }
    const [request] = await tx
      .insert(appPublishRequests)
      .values({
        tenantId: ctx.principal.tenantId,
        versionId: version.id,
        status: 'pending',
        fourEyes: tenant.settings.approvals.fourEyes,
        requestedBy: ctx.principal.subject,
        requestedByName: ctx.principal.name,
      })
      .returning();
    const approval = approvalView(request as RequestRow, version);
    await auditVersion(tx, ctx, 'app.approval.requested', version, { approvalId: approval.id });
    await notify(tx, {
      tenantId: ctx.principal.tenantId,
      kind: 'approval_requested',
      audiencePermission: 'apps:publish',
      resource: { type: 'app_version', id: version.id },
      data: {
        name: version.name,
        version: version.version,
        approvalId: approval.id,
        requestedBy: ctx.principal.name,
      },
    });
    return { status: 202 as const, body: { version: versionSummary(version), approval } };
  });
}

async function decide(
  ctx: LifecycleContext,
  name: string,
  id: string,
  decision: 'approved' | 'rejected',
  comment: string | null,
) {
  return ctx.database.db.transaction(async (tx) => {
    const version = await lockOwnVersion(tx, ctx.principal.tenantId, name, id);
    const request = await pendingRequest(tx, version.id);
    if (!request) throw conflict('no open publish request for this version');
    const refusal = decisionRefusal('publish_request', request, decision, ctx.principal);
    if (refusal) throw refusalError('publish_request', refusal, decision);
    if (decision === 'approved') {
      await assertNotBlocked(tx, blockTarget(version));
      assertProvenanceAllows(ctx.signatures ?? 'off', version);
    }
    const [decided] = await tx
      .update(appPublishRequests)
      .set({ status: decision, decidedBy: ctx.principal.subject, decidedAt: new Date(), comment })
      .where(eq(appPublishRequests.id, request.id))
      .returning();
    const approval = approvalView(decided as RequestRow, version);
    // Every decision, in the tenant's trail (a publish that follows is audited too).
    await auditVersion(tx, ctx, 'app.approval.decided', version, {
      approvalId: approval.id,
      decision: approval.status,
      comment: approval.comment,
    });
    if (decision === 'rejected')
      return { status: 200 as const, body: { version: versionSummary(version), approval } };
    const tenant = await tenantOf(tx, ctx.principal.tenantId);
    if (approvedRoute(tenant.appReview) === 'operator_review') {
      const review = await openReview(tx, ctx, version);
      return {
        status: 202 as const,
        body: {
          version: versionSummary(version, review),
          approval,
          review: versionSummary(version, review).review,
        },
      };
    }
    const published = await publishNow(tx, ctx, version, { approvalId: approval.id });
    return { status: 200 as const, body: { version: versionSummary(published), approval } };
  });
}

export const approveVersion = (ctx: LifecycleContext, name: string, id: string, comment: string | null) =>
  decide(ctx, name, id, 'approved', comment);
export const rejectVersion = (ctx: LifecycleContext, name: string, id: string, comment: string | null) =>
  decide(ctx, name, id, 'rejected', comment);

/**
 * Withdraws a version locked by the caller, with its open publish request and pending review (both become
 * withdrawn, decided by `decidedBy`): what the tenant's own withdraw and the operator's share. Answers
 * the withdrawn row, the ids of the request and review it closed (or null), and the latest review.
 */
export async function withdrawLocked(tx: Tx, version: VersionRow, decidedBy: string) {
  if (version.status === 'withdrawn') throw conflict('version is already withdrawn');
  const now = new Date();
  const [request] = await tx
    .update(appPublishRequests)
    .set({ status: 'withdrawn', decidedBy, decidedAt: now })
    .where(and(eq(appPublishRequests.versionId, version.id), eq(appPublishRequests.status, 'pending')))
    .returning({ id: appPublishRequests.id });
  const [review] = await tx
    .update(appReviews)
    .set({ status: 'withdrawn', decidedBy, decidedAt: now })
    .where(and(eq(appReviews.versionId, version.id), eq(appReviews.status, 'pending')))
    .returning({ id: appReviews.id });
  const [withdrawn] = await tx
    .update(appVersions)
    .set({ status: 'withdrawn', withdrawnAt: now })
    .where(eq(appVersions.id, version.id))
    .returning();
  return {
    withdrawn: withdrawn as VersionRow,
    approvalId: request?.id ?? null,
    reviewId: review?.id ?? null,
    latestReview: await latestReviewOf(tx, version.id),
  };
}

/** The version's newest operator review, whatever its status, or null. */
export async function latestReviewOf(tx: Tx, versionId: string) {
  const [latest] = await tx
    .select()
    .from(appReviews)
    .where(eq(appReviews.versionId, versionId))
    .orderBy(desc(appReviews.requestedAt))
    .limit(1);
  return latest ?? null;
}

/** Withdraws a tenant's own version; its open request and pending review are withdrawn with it. */
export async function withdrawVersion(ctx: LifecycleContext, name: string, id: string) {
  return ctx.database.db.transaction(async (tx) => {
    const version = await lockOwnVersion(tx, ctx.principal.tenantId, name, id);
    const done = await withdrawLocked(tx, version, ctx.principal.subject);
    await auditVersion(tx, ctx, 'app.withdrawn', version, {
      approvalId: done.approvalId,
      reviewId: done.reviewId,
    });
    return versionSummary(done.withdrawn, done.latestReview);
  });
}
