import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { decideReview, setTenantReview } from '../../src/catalogue/reviews.ts';
import { appBlocks, appReviews } from '../../src/catalogue/tables.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { appModule, type CataloguePlatform, startCataloguePlatform } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

async function underReview(tenant: string, name: string) {
  const token = await platform.token({ tenant });
  const upload = await platform.upload(await appModule(name, '1.0.0'), token);
  const uploaded = await upload.json();
  expect(upload.status, JSON.stringify(uploaded)).toBe(201);
  await platform.database.db.update(tenants).set({ appReview: 'required' }).where(eq(tenants.name, tenant));
  const response = await platform.fetch(`/apps/${name}/versions/${uploaded.id}/publish`, {
    method: 'POST',
    token,
  });
  expect(response.status).toBe(202);
  const { review } = await response.json();
  return {
    token,
    versionId: uploaded.id as string,
    reviewId: review.id as string,
    sha256: uploaded.sha256 as string,
  };
}

describe('operator review decisions', () => {
  it('approving publishes the version, audited app.published via review and app.review.decided in both trails', async () => {
    const { token, versionId, reviewId } = await underReview('rev-a', 'screen');
    const decided = await decideReview(platform.database, {
      reviewId,
      decision: 'approved',
      by: 'olga',
      comment: null,
    });
    expect(decided).toMatchObject({ status: 'approved', decidedBy: 'olga' });
    const versions = await (await platform.fetch('/apps/screen/versions', { token })).json();
    expect(versions.items[0]).toMatchObject({
      id: versionId,
      status: 'published',
      review: { status: 'approved', decidedBy: 'olga' },
    });
    const published = await (await platform.fetch('/audit-events?action=app.published', { token })).json();
    expect(published.items[0]).toMatchObject({
      actor: { type: 'operator', id: 'olga' },
      data: { via: 'review', reviewId },
    });
    const decidedAudit = await (
      await platform.fetch('/audit-events?action=app.review.decided', { token })
    ).json();
    expect(decidedAudit.items[0].data).toMatchObject({ decision: 'approved', reviewId });
    const instance = await platform.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'app.review.decided'));
    expect(instance.some((e) => e.tenantId === null)).toBe(true);
    const notes = await (await platform.fetch('/notifications', { token })).json();
    expect(notes.items[0]).toMatchObject({ kind: 'app_review_decided' });
  });

  it('rejecting needs a comment, leaves the version uploaded, and the tenant reads the comment', async () => {
    const { token, reviewId } = await underReview('rev-b', 'screen');
    await expect(
      decideReview(platform.database, { reviewId, decision: 'rejected', by: 'olga', comment: null }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    await decideReview(platform.database, {
      reviewId,
      decision: 'rejected',
      by: 'olga',
      comment: 'calls an unknown host',
    });
    const versions = await (await platform.fetch('/apps/screen/versions', { token })).json();
    expect(versions.items[0]).toMatchObject({
      status: 'uploaded',
      review: { status: 'rejected', comment: 'calls an unknown host' },
    });
    await expect(
      decideReview(platform.database, { reviewId, decision: 'approved', by: 'olga', comment: null }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('refuses approving a blocked module', async () => {
    const { reviewId, sha256 } = await underReview('rev-c', 'screen');
    await platform.database.db.insert(appBlocks).values({ sha256, reason: 'bad', createdBy: 'op' });
    await expect(
      decideReview(platform.database, { reviewId, decision: 'approved', by: 'olga', comment: null }),
    ).rejects.toMatchObject({ code: 'app_blocked' });
    const [review] = await platform.database.db.select().from(appReviews).where(eq(appReviews.id, reviewId));
    expect(review?.status).toBe('pending');
  });

  it('turning a tenant’s review off withdraws its pending reviews', async () => {
    const { reviewId } = await underReview('rev-d', 'screen-d');
    const tenantId = await platform.tenantId('rev-d');
    const result = await setTenantReview(platform.database, tenantId, 'off', 'olga');
    expect(result.withdrawn).toBe(1);
    const [review] = await platform.database.db.select().from(appReviews).where(eq(appReviews.id, reviewId));
    expect(review?.status).toBe('withdrawn');
  });
});
