// `ops apps versions withdraw <versionId>` through the real command on the platform's database
// (docs/operations.md "ops apps versions withdraw"): a tenant's version withdrawn whatever its status, its
// open publish request and pending review withdrawn with it, audited with via operator in both trails.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appPublishRequests, appReviews, appVersions } from '../../src/catalogue/tables.ts';
import { catalogueActions } from '../catalogue/support.ts';
import { ok } from '../installs/support.ts';
import { appsSuite } from './apps-support.ts';

const suite = appsSuite();
const act = catalogueActions(() => suite.platform);

interface Outcome {
  version: Record<string, unknown>;
  tenantId: string;
  approvalId: string | null;
  reviewId: string | null;
  installs: { id: string; name: string }[];
  rollback: string[];
}

const statusOf = async (id: string) =>
  (await suite.platform.database.db.select().from(appVersions).where(eq(appVersions.id, id)))[0]?.status;

describe('ops apps versions withdraw', () => {
  it('withdraws a published version; installs keep running it; audited via operator in both trails', async () => {
    const version = await suite.published('wd-a', 'withdrawn-app');
    const installId = await suite.install('wd-a', 'keeps', version.id);
    const tenantId = await suite.tenantId('wd-a');
    const outcome = await suite.json<Outcome>([
      'apps',
      'versions',
      'withdraw',
      version.id,
      '--reason',
      'licence revoked',
      '--by',
      'olga',
    ]);
    expect(outcome).toMatchObject({
      version: { id: version.id, status: 'withdrawn', publisher: 'tenant' },
      tenantId,
      approvalId: null,
      reviewId: null,
      installs: [{ id: installId, name: 'keeps', tenant: 'wd-a', autoUpgrade: 'off' }],
      // A tenant's app never upgrades automatically: nothing to roll back.
      rollback: null,
    });
    expect(await statusOf(version.id)).toBe('withdrawn');
    const data = {
      name: 'withdrawn-app',
      version: '1.0.0',
      via: 'operator',
      reason: 'licence revoked',
      approvalId: null,
      reviewId: null,
    };
    const [own] = await suite.trail('wd-a', 'app.withdrawn');
    expect(own).toMatchObject({
      actorType: 'operator',
      actorId: 'olga',
      actorName: 'olga',
      resourceType: 'app_version',
      resourceId: version.id,
    });
    expect(own?.data).toEqual(data);
    const instance = (await suite.trail(null, 'app.withdrawn')).filter((r) => r.resourceId === version.id);
    expect(instance.map((r) => r.data)).toEqual([{ ...data, tenantId }]);
    // The install still answers its test call on the withdrawn version.
    expect((await ok<{ status: string }>(await suite.testCall('wd-a', 'keeps'))).status).toBe('success');
  });

  it('withdraws an uploaded version under review: the review becomes withdrawn', async () => {
    const version = await suite.underReview('wd-review', 'reviewed-app');
    const outcome = await suite.json<Outcome>([
      'apps',
      'versions',
      'withdraw',
      version.id,
      '--reason',
      'r',
      '--by',
      'olga',
    ]);
    const [review] = await suite.platform.database.db
      .select()
      .from(appReviews)
      .where(eq(appReviews.versionId, version.id));
    expect(review).toMatchObject({ status: 'withdrawn', decidedBy: 'olga' });
    expect(outcome.reviewId).toBe(review?.id);
    expect(outcome.version).toMatchObject({
      status: 'withdrawn',
      review: { id: review?.id, status: 'withdrawn' },
    });
    const [audit] = await suite.trail('wd-review', 'app.withdrawn');
    expect(audit?.data).toMatchObject({ via: 'operator', reviewId: review?.id, approvalId: null });
  });

  it('withdraws a version with an open publish request: the request becomes withdrawn; one line printed', async () => {
    const token = await suite.as('wd-request');
    await act.requireApprovals('wd-request');
    const version = await suite.uploaded('wd-request', 'requested-app', '1.0.0', token);
    await ok(
      await suite.platform.fetch(`/apps/requested-app/versions/${version.id}/publish`, {
        method: 'POST',
        token,
      }),
      202,
    );
    const result = await suite.run([
      'apps',
      'versions',
      'withdraw',
      version.id,
      '--reason',
      'r',
      '--by',
      'olga',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`withdrew requested-app 1.0.0 (${version.id}): 0 installs still run it\n`);
    const [request] = await suite.platform.database.db
      .select()
      .from(appPublishRequests)
      .where(eq(appPublishRequests.versionId, version.id));
    expect(request).toMatchObject({ status: 'withdrawn', decidedBy: 'olga' });
    const [audit] = await suite.trail('wd-request', 'app.withdrawn');
    expect(audit?.data).toMatchObject({ via: 'operator', approvalId: request?.id, reviewId: null });
  });

  it('refuses a platform version and an unknown id: exit 1, conflict or not_found', async () => {
    const ids = await suite.platformApp('wd-platform', ['1.0.0']);
    const platform = await suite.run([
      'apps',
      'versions',
      'withdraw',
      ids.get('1.0.0') as string,
      '--reason',
      'r',
      '--by',
      'o',
    ]);
    expect([platform.code, platform.stderr]).toEqual([
      1,
      'conflict: a platform version: use ops platform withdraw\n',
    ]);
    expect(await statusOf(ids.get('1.0.0') as string)).toBe('published');

    for (const id of ['00000000-0000-4000-8000-000000000000', 'x']) {
      const unknown = await suite.run([
        'apps',
        'versions',
        'withdraw',
        id,
        '--reason',
        'r',
        '--by',
        'o',
        '--json',
      ]);
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.stderr)).toEqual({
        error: { code: 'not_found', message: 'no version has that id' },
      });
    }
  });

  it('answers a version already withdrawn as it stands: exit 0, nothing changed or recorded again', async () => {
    const version = await suite.published('wd-twice', 'twice-app');
    const installId = await suite.install('wd-twice', 'stays', version.id);
    const first = await suite.json<Outcome & { alreadyWithdrawn: boolean }>([
      'apps',
      'versions',
      'withdraw',
      version.id,
      '--reason',
      'r',
      '--by',
      'o',
    ]);
    expect(first.alreadyWithdrawn).toBe(false);
    const [before] = await suite.platform.database.db
      .select()
      .from(appVersions)
      .where(eq(appVersions.id, version.id));
    const again = await suite.json<Outcome & { alreadyWithdrawn: boolean }>([
      'apps',
      'versions',
      'withdraw',
      version.id,
      '--reason',
      'another reason',
      '--by',
      'p',
    ]);
    expect(again).toEqual({ ...first, alreadyWithdrawn: true });
    expect(again.installs.map((i) => i.id)).toEqual([installId]);
    const [after] = await suite.platform.database.db
      .select()
      .from(appVersions)
      .where(eq(appVersions.id, version.id));
    expect(after?.withdrawnAt).toEqual(before?.withdrawnAt);
    const trail = await suite.trail('wd-twice', 'app.withdrawn');
    expect(trail.map((r) => r.data.reason)).toEqual(['r']);
    const instance = (await suite.trail(null, 'app.withdrawn')).filter((r) => r.resourceId === version.id);
    expect(instance).toHaveLength(1);
    const text = await suite.run(['apps', 'versions', 'withdraw', version.id, '--reason', 'r', '--by', 'o']);
    expect([text.code, text.stdout, text.stderr]).toEqual([
      0,
      `twice-app 1.0.0 (${version.id}) was already withdrawn: 1 install still runs it\n`,
      '',
    ]);
  });

  it.each([
    ['no --reason', ['--by', 'o']],
    ['an empty --reason', ['--reason', '', '--by', 'o']],
    ['no --by', ['--reason', 'r']],
    ['a --by of 101 characters', ['--reason', 'r', '--by', 'o'.repeat(101)]],
  ])('%s is a usage error: exit 2, nothing withdrawn', async (_case, flags) => {
    const version = await suite.published('wd-usage', `usage-${_case.length}`);
    const result = await suite.run(['apps', 'versions', 'withdraw', version.id, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(await statusOf(version.id)).toBe('published');
  });
});
