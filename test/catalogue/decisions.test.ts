// Publish requests under the operator's review, decisions without a body, their audit rows, and who
// sees versions through the approvals listing.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { decideReview, setTenantReview } from '../../src/catalogue/reviews.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { expectError } from '../http/expect.ts';
import { catalogueSuite, versionState } from './support.ts';

const suite = catalogueSuite();
const act = suite.act;

const underReview = async (tenant: string) =>
  setTenantReview(suite.platform.database, await suite.platform.tenantId(tenant), 'required', 'olga');
const path = (name: string, id: string, action: string) => `/apps/${name}/versions/${id}/${action}`;
const actions = async (versionId: string) =>
  (await versionState(suite.platform.database, versionId)).audit.map((a) => a.action);

describe('under the operator’s review', () => {
  it('with approvals required, publish opens the tenant’s request first; approving it opens the review', async () => {
    await act.requireApprovals('twofold');
    await underReview('twofold');
    const v = await act.uploaded('twofold', 'screen');
    const publish = await act.post(path('screen', v.id, 'publish'), await act.as('twofold', 'ada'));
    const requested = await publish.json();
    expect(publish.status, JSON.stringify(requested)).toBe(202);
    expect(requested.approval).toMatchObject({ versionId: v.id, status: 'pending', fourEyes: true });
    expect(requested.review).toBeUndefined();
    expect(requested.version).toMatchObject({ status: 'uploaded', review: null });
    let state = await versionState(suite.platform.database, v.id);
    expect(state.reviews).toEqual([]);
    expect(await actions(v.id)).toEqual(['app.uploaded', 'app.approval.requested']);
    const grace = await act.as('twofold', 'grace');
    const notes = await (await suite.platform.fetch('/notifications', { token: grace })).json();
    expect(notes.items[0]).toMatchObject({ kind: 'approval_requested', resource: { id: v.id } });

    const approve = await act.post(path('screen', v.id, 'approve'), grace, { comment: 'fine' });
    const approved = await approve.json();
    expect(approve.status, JSON.stringify(approved)).toBe(202);
    expect(approved.approval).toMatchObject({ status: 'approved', decidedBy: 'user:grace' });
    expect(approved.review).toMatchObject({ versionId: v.id, status: 'pending' });
    expect(approved.version).toMatchObject({ status: 'uploaded', review: { status: 'pending' } });
    state = await versionState(suite.platform.database, v.id);
    expect(state.version?.status).toBe('uploaded');
    expect(state.reviews.map((r) => r.status)).toEqual(['pending']);
    expect(await actions(v.id)).toEqual(['app.uploaded', 'app.approval.requested', 'app.approval.decided']);

    // The operator's approval then publishes it.
    await decideReview(suite.platform.database, {
      reviewId: approved.review.id,
      decision: 'approved',
      by: 'olga',
      comment: null,
    });
    expect((await versionState(suite.platform.database, v.id)).version?.status).toBe('published');
  });

  it('without approvals required, publish opens the operator’s review at once', async () => {
    await underReview('reviewed-only');
    const v = await act.uploaded('reviewed-only', 'screen');
    const publish = await act.post(path('screen', v.id, 'publish'), await act.as('reviewed-only'));
    const body = await publish.json();
    expect(publish.status, JSON.stringify(body)).toBe(202);
    expect(body.review).toMatchObject({ versionId: v.id, status: 'pending' });
    expect(body.approval).toBeUndefined();
    const state = await versionState(suite.platform.database, v.id);
    expect(state.requests).toEqual([]);
    expect(state.reviews.map((r) => r.status)).toEqual(['pending']);
  });
});

describe('approve and reject without a body', () => {
  it('approves with no body at all (no content type), the comment null', async () => {
    await act.requireApprovals('bare', false);
    const v = await act.uploaded('bare', 'screen');
    const ada = await act.as('bare');
    expect((await act.post(path('screen', v.id, 'publish'), ada)).status).toBe(202);
    const response = await suite.platform.fetch(path('screen', v.id, 'approve'), {
      method: 'POST',
      token: ada,
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.approval).toMatchObject({ status: 'approved', comment: null });
    expect(body.version.status).toBe('published');
  });

  it('rejects with no body at all, audited app.approval.decided in the tenant’s trail', async () => {
    await act.requireApprovals('bare-reject');
    const v = await act.uploaded('bare-reject', 'screen');
    const requested = await (
      await act.post(path('screen', v.id, 'publish'), await act.as('bare-reject', 'ada'))
    ).json();
    const grace = await act.as('bare-reject', 'grace');
    const response = await suite.platform.fetch(path('screen', v.id, 'reject'), {
      method: 'POST',
      token: grace,
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.approval).toMatchObject({ status: 'rejected', comment: null, decidedBy: 'user:grace' });
    const audit = await (
      await suite.platform.fetch('/audit-events?action=app.approval.decided', { token: grace })
    ).json();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      actor: { id: 'user:grace' },
      resource: { type: 'app_version', id: v.id },
      data: {
        name: 'screen',
        version: '1.0.0',
        approvalId: requested.approval.id,
        decision: 'rejected',
        comment: null,
      },
    });
  });

  it('still refuses a body that is not the decision’s shape, at its path', async () => {
    await act.requireApprovals('shaped');
    const v = await act.uploaded('shaped', 'screen');
    await act.post(path('screen', v.id, 'publish'), await act.as('shaped', 'ada'));
    const before = await versionState(suite.platform.database, v.id);
    const response = await act.post(path('screen', v.id, 'reject'), await act.as('shaped', 'grace'), {
      comment: 'x'.repeat(2001),
    });
    const error = await expectError(response, 400, 'validation_error');
    expect(error.details).toMatchObject({ issues: [expect.objectContaining({ path: '/comment' })] });
    expect(await versionState(suite.platform.database, v.id)).toEqual(before);
  });
});

describe('who sees versions through the approvals listing', () => {
  it('shows requests of uploaded versions only to holders of apps:publish', async () => {
    await act.requireApprovals('secretive');
    const pending = await act.uploaded('secretive', 'hidden-app');
    const rejected = await act.uploaded('secretive', 'dropped-app');
    const approved = await act.uploaded('secretive', 'public-app');
    const ada = await act.as('secretive', 'ada');
    const grace = await act.as('secretive', 'grace');
    for (const v of [pending, rejected, approved])
      expect((await act.post(path(v.name, v.id, 'publish'), ada)).status).toBe(202);
    expect((await act.post(path(rejected.name, rejected.id, 'reject'), grace, {})).status).toBe(200);
    expect((await act.post(path(approved.name, approved.id, 'approve'), grace, {})).status).toBe(200);

    const names = async (token: string, query: string) =>
      (await (await suite.platform.fetch(`/apps/approvals?open=${query}`, { token })).json()).items.map(
        (a: { name: string }) => a.name,
      );
    expect(await names(grace, 'true')).toEqual(['hidden-app']);
    expect((await names(grace, 'false')).sort()).toEqual(['dropped-app', 'public-app']);
    const analyst = await act.as('secretive', 'ann', ['analyst']);
    expect(await names(analyst, 'true')).toEqual([]);
    expect(await names(analyst, 'false')).toEqual(['public-app']);

    // The other listings agree: the analyst sees the published app only.
    const apps = await (await suite.platform.fetch('/apps', { token: analyst })).json();
    expect(apps.items.map((a: { name: string }) => a.name)).toEqual(['public-app']);
    for (const hidden of ['hidden-app', 'dropped-app']) {
      for (const route of [`/apps/${hidden}`, `/apps/${hidden}/versions`])
        await expectError(await suite.platform.fetch(route, { token: analyst }), 404, 'not_found');
    }
  });

  it('pages the listing with limit and offset, the total counting only what the caller sees', async () => {
    await act.requireApprovals('pager');
    const ada = await act.as('pager', 'ada');
    const grace = await act.as('pager', 'grace');
    const versions = [];
    for (const name of ['first-app', 'second-app', 'third-app']) {
      const v = await act.uploaded('pager', name);
      expect((await act.post(path(v.name, v.id, 'publish'), ada)).status).toBe(202);
      versions.push(v);
    }
    const page = async (query: string, token = grace) => {
      const answer = await suite.platform.fetch(`/apps/approvals?${query}`, { token });
      expect(answer.status, query).toBe(200);
      const body = await answer.json();
      return { names: body.items.map((a: { name: string }) => a.name), total: body.total };
    };
    expect(await page('limit=2')).toEqual({ names: ['first-app', 'second-app'], total: 3 });
    expect(await page('limit=2&offset=2')).toEqual({ names: ['third-app'], total: 3 });
    // Requests of versions still uploaded are not the analyst's to see, nor to count.
    expect(await page('limit=1', await act.as('pager', 'ann', ['analyst']))).toEqual({ names: [], total: 0 });
    for (const [query, at] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['open=maybe', 'query.open'],
    ]) {
      const error = await expectError(
        await suite.platform.fetch(`/apps/approvals?${query}`, { token: grace }),
        400,
        'validation_error',
      );
      expect(error.details, query).toMatchObject({ issues: [expect.objectContaining({ path: at })] });
    }
  });
});

describe('blocks on the catalogue’s reads', () => {
  it('shows the oldest block in force covering each version: its module, or its whole app', async () => {
    const tenantId = await suite.platform.tenantId('guarded');
    const older = await act.uploaded('guarded', 'guarded-app', '1.0.0');
    await act.uploaded('guarded', 'guarded-app', '1.1.0');
    // Another tenant's app of the same name is not covered by this tenant's app block.
    await act.uploaded('bystander', 'guarded-app', '1.0.0');
    const token = await act.as('guarded');
    const blocksOf = async (as = token) => {
      const answer = await suite.platform.fetch('/apps/guarded-app/versions', { token: as });
      const body = await answer.json();
      return body.items.map((v: { version: string; block: unknown }) => [v.version, v.block]);
    };
    expect(await blocksOf()).toEqual([
      ['1.1.0', null],
      ['1.0.0', null],
    ]);

    const db = suite.platform.database.db;
    const [version] = await db.select().from(appVersions).where(eq(appVersions.id, older.id));
    const [byHash] = await db
      .insert(appBlocks)
      .values({
        sha256: version?.sha256,
        reason: 'leaks keys',
        createdBy: 'olga',
        createdAt: new Date('2030-01-01T00:00:00Z'),
      })
      .returning();
    await db.insert(appBlocks).values({
      publisher: 'tenant',
      publisherTenantId: tenantId,
      appName: 'guarded-app',
      reason: 'under review',
      createdBy: 'olga',
      createdAt: new Date('2030-01-02T00:00:00Z'),
    });
    const app = { scope: 'app', reason: 'under review', blockedAt: '2030-01-02T00:00:00.000Z' };
    expect(await blocksOf()).toEqual([
      ['1.1.0', app],
      ['1.0.0', { scope: 'module', reason: 'leaks keys', blockedAt: '2030-01-01T00:00:00.000Z' }],
    ]);
    const entry = await (await suite.platform.fetch('/apps/guarded-app', { token })).json();
    expect(entry.latest.block).toEqual(app);
    expect(entry.items.map((v: { block: { scope: string } }) => v.block.scope)).toEqual(['app', 'module']);
    const listed = await (await suite.platform.fetch('/apps', { token })).json();
    expect(listed.items.find((a: { name: string }) => a.name === 'guarded-app').latest.block).toEqual(app);

    // A lifted block is no longer in force.
    await db
      .update(appBlocks)
      .set({ liftedAt: new Date(), liftedBy: 'olga' })
      .where(eq(appBlocks.id, byHash?.id as string));
    expect(await blocksOf()).toEqual([
      ['1.1.0', app],
      ['1.0.0', app],
    ]);
    expect(await blocksOf(await act.as('bystander'))).toEqual([['1.0.0', null]]);
  });
});
