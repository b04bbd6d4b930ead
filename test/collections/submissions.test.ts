// Collection submissions through the real api (docs/handoff.md "Submissions", "Applicant tokens"):
// created, sent and read by a tenant's users under apps:write and apps:read; status and hand-off only for
// the submission's own applicant (403 for users, machines and other submissions' applicants); another
// tenant's submission as unknown; `platform token --applicant` minting the link's token.
import { and, asc, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { mintToken, UsageError } from '../../src/cli/token.ts';
import { loadConfig } from '../../src/config.ts';
import { errorOf, ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { applicantToken, insertRun, newSubmission, type Submission } from './support.ts';

let platform: TestPlatform;
let admin: string;
let runId: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.token();
  runId = await insertRun(platform.database, await platform.tenantId(), 'subject-1');
});
afterAll(async () => platform?.close());

const post = (path: string, token: string, json?: unknown) =>
  platform.fetch(path, { method: 'POST', token, json });
const get = (path: string, token: string) => platform.fetch(path, { token });
const auditsOf = (id: string) =>
  platform.database.db
    .select({ action: auditEvents.action, actorId: auditEvents.actorId, data: auditEvents.data })
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceType, 'collection_submission'), eq(auditEvents.resourceId, id)))
    .orderBy(asc(auditEvents.id));

describe('POST /collection-submissions, …/send and GET …/:id', () => {
  it('creates an open submission, sends it once, and reads it', async () => {
    const created = await ok<Submission & { createdBy: string }>(
      await post('/collection-submissions', admin, { subjectId: 'subject-1', workflowRunId: runId }),
      201,
    );
    expect(created).toMatchObject({
      subjectId: 'subject-1',
      workflowRunId: runId,
      status: 'open',
      sentAt: null,
      createdBy: 'user:ada',
    });
    const sent = await ok<Submission>(await post(`/collection-submissions/${created.id}/send`, admin));
    expect(sent).toMatchObject({ id: created.id, status: 'sent', sentAt: expect.any(String) });
    // Sending again changes nothing, and is not audited again.
    expect(await ok(await post(`/collection-submissions/${created.id}/send`, admin))).toEqual(sent);
    const analyst = await platform.token({ roles: ['analyst'], user: 'bob' });
    expect(await ok(await get(`/collection-submissions/${created.id}`, analyst))).toEqual(sent);
    expect(await auditsOf(created.id)).toEqual([
      { action: 'collection.submission.created', actorId: 'user:ada', data: { workflowRunId: runId } },
      { action: 'collection.submission.sent', actorId: 'user:ada', data: { workflowRunId: runId } },
    ]);
  });

  it('refuses a run the tenant does not have, and a subject other than the run’s', async () => {
    const otherRun = await insertRun(platform.database, await platform.tenantId('globex'), 'subject-1');
    for (const workflowRunId of [otherRun, crypto.randomUUID()]) {
      const refused = await errorOf(
        await post('/collection-submissions', admin, { subjectId: 'subject-1', workflowRunId }),
        404,
      );
      expect(refused.code).toBe('not_found');
    }
    const wrong = await errorOf(
      await post('/collection-submissions', admin, { subjectId: 'subject-2', workflowRunId: runId }),
      400,
    );
    expect(wrong).toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: '/subjectId', message: 'the workflow run is of another subject' }] },
    });
  });

  it('needs apps:write to create and send, apps:read to read; another tenant’s submission is unknown', async () => {
    const { submission } = await newSubmission(
      platform,
      admin,
      { id: runId, subjectId: 'subject-1' },
      { send: false },
    );
    const analyst = await platform.token({ roles: ['analyst'], user: 'bob' });
    const body = { subjectId: 'subject-1', workflowRunId: runId };
    expect((await errorOf(await post('/collection-submissions', analyst, body), 403)).details).toEqual({
      permission: 'apps:write',
    });
    await errorOf(await post(`/collection-submissions/${submission.id}/send`, analyst), 403);
    const nobody = await platform.token({ roles: [], user: 'eve' });
    await errorOf(await get(`/collection-submissions/${submission.id}`, nobody), 403);

    const globex = await platform.token({ tenant: 'globex' });
    await errorOf(await get(`/collection-submissions/${submission.id}`, globex), 404);
    await errorOf(await post(`/collection-submissions/${submission.id}/send`, globex), 404);
  });
});

describe('the applicant routes: status and hand-off', () => {
  let submission: Submission;
  let applicant: string;
  beforeAll(async () => {
    ({ submission, applicant } = await newSubmission(platform, admin, { id: runId, subjectId: 'subject-1' }));
  });
  const applicantRoutes = (id: string) => [
    `/collection-submissions/${id}/status`,
    `/collection-submissions/${id}/handoff`,
  ];

  it('answers the status to the submission’s applicant', async () => {
    expect(await ok(await get(`/collection-submissions/${submission.id}/status`, applicant))).toEqual({
      id: submission.id,
      status: 'sent',
      handoff: false,
    });
  });

  it('refuses a user, a machine and another submission’s applicant with 403', async () => {
    const other = await newSubmission(platform, admin, { id: runId, subjectId: 'subject-1' });
    const callers = {
      admin,
      machine: await platform.token({ kind: 'machine', user: 'etl', subject: 'machine:etl' }),
      // A user whose subject is the submission's id is no applicant.
      lookalike: await platform.token({ subject: submission.id }),
      otherApplicant: other.applicant,
    };
    for (const [who, token] of Object.entries(callers)) {
      for (const path of applicantRoutes(submission.id)) {
        const refused = await errorOf(await get(path, token), 403);
        expect(refused.code, `${who} ${path}`).toBe('forbidden');
      }
    }
  });

  it('answers another tenant’s applicant of the same id as unknown', async () => {
    const globexApplicant = await applicantToken(platform, submission.id, 'globex');
    for (const path of applicantRoutes(submission.id))
      expect((await errorOf(await get(path, globexApplicant), 404)).code).toBe('not_found');
  });

  it('gives an applicant none of the staff routes, and no other route, whatever roles its claims name', async () => {
    const withRoles = await platform.token({ kind: 'applicant', subject: submission.id, roles: ['admin'] });
    for (const token of [applicant, withRoles]) {
      for (const path of ['/tenants/me', '/notifications', '/app-installs', '/workflow-runs']) {
        const refused = await errorOf(await get(path, token), 403);
        expect(refused.message, path).toBe('an applicant’s token reaches only its submission’s routes');
      }
    }
    // Its own routes still answer it (an admin role claimed changes nothing there either).
    expect((await ok(await get(`/collection-submissions/${submission.id}/status`, withRoles))).id).toBe(
      submission.id,
    );
    await errorOf(await get(`/collection-submissions/${submission.id}`, applicant), 403);
    await errorOf(await post(`/collection-submissions/${submission.id}/send`, applicant), 403);
    await errorOf(
      await post('/collection-submissions', applicant, { subjectId: 'subject-1', workflowRunId: runId }),
      403,
    );
  });
});

describe('platform token --applicant', () => {
  const config = () =>
    loadConfig({ DATA_DIR: platform.config.dataDir, DATABASE_URL: platform.config.databaseUrl ?? '' });
  const base = { tenant: 'acme', permission: [], expiresIn: '30m' };

  it('mints the link’s token: kind applicant, sub the submission, no roles; the api takes it', async () => {
    const { submission } = await newSubmission(platform, admin, { id: runId, subjectId: 'subject-1' });
    const token = await mintToken(config(), { ...base, applicant: submission.id.toUpperCase() });
    expect(decodeJwt(token)).toMatchObject({
      tenant: await platform.tenantId(),
      sub: submission.id,
      kind: 'applicant',
      roles: [],
      permissions: [],
    });
    expect(await ok(await get(`/collection-submissions/${submission.id}/status`, token))).toMatchObject({
      id: submission.id,
      status: 'sent',
    });
  });

  it('refuses a submission the tenant does not have, and applicant options mixed with a user’s', async () => {
    await expect(mintToken(config(), { ...base, applicant: crypto.randomUUID() })).rejects.toThrow(
      /tenant acme has no collection submission/,
    );
    const id = crypto.randomUUID();
    await expect(mintToken(config(), { ...base, applicant: 'not-an-id' })).rejects.toThrow(UsageError);
    await expect(mintToken(config(), { ...base, applicant: id, role: 'admin' })).rejects.toThrow(
      /--applicant takes no --role/,
    );
    await expect(mintToken(config(), { ...base, applicant: id, machine: true, user: 'x' })).rejects.toThrow(
      /--applicant takes no --user, --machine/,
    );
    await expect(mintToken(config(), base)).rejects.toThrow(/--role/);
  });
});
