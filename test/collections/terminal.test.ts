// The collection terminal's two reports through the real api (docs/handoff.md "A new link", "Drop-off
// events"): an applicant whose link expired asks for a new one with the expired token (audited
// collection.submission.link_requested, once a quarter of an hour), and the applicant's page reports the
// step at which they left (stored once per step, swept after RETENTION_SUBMISSION_EVENT_DAYS, at least 90).
import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { MAX_DROP_OFF_STEPS } from '../../src/collections/drop-offs-store.ts';
import { collectionDropOffEvents } from '../../src/collections/tables.ts';
import { sweepRetention } from '../../src/retention/retention.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { applicantToken, insertRun, newSubmission } from './support.ts';

let platform: TestPlatform;
let admin: string;
let tenantId: string;
let runId: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.token();
  tenantId = await platform.tenantId();
  runId = await insertRun(platform.database, tenantId, 'subject-1');
});
afterAll(async () => platform?.close());

const HOUR_S = 3600;
/** A token that expired an hour ago (jose's exp as seconds since the epoch). */
const expiredAnHourAgo = () => Math.floor(Date.now() / 1000) - HOUR_S;
const expiredApplicant = (submissionId: string, tenant = 'acme') =>
  platform.token({
    tenant,
    kind: 'applicant',
    subject: submissionId,
    user: 'applicant',
    roles: [],
    expiresIn: expiredAnHourAgo(),
  });
const post = (path: string, token: string | null, json?: unknown) =>
  platform.fetch(path, { method: 'POST', token, ...(json === undefined ? {} : { json }) });
const linkRequest = (id: string, token: string | null) =>
  post(`/collection-submissions/${id}/link-requests`, token);
const dropOff = (id: string, token: string | null, step: unknown) =>
  post(`/collection-submissions/${id}/drop-off-events`, token, { step });
const linkAudits = (id: string) =>
  platform.database.db
    .select()
    .from(auditEvents)
    .where(
      and(eq(auditEvents.action, 'collection.submission.link_requested'), eq(auditEvents.resourceId, id)),
    )
    .orderBy(asc(auditEvents.id));
const newRunSubmission = () => newSubmission(platform, admin, { id: runId, subjectId: 'subject-1' });

describe('POST /collection-submissions/:id/link-requests', () => {
  it('takes the expired link’s token and records the request once, as the applicant, naming the run', async () => {
    const { submission } = await newRunSubmission();
    const expired = await expiredApplicant(submission.id);
    const first = await ok<{ id: string; linkRequestedAt: string }>(
      await linkRequest(submission.id, expired),
      202,
    );
    expect(first.id).toBe(submission.id);
    const audits = await linkAudits(submission.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      tenantId,
      actorType: 'applicant',
      actorId: submission.id,
      resourceType: 'collection_submission',
      data: { workflowRunId: runId, linkExpiredAt: expect.any(String) },
    });
    const expiredAt = Date.parse((audits[0]?.data as { linkExpiredAt: string }).linkExpiredAt);
    expect(Math.abs(expiredAt - (Date.now() - HOUR_S * 1000))).toBeLessThan(120_000);

    // A page reloaded, the button pressed again: the same request, no second event.
    const again = await ok(await linkRequest(submission.id, expired), 202);
    expect(again).toEqual(first);
    expect(await linkAudits(submission.id)).toHaveLength(1);
  });

  it('records it again once the quarter of an hour after the last one has passed', async () => {
    const { submission } = await newRunSubmission();
    const expired = await expiredApplicant(submission.id);
    await ok(await linkRequest(submission.id, expired), 202);
    await platform.database.db.execute(
      sql`update collection_submissions set link_requested_at = now() - interval '16 minutes' where id = ${submission.id}`,
    );
    await ok(await linkRequest(submission.id, expired), 202);
    expect(await linkAudits(submission.id)).toHaveLength(2);
  });

  it('refuses a link that still works (409), anyone but the applicant (403), an unknown one (404), no token (401)', async () => {
    const { submission, applicant } = await newRunSubmission();
    await expectError(await linkRequest(submission.id, applicant), 409, 'conflict');
    const other = await newRunSubmission();
    await expectError(
      await linkRequest(submission.id, await expiredApplicant(other.submission.id)),
      403,
      'forbidden',
    );
    const user = await platform.token({ expiresIn: expiredAnHourAgo() });
    await expectError(await linkRequest(submission.id, user), 403, 'forbidden');
    const nobody = randomUUID();
    await expectError(await linkRequest(nobody, await expiredApplicant(nobody)), 404, 'not_found');
    await expectError(
      await linkRequest(submission.id, await expiredApplicant(submission.id, 'elsewhere')),
      404,
      'not_found',
    );
    await expectError(await linkRequest(submission.id, null), 401, 'unauthorized');
    const forged = `${(await expiredApplicant(submission.id)).slice(0, -4)}AAAA`;
    await expectError(await linkRequest(submission.id, forged), 401, 'unauthorized');
    expect(await linkAudits(submission.id)).toEqual([]);
  });
});

describe('POST /collection-submissions/:id/drop-off-events', () => {
  const rowsOf = (submissionId: string) =>
    platform.database.db
      .select({ step: collectionDropOffEvents.step, tenantId: collectionDropOffEvents.tenantId })
      .from(collectionDropOffEvents)
      .where(eq(collectionDropOffEvents.submissionId, submissionId))
      .orderBy(asc(collectionDropOffEvents.step));

  it('stores one event per step: 201 when new, 200 with the first report when repeated', async () => {
    const { submission, applicant } = await newRunSubmission();
    const first = await ok<{ reportedAt: string }>(await dropOff(submission.id, applicant, 'upload-id'), 201);
    expect(first).toEqual({ submissionId: submission.id, step: 'upload-id', reportedAt: expect.any(String) });
    expect(await ok(await dropOff(submission.id, applicant, 'upload-id'), 200)).toEqual(first);
    await ok(await dropOff(submission.id, applicant, 'selfie'), 201);
    expect(await rowsOf(submission.id)).toEqual([
      { step: 'selfie', tenantId },
      { step: 'upload-id', tenantId },
    ]);
  });

  it('refuses anyone but the applicant, an expired link, a malformed step, and steps past the cap', async () => {
    const { submission, applicant } = await newRunSubmission();
    await expectError(await dropOff(submission.id, admin, 'x'), 403, 'forbidden');
    await expectError(
      await dropOff(submission.id, await expiredApplicant(submission.id), 'x'),
      401,
      'unauthorized',
    );
    for (const step of ['', 'x'.repeat(101), 7, null]) {
      await expectError(await dropOff(submission.id, applicant, step), 400, 'validation_error');
    }
    await platform.database.db.insert(collectionDropOffEvents).values(
      Array.from({ length: MAX_DROP_OFF_STEPS }, (_, i) => ({
        tenantId,
        submissionId: submission.id,
        step: `step-${i}`,
      })),
    );
    await expectError(await dropOff(submission.id, applicant, 'one-too-many'), 409, 'conflict');
    // A step already reported is still the same drop-off.
    await ok(await dropOff(submission.id, applicant, 'step-0'), 200);
    expect(await rowsOf(submission.id)).toHaveLength(MAX_DROP_OFF_STEPS);
  });

  it('is swept after the setting, never before 90 days, kept forever with 0, tenant by tenant', async () => {
    const { submission, applicant } = await newRunSubmission();
    const elsewhereRun = await insertRun(platform.database, await platform.tenantId('elsewhere'), 's-2');
    const elsewhere = await newSubmission(
      platform,
      await platform.token({ tenant: 'elsewhere' }),
      { id: elsewhereRun, subjectId: 's-2' },
      { tenant: 'elsewhere' },
    );
    const steps = { 'day-89': 89, 'day-91': 91, 'day-121': 121 };
    for (const step of Object.keys(steps)) {
      await ok(await dropOff(submission.id, applicant, step), 201);
      await ok(
        await dropOff(
          elsewhere.submission.id,
          await applicantToken(platform, elsewhere.submission.id, 'elsewhere'),
          step,
        ),
        201,
      );
    }
    const now = new Date();
    for (const [step, days] of Object.entries(steps)) {
      await platform.database.db.execute(
        sql`update collection_drop_off_events set reported_at = ${new Date(now.getTime() - days * 86_400_000)}
            where step = ${step} and submission_id in (${submission.id}, ${elsewhere.submission.id})`,
      );
    }
    const pass = (submissionEventDays: number) =>
      sweepRetention({
        database: platform.database,
        logger: pino({ level: 'silent' }),
        settings: { appCallbackDays: 0, submissionEventDays },
        now,
      });
    const stepsLeft = async () =>
      [...(await rowsOf(submission.id)), ...(await rowsOf(elsewhere.submission.id))]
        .map((r) => r.step)
        .sort();

    expect((await pass(0)).deleted.collection_drop_off_events).toBe(0);
    expect(await stepsLeft()).toHaveLength(6);
    // 120 days: only the oldest goes, in both tenants.
    expect((await pass(120)).deleted.collection_drop_off_events).toBe(2);
    expect(await stepsLeft()).toEqual(['day-89', 'day-89', 'day-91', 'day-91']);
    // 30 days is read as 90: the longest funnel window.
    expect((await pass(30)).deleted.collection_drop_off_events).toBe(2);
    expect(await stepsLeft()).toEqual(['day-89', 'day-89']);
  });
});
