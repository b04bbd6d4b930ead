// `ops tenants review` and `ops tenants quota` through the real command on a real database
// (docs/operations.md "ops tenants review", "ops tenants quota"): each change in the tenant's trail
// (actor operator) and the instance trail (data.tenantId, so `ops audit --tenant` finds it).
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { tenantQuotasOf } from '../../src/calls/tenant-quotas.ts';
import { appReviews, appVersions } from '../../src/catalogue/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import type { Manifest } from '../../src/module/manifest.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { createTestDatabase } from '../support/database.ts';
import { ops, opsJson } from '../support/ops.ts';

let url: string;
let database: Database;
beforeAll(async () => {
  url = await createTestDatabase();
  database = openDatabase(url);
});
afterAll(async () => database?.close());

const OPERATOR = { type: 'operator', id: 'grace', name: 'grace' };
const tenantOf = async (name: string) => (await ensureTenant(database.db, name)).tenant.id;

/** The records of an action about a tenant: its own trail's and the instance trail's. */
async function trails(tenantId: string, action: string) {
  const rows = await database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.resourceId, tenantId)))
    .orderBy(asc(auditEvents.id));
  return rows.map((r) => ({
    trail: r.tenantId === null ? 'instance' : r.tenantId === tenantId ? 'tenant' : 'other',
    actor: { type: r.actorType, id: r.actorId, name: r.actorName },
    data: r.data,
  }));
}

/** A version of the tenant's own under the operator's pending review. */
async function pendingReview(tenantId: string, version: string) {
  const [row] = await database.db
    .insert(appVersions)
    .values({
      publisher: 'tenant',
      tenantId,
      name: 'own-app',
      version,
      status: 'uploaded',
      sha256: '2'.repeat(64),
      sizeBytes: 1,
      manifest: {} as Manifest,
    })
    .returning();
  const [review] = await database.db
    .insert(appReviews)
    .values({ tenantId, versionId: row?.id as string, status: 'pending', requestedBy: 'user:ada' })
    .returning();
  return review?.id as string;
}

describe('ops tenants review', () => {
  it('turns the review on, audited in the tenant’s trail and the instance trail', async () => {
    const tenantId = await tenantOf('review-on');
    expect(await opsJson(url, ['tenants', 'review', 'review-on', 'on', '--by', 'grace'])).toEqual({
      tenantId,
      tenantName: 'review-on',
      review: 'on',
      withdrawnReviews: 0,
    });
    const [tenant] = await database.db.select().from(tenants).where(eq(tenants.id, tenantId));
    expect(tenant?.appReview).toBe('required');
    const data = { review: 'required', withdrawnReviews: [] };
    expect(await trails(tenantId, 'tenant.app_review.set')).toEqual([
      { trail: 'tenant', actor: OPERATOR, data },
      { trail: 'instance', actor: OPERATOR, data: { ...data, tenantId } },
    ]);
    // The operator finds it by tenant in the instance trail.
    const audit = await opsJson<{ items: { action: string; data: Record<string, unknown> }[] }>(url, [
      'audit',
      '--tenant',
      'review-on',
    ]);
    expect(audit.items.map((e) => [e.action, e.data.tenantId])).toEqual([
      ['tenant.app_review.set', tenantId],
    ]);
  });

  it('turns it off by the tenant’s id, withdrawing its pending reviews', async () => {
    const tenantId = await tenantOf('review-off');
    await opsJson(url, ['tenants', 'review', tenantId, 'on', '--by', 'grace']);
    const reviews = [await pendingReview(tenantId, '1.0.0'), await pendingReview(tenantId, '1.1.0')];
    const result = await ops(url, ['tenants', 'review', tenantId.toUpperCase(), 'off', '--by', 'grace']);
    expect([result.code, result.stdout, result.stderr]).toEqual([
      0,
      'review-off: operator review off (2 pending review(s) withdrawn)\n',
      '',
    ]);
    const rows = await database.db.select().from(appReviews).where(eq(appReviews.tenantId, tenantId));
    expect(rows.map((r) => [r.status, r.decidedBy])).toEqual([
      ['withdrawn', 'grace'],
      ['withdrawn', 'grace'],
    ]);
    const [last] = (await trails(tenantId, 'tenant.app_review.set')).slice(-1);
    expect(last?.data).toEqual({
      review: 'off',
      withdrawnReviews: expect.arrayContaining(reviews),
      tenantId,
    });
  });

  it('refuses an unknown tenant (404 not_found); another state or no --by is a usage error', async () => {
    const unknown = await ops(url, ['tenants', 'review', 'nobody', 'on', '--by', 'grace']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'not_found: no tenant is named nobody\n']);
    const state = await ops(url, ['tenants', 'review', 'review-on', 'maybe', '--by', 'grace']);
    expect(state.code).toBe(2);
    expect(state.stderr).toMatch(/Allowed choices are on, off/);
    expect((await ops(url, ['tenants', 'review', 'review-on', 'on'])).code).toBe(2);
  });
});

describe('ops tenants quota', () => {
  it('sets and replaces a quota, audited in both trails', async () => {
    const tenantId = await tenantOf('quota-set');
    expect(
      await opsJson(url, ['tenants', 'quota', 'quota-set', 'calls', 'month', '1000', '--by', 'grace']),
    ).toEqual({
      tenantId,
      tenantName: 'quota-set',
      quota: { metric: 'calls', period: 'month', max: 1000 },
    });
    const replaced = await ops(url, [
      'tenants',
      'quota',
      'quota-set',
      'calls',
      'month',
      '500',
      '--by',
      'grace',
    ]);
    expect([replaced.code, replaced.stdout]).toEqual([
      0,
      'quota-set: quota of calls per month set to 500; it applies from the next call\n',
    ]);
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([
      { metric: 'calls', period: 'month', max: 500 },
    ]);
    const data = { metric: 'calls', period: 'month', max: 500, previousMax: 1000 };
    expect((await trails(tenantId, 'tenant.app_quota.set')).slice(-2)).toEqual([
      { trail: 'tenant', actor: OPERATOR, data },
      { trail: 'instance', actor: OPERATOR, data: { tenantId, ...data } },
    ]);
  });

  it('removes a quota with none; none when none is set changes nothing and exits 0', async () => {
    const tenantId = await tenantOf('quota-none');
    await opsJson(url, ['tenants', 'quota', 'quota-none', 'http_requests', 'day', '0', '--by', 'grace']);
    expect(
      await opsJson(url, ['tenants', 'quota', 'quota-none', 'http_requests', 'day', 'none', '--by', 'grace']),
    ).toEqual({
      tenantId,
      tenantName: 'quota-none',
      removed: { metric: 'http_requests', period: 'day', max: 0 },
    });
    const removed = { metric: 'http_requests', period: 'day', max: 0 };
    expect(await trails(tenantId, 'tenant.app_quota.removed')).toEqual([
      { trail: 'tenant', actor: OPERATOR, data: removed },
      { trail: 'instance', actor: OPERATOR, data: { tenantId, ...removed } },
    ]);
    const again = await ops(url, [
      'tenants',
      'quota',
      'quota-none',
      'http_requests',
      'day',
      'none',
      '--by',
      'grace',
    ]);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      0,
      'quota-none: no quota of http_requests per day was set; nothing removed\n',
      '',
    ]);
    expect(await trails(tenantId, 'tenant.app_quota.removed')).toHaveLength(2);
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([]);
  });

  it.each([
    ['a metric that is no quota', ['spend', 'day', '5'], /Allowed choices are calls, http_requests/],
    ['a period that is none', ['calls', 'week', '5'], /Allowed choices are day, month/],
    ['a negative max', ['calls', 'day', '-1'], /<max>: expected a non-negative integer or none/],
    ['a fraction', ['calls', 'day', '2.5'], /<max>: expected a non-negative integer or none/],
  ])('%s is a usage error: exit 2, nothing set', async (_case, args, message) => {
    const tenantId = await tenantOf('quota-bad');
    const result = await ops(url, ['tenants', 'quota', 'quota-bad', ...args, '--by', 'grace']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await tenantQuotasOf(database.db, tenantId)).toEqual([]);
  });

  it('refuses an unknown tenant (404 not_found)', async () => {
    const result = await ops(url, [
      'tenants',
      'quota',
      'nobody',
      'calls',
      'day',
      '5',
      '--by',
      'grace',
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'not_found', message: 'no tenant is named nobody' },
    });
  });
});
