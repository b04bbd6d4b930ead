// The operator's reviews of tenants' versions (docs/catalogue.md "Lifecycle"; the commands are
// docs/operations.md "ops apps …"): the changes they make, each in one transaction with its audit records.
import { and, eq } from 'drizzle-orm';
import { operatorActor } from '../audit/actor.ts';
import { recordInBothTrails } from '../audit/both-trails.ts';
import type { Database, Tx } from '../db/pool.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { notify } from '../notifications/index.ts';
import { tenants } from '../tenants/tables.ts';
import { assertNotBlocked } from './blocks.ts';
import { isUuid } from './operator-rules.ts';
import { assertProvenanceAllows } from './provenance/provenance-gate.ts';
import { appReviews, appVersions } from './tables.ts';

export interface ReviewDecision {
  reviewId: string;
  decision: 'approved' | 'rejected';
  /** The operator's name, as given with --by. */
  by: string;
  comment: string | null;
  /** The deployment's APP_SIGNATURES: under `required` only a trusted signer's version is approved. */
  signatures?: 'off' | 'optional' | 'required';
}

type ReviewRow = typeof appReviews.$inferSelect;

function assertDecision(d: Omit<ReviewDecision, 'reviewId'>) {
  if (d.decision === 'rejected' && !d.comment)
    throw new ApiError('validation_error', 'a rejection needs a comment', {
      issues: [{ path: '/comment', message: 'is required' }],
    });
}

/** Decides a review by its id: 404 not_found for none, 409 conflict once decided. */
export async function decideReview(database: Database, d: ReviewDecision) {
  assertDecision(d);
  if (!isUuid(d.reviewId)) throw notFound('no review has that id');
  return database.db.transaction(async (tx) => {
    const [review] = await tx.select().from(appReviews).where(eq(appReviews.id, d.reviewId)).for('update');
    if (!review) throw notFound('no review has that id');
    if (review.status !== 'pending') throw conflict(`the review is already ${review.status}`);
    return decideLocked(tx, review, d);
  });
}

/**
 * Decides the pending review of a version (what `ops apps review approve|reject <versionId>` names): 404
 * not_found when the version has none pending.
 */
export async function decideReviewOfVersion(
  database: Database,
  d: Omit<ReviewDecision, 'reviewId'> & { versionId: string },
) {
  assertDecision(d);
  if (!isUuid(d.versionId)) throw notFound('no pending review of a version with that id');
  return database.db.transaction(async (tx) => {
    const [review] = await tx
      .select()
      .from(appReviews)
      .where(and(eq(appReviews.versionId, d.versionId), eq(appReviews.status, 'pending')))
      .for('update');
    if (!review) throw notFound('no pending review of a version with that id');
    return decideLocked(tx, review, { ...d, reviewId: review.id });
  });
}

/**
 * The decision on a pending review, locked: approving publishes in the same transaction unless the
 * version is no longer uploaded (409 conflict), blocked (409 app_blocked) or, under APP_SIGNATURES
 * required, not from a trusted signer (409 provenance_required); audited in both trails.
 */
async function decideLocked(tx: Tx, review: ReviewRow, d: ReviewDecision) {
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
    assertProvenanceAllows(d.signatures ?? 'off', version);
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
  const actor = operatorActor(d.by);
  if (d.decision === 'approved') {
    await tx
      .update(appVersions)
      .set({ status: 'published', publishedAt: now })
      .where(eq(appVersions.id, version.id));
    await recordInBothTrails(tx, review.tenantId, {
      action: 'app.published',
      actor,
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
  await recordInBothTrails(tx, review.tenantId, { action: 'app.review.decided', actor, resource, data });
  await notify(tx, {
    tenantId: review.tenantId,
    kind: 'app_review_decided',
    audiencePermission: 'apps:publish',
    resource,
    data,
  });
  return decided as ReviewRow;
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
    await recordInBothTrails(tx, tenantId, {
      action: 'tenant.app_review.set',
      actor: operatorActor(by),
      resource: { type: 'tenant', id: tenantId },
      data: { review, withdrawnReviews: withdrawn.map((r) => r.id) },
    });
    return { tenant, withdrawn: withdrawn.length };
  });
}
