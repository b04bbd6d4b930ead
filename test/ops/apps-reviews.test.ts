// `ops apps reviews` and `apps review approve|reject <versionId>` through the real command on the
// platform's database (docs/operations.md "ops apps review"): pending reviews oldest first, approving
// publishes in the same transaction (refused when blocked, no longer uploaded or untrusted under
// APP_SIGNATURES required), rejecting needs a comment, both trails and the tenant's notification.

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appReviews, appVersions } from '../../src/catalogue/tables.ts';
import { ok } from '../installs/support.ts';
import { keylessPolicy, keylessRecord } from '../support/sigstore.ts';
import { appsSuite, column, expectNoRawControls, HOSTILE, HOSTILE_ESCAPED } from './apps-support.ts';

const suite = appsSuite();

interface ListedReview {
  id: string;
  versionId: string;
  tenant: string;
  name: string;
  status: string;
  requestedBy: string;
  comment: string | null;
  [key: string]: unknown;
}

const reviews = async (...flags: string[]) =>
  (await suite.json<{ items: ListedReview[] }>(['apps', 'reviews', ...flags])).items;

async function versionOf(tenant: string, name: string) {
  const response = await suite.platform.fetch(`/apps/${name}/versions`, { token: await suite.as(tenant) });
  return (await ok<{ items: Record<string, unknown>[] }>(response)).items[0];
}

const reviewRow = async (versionId: string) =>
  (await suite.platform.database.db.select().from(appReviews).where(eq(appReviews.versionId, versionId)))[0];

describe('ops apps reviews', () => {
  it('lists pending reviews oldest first (JSON and table); --all adds decided ones', async () => {
    const first = await suite.underReview('rv-list', 'first-app');
    const second = await suite.underReview('rv-list', 'second-app');
    const pending = (await reviews()).filter((r) => r.tenant === 'rv-list');
    expect(pending).toEqual([
      {
        id: expect.any(String),
        tenantId: await suite.tenantId('rv-list'),
        versionId: first.id,
        status: 'pending',
        requestedBy: 'user:ada',
        requestedAt: expect.any(String),
        decidedBy: null,
        decidedAt: null,
        comment: null,
        tenant: 'rv-list',
        name: 'first-app',
        version: '1.0.0',
        sha256: first.sha256,
        block: null,
      },
      expect.objectContaining({ versionId: second.id, name: 'second-app' }),
    ]);
    const table = await suite.run(['apps', 'reviews']);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^VERSION ID\s+TENANT\s+APP\s+VERSION\s+STATUS\s+REQUESTED BY\s+REQUESTED AT\s+DECIDED BY\s+COMMENT\s+BLOCK$/,
    );
    const ids = column(table.stdout, 'VERSION ID');
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
    expect(column(table.stdout, 'STATUS')[ids.indexOf(first.id)]).toBe('pending');
    expect(column(table.stdout, 'REQUESTED BY')[ids.indexOf(first.id)]).toBe('user:ada');

    await suite.json(['apps', 'review', 'reject', first.id, '--comment', 'no', '--by', 'olga']);
    expect((await reviews()).map((r) => r.versionId)).not.toContain(first.id);
    expect((await reviews('--all')).find((r) => r.versionId === first.id)).toMatchObject({
      status: 'rejected',
      decidedBy: 'olga',
      comment: 'no',
    });
  });
});

describe('ops apps review approve', () => {
  it('publishes the version in the same transaction, audited in both trails, the tenant notified', async () => {
    const version = await suite.underReview('rv-ok', 'approved-app');
    const tenantId = await suite.tenantId('rv-ok');
    const { review } = await suite.json<{ review: Record<string, unknown> }>([
      'apps',
      'review',
      'approve',
      version.id,
      '--comment',
      'looks fine',
      '--by',
      'olga',
    ]);
    expect(review).toMatchObject({
      versionId: version.id,
      status: 'approved',
      decidedBy: 'olga',
      comment: 'looks fine',
    });
    expect(await versionOf('rv-ok', 'approved-app')).toMatchObject({
      status: 'published',
      review: { status: 'approved', decidedBy: 'olga', comment: 'looks fine' },
    });
    const actor = { actorType: 'operator', actorId: 'olga', actorName: 'olga' };
    const [published] = await suite.trail('rv-ok', 'app.published');
    expect(published).toMatchObject({ ...actor, resourceType: 'app_version', resourceId: version.id });
    expect(published?.data).toEqual({
      name: 'approved-app',
      version: '1.0.0',
      sha256: version.sha256,
      via: 'review',
      reviewId: review.id,
    });
    const decided = {
      name: 'approved-app',
      version: '1.0.0',
      reviewId: review.id,
      decision: 'approved',
      comment: 'looks fine',
    };
    expect((await suite.trail('rv-ok', 'app.review.decided')).map((r) => r.data)).toEqual([decided]);
    const instance = (await suite.trail(null, 'app.review.decided')).filter(
      (r) => r.resourceId === version.id,
    );
    expect(instance.map((r) => r.data)).toEqual([{ ...decided, tenantId }]);
    expect(
      (await suite.trail(null, 'app.published')).filter((r) => r.resourceId === version.id),
    ).toHaveLength(1);
    const notes = await ok<{ items: { kind: string; data: unknown }[] }>(
      await suite.platform.fetch('/notifications', { token: await suite.as('rv-ok') }),
    );
    expect(notes.items.filter((n) => n.kind === 'app_review_decided')).toEqual([
      expect.objectContaining({ data: decided }),
    ]);
  });

  it('prints one line', async () => {
    const version = await suite.underReview('rv-line', 'line-app');
    const result = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^approved and published: version ${version.id} \\(review [0-9a-f-]{36}\\)\\n$`),
    );
  });

  it('a blocked version: exit 1, app_blocked, the review still pending', async () => {
    const version = await suite.underReview('rv-blocked', 'blocked-app');
    await suite.json(['apps', 'block', '--sha256', version.sha256, '--reason', 'bad', '--by', 'olga']);
    const result = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga']);
    expect([result.code, result.stderr]).toEqual([
      1,
      'app_blocked: this module is blocked by the operator\n',
    ]);
    const asJson = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga', '--json']);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: 'app_blocked',
        message: expect.any(String),
        details: { sha256: version.sha256, reason: 'bad' },
      },
    });
    expect((await reviewRow(version.id))?.status).toBe('pending');
    expect(
      (await suite.json<{ items: ListedReview[] }>(['apps', 'reviews'])).items.find(
        (r) => r.versionId === version.id,
      ),
    ).toMatchObject({
      block: { scope: 'module', reason: 'bad' },
    });
  });

  it('a version no longer uploaded: exit 1, conflict', async () => {
    const version = await suite.underReview('rv-gone', 'gone-app');
    await suite.platform.database.db
      .update(appVersions)
      .set({ status: 'withdrawn' })
      .where(eq(appVersions.id, version.id));
    const result = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga']);
    expect([result.code, result.stderr]).toEqual([1, 'conflict: version is withdrawn, no longer uploaded\n']);
    expect((await reviewRow(version.id))?.status).toBe('pending');
  });

  it('under APP_SIGNATURES required, only a trusted signer’s version: exit 1, provenance_required', async () => {
    const version = await suite.underReview('rv-signed', 'signed-app');
    const env = { APP_SIGNATURES: 'required', APP_TRUSTED_SIGNERS: keylessPolicy('ci', 'ci@acme.test') };
    const unsigned = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga', '--json'], {
      env,
    });
    expect(unsigned.code).toBe(1);
    expect(JSON.parse(unsigned.stderr).error).toMatchObject({
      code: 'provenance_required',
      details: { reason: 'unsigned' },
    });
    const db = suite.platform.database.db;
    await db
      .update(appVersions)
      .set({ provenance: keylessRecord('stranger@acme.test') })
      .where(eq(appVersions.id, version.id));
    const untrusted = await suite.run(['apps', 'review', 'approve', version.id, '--by', 'olga', '--json'], {
      env,
    });
    expect(JSON.parse(untrusted.stderr).error).toMatchObject({ details: { reason: 'untrusted' } });
    expect((await reviewRow(version.id))?.status).toBe('pending');
    await db
      .update(appVersions)
      .set({ provenance: keylessRecord('ci@acme.test') })
      .where(eq(appVersions.id, version.id));
    await suite.json(['apps', 'review', 'approve', version.id, '--by', 'olga'], { env });
    expect((await reviewRow(version.id))?.status).toBe('approved');
  });

  it('no pending review of that version: exit 1, not_found', async () => {
    const published = await suite.published('rv-none', 'plain-app');
    for (const id of [published.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const result = await suite.run(['apps', 'review', 'approve', id, '--by', 'olga']);
      expect([result.code, result.stderr]).toEqual([
        1,
        'not_found: no pending review of a version with that id\n',
      ]);
    }
  });
});

describe('ops apps review reject', () => {
  it('leaves the version uploaded; the tenant reads the comment', async () => {
    const version = await suite.underReview('rv-no', 'rejected-app');
    const result = await suite.run([
      'apps',
      'review',
      'reject',
      version.id,
      '--comment',
      'calls an unknown host',
      '--by',
      'olga',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^rejected: version ${version.id} \\(review [0-9a-f-]{36}\\)\\n$`),
    );
    expect(await versionOf('rv-no', 'rejected-app')).toMatchObject({
      status: 'uploaded',
      review: { status: 'rejected', decidedBy: 'olga', comment: 'calls an unknown host' },
    });
    const [decided] = await suite.trail('rv-no', 'app.review.decided');
    expect(decided).toMatchObject({ actorType: 'operator', actorId: 'olga' });
    expect(decided?.data).toMatchObject({ decision: 'rejected', comment: 'calls an unknown host' });
    const again = await suite.run(['apps', 'review', 'reject', version.id, '--comment', 'x', '--by', 'olga']);
    expect([again.code, again.stderr]).toEqual([
      1,
      'not_found: no pending review of a version with that id\n',
    ]);
  });

  it.each([
    ['without --comment', 'usage-a', ['--by', 'olga']],
    ['with an empty --comment', 'usage-b', ['--comment', '  ', '--by', 'olga']],
    ['without --by', 'usage-c', ['--comment', 'c']],
    ['with a --by of 101 characters', 'usage-d', ['--comment', 'c', '--by', 'x'.repeat(101)]],
  ])('%s is a usage error: exit 2, the review still pending', async (_case, app, flags) => {
    const version = await suite.underReview('rv-usage', app as string);
    const result = await suite.run(['apps', 'review', 'reject', version.id, ...(flags as string[])]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect((await reviewRow(version.id))?.status).toBe('pending');
  });
});

describe('hostile text', () => {
  it('prints a requester, a comment and an operator name escaped in the reviews table', async () => {
    const token = await suite.as('rv-hostile', 'mallory', HOSTILE);
    const version = await suite.underReview('rv-hostile', 'hostile-review', '1.0.0', token);
    await suite.json(['apps', 'review', 'reject', version.id, '--comment', HOSTILE, '--by', HOSTILE]);
    const result = await suite.run(['apps', 'reviews', '--all']);
    expectNoRawControls(result.stdout);
    const at = column(result.stdout, 'VERSION ID').indexOf(version.id);
    expect(column(result.stdout, 'REQUESTED BY')[at]).toBe(HOSTILE_ESCAPED);
    expect(column(result.stdout, 'DECIDED BY')[at]).toBe(HOSTILE_ESCAPED);
    expect(column(result.stdout, 'COMMENT')[at]).toBe(HOSTILE_ESCAPED);
    const list = await suite.run(['apps', 'list', '--tenant', 'rv-hostile']);
    expectNoRawControls(list.stdout);
    expect(column(list.stdout, 'REVIEW')).toEqual([`rejected by ${HOSTILE_ESCAPED}`]);
  });
});
