// The operator's reviews of tenants' versions (docs/catalogue.md "Lifecycle"). The operator's commands come
// with the ops issue; these are the changes they make, each in one transaction with its audit records.
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Tx } from '../db/pool.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { notify } from '../notifications/service.ts';
import { tenants } from '../tenants/tables.ts';
import { assertNotBlocked } from './blocks.ts';
import { appReviews, appVersions } from './tables.ts';

export interface ReviewDecision {
  reviewId: string;
  decision: 'approved' | 'rejected';
  /** The operator's name, as given with --by. */
  by: string;
  comment: string | null;
}

const operator = (name: string) => ({ type: 'operator' as const, id: name, name });

/** Both trails: the tenant's, where it reads the decision, and the operator's own instance trail. */
async function auditBoth(
  tx: Tx,
  tenantId: string,
  entry: Omit<Parameters<typeof recordAudit>[1], 'tenantId'>,
) {
  await recordAudit(tx, { ...entry, tenantId });
  await recordAudit(tx, { ...entry, tenantId: null, data: { ...entry.data, tenantId } });
}

export async function decideReview(database: Database, d: ReviewDecision) {
  if (d.decision === 'rejected' && !d.comment)
    throw new ApiError('validation_error', 'a rejection needs a comment', {
      issues: [{ path: '/comment', message: 'is required' }],
    });
  return database.db.transaction(async (tx) => {
    const [review] = await tx.select().from(appReviews).where(eq(appReviews.id, d.reviewId)).for('update');
    if (!review) throw notFound('no review has that id');
    if (review.status !== 'pending') throw conflict(`the review is already ${review.status}`);
    const [version] = await tx
      .select()
      .from(appVersions)
      .where(eq(appVersions.id, review.versionId))
      .for('update');
    if (!version) throw notFound('the reviewed version is gone');
    if (d.decision === 'approved') {
      if (version.status !== 'uploaded') throw conflict(`version is ${version.status}, no longer uploaded`);
      await assertNotBlocked(tx, {
        sha256: version.sha256,
        publisher: version.publisher,
        tenantId: version.tenantId,
        name: version.name,
      });
    }
    const now = new Date();
    const [decided] = await tx
      .update(appReviews)
      .set({ status: d.decision, decidedBy: d.by, decidedAt: now, comment: d.comment })
      .where(eq(appReviews.id, review.id))
      .returning();
    const data = {
      name: version.name,
      version: version.version,
      reviewId: review.id,
      decision: d.decision,
      comment: d.comment,
    };
    const resource = { type: 'app_version', id: version.id };
    if (d.decision === 'approved') {
      await tx
        .update(appVersions)
        .set({ status: 'published', publishedAt: now })
        .where(eq(appVersions.id, version.id));
      await auditBoth(tx, review.tenantId, {
        action: 'app.published',
        actor: operator(d.by),
        resource,
        data: {
          name: version.name,
          version: version.version,
          sha256: version.sha256,
          via: 'review',
          reviewId: review.id,
        },
      });
    }
    await auditBoth(tx, review.tenantId, {
      action: 'app.review.decided',
      actor: operator(d.by),
      resource,
      data,
    });
    await notify(tx, {
      tenantId: review.tenantId,
      kind: 'app_review_decided',
      audiencePermission: 'apps:publish',
      resource,
      data,
    });
    return decided as typeof appReviews.$inferSelect;
  });
}

/**
 * Turns one tenant's operator review on or off; off withdraws its pending reviews (the tenant publishes
 * itself). Audited tenant.app_review.set in the tenant's trail and the instance trail (with data.tenantId).
 */
export async function setTenantReview(
  database: Database,
  tenantId: string,
  review: 'off' | 'required',
  by: string,
) {
  return database.db.transaction(async (tx) => {
    const [tenant] = await tx
      .update(tenants)
      .set({ appReview: review, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
      .returning();
    if (!tenant) throw notFound('no tenant has that id');
    const withdrawn =
      review === 'off'
        ? await tx
            .update(appReviews)
            .set({ status: 'withdrawn', decidedBy: by, decidedAt: new Date() })
            .where(and(eq(appReviews.tenantId, tenantId), eq(appReviews.status, 'pending')))
            .returning({ id: appReviews.id })
        : [];
    await auditBoth(tx, tenantId, {
      action: 'tenant.app_review.set',
      actor: operator(by),
      resource: { type: 'tenant', id: tenantId },
      data: { review, withdrawnReviews: withdrawn.map((r) => r.id) },
    });
    return { tenant, withdrawn: withdrawn.length };
  });
}
