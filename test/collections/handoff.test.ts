// GET /collection-submissions/:id/handoff through the real api and runner with the release's
// identity-verification module against a sessions API double: each row of the answer table, the return
// address's precedence, the audit event (its host, never the page), and the hand-off's metering apart from
// calls and quotas. docs/handoff.md.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { appMetering } from '../../src/calls/tables.ts';
import { setTenantQuota } from '../../src/calls/tenant-quotas.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { appInstallSecrets, appInstalls } from '../../src/installs/tables.ts';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import { errorOf, ok } from '../installs/support.ts';
import {
  API_KEY,
  DEPLOYMENT_FLOW_URL,
  EXPIRES_AT,
  type HandoffWorld,
  insertRun,
  insertSession,
  newSubmission,
  PAGES_HOST,
  startHandoffWorld,
  versionIdOf,
} from './support.ts';

let world: HandoffWorld;
beforeAll(async () => {
  world = await startHandoffWorld();
}, 180_000);
afterAll(async () => world?.close());
beforeEach(() => {
  world.vendor.reset();
  world.sessions.clear();
});

let runs = 0;
interface Waiting {
  vendorStatus?: string;
  runStatus?: 'waiting_callback' | 'running' | 'completed';
  /** The session's version and install: identity-verification's and `idv` by default. */
  versionId?: string;
  installId?: string;
  send?: boolean;
}
/** A run of a new subject with one pending session `externalId` (waiting on it), and its submission, sent. */
async function waitingSubmission(externalId: string, options: Waiting = {}) {
  const subjectId = `subject-${++runs}`;
  const runId = await insertRun(world.platform.database, world.tenantId, subjectId, options.runStatus);
  await insertSession(world.platform.database, world.tenantId, {
    runId,
    externalId,
    installId: options.installId ?? world.installId,
    versionId: options.versionId ?? world.versionId,
  });
  world.sessions.set(externalId, { status: options.vendorStatus ?? 'pending' });
  const made = await newSubmission(
    world.platform,
    world.admin,
    { id: runId, subjectId },
    { send: options.send },
  );
  return { runId, subjectId, ...made };
}

const handoff = (id: string, token: string) =>
  world.platform.fetch(`/collection-submissions/${id}/handoff`, { token });
const status = (id: string, token: string) =>
  world.platform.fetch(`/collection-submissions/${id}/status`, { token });

async function setTenantFlowUrl(flowUrl: string | null) {
  await ok(
    await world.platform.fetch('/tenants/me/settings', {
      method: 'PUT',
      token: world.admin,
      json: { approvals: { required: false, fourEyes: true }, collection: { flowUrl } },
    }),
  );
}

const handoffAudits = async (submissionId: string) =>
  world.platform.database.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, 'collection.submission.handoff_started'),
        eq(auditEvents.resourceId, submissionId),
      ),
    );

const handoffsMetered = async () => (await meteredToday()).reduce((n, row) => n + row.handoffs, 0);

const meteredToday = async () =>
  world.platform.database.db
    .select()
    .from(appMetering)
    .where(and(eq(appMetering.installId, world.installId), eq(appMetering.action, 'start_verification')));

describe('a page the api sends applicants to: 200 { handoff: { url, expiresAt } }', () => {
  it('runs the module with the install’s secrets and the return address, and answers the vendor’s page', async () => {
    const { submission, applicant } = await waitingSubmission('sess_ok');
    const answer = await ok<{ handoff: { url: string; expiresAt: string } }>(
      await handoff(submission.id, applicant),
    );
    const returnUrl = `${DEPLOYMENT_FLOW_URL}/flow/${submission.id}`;
    expect(answer.handoff).toEqual({
      url: `${world.vendor.url}/hosted/sess_ok?redirect=${encodeURIComponent(returnUrl)}`,
      expiresAt: EXPIRES_AT,
    });
    const [asked] = world.vendor.requests;
    expect(asked).toMatchObject({
      method: 'GET',
      path: '/v1/sessions/sess_ok',
      query: { redirectUrl: returnUrl },
    });
    expect(asked?.headers.authorization).toBe(`Bearer ${API_KEY}`);

    // Audited with the host (and its port, not the default), never the page or the return address.
    const [audited, ...more] = await handoffAudits(submission.id);
    expect(more).toEqual([]);
    expect(audited).toMatchObject({
      actorType: 'applicant',
      actorId: submission.id,
      resourceType: 'collection_submission',
      data: {
        workflowRunId: submission.workflowRunId,
        install: 'idv',
        app: 'identity-verification',
        action: 'start_verification',
        externalId: 'sess_ok',
        host: world.vendor.host,
        expiresAt: EXPIRES_AT,
      },
    });
    const text = JSON.stringify(audited);
    for (const part of ['/hosted/', 'redirect', '/flow/', 'http://', 'https://'])
      expect(text).not.toContain(part);

    // The status says a hand-off waits.
    expect(await ok(await status(submission.id, applicant))).toEqual({
      id: submission.id,
      status: 'sent',
      handoff: true,
    });
  });

  it('sends the applicant to an https page on another approved host, audited by its name', async () => {
    const { submission, applicant } = await waitingSubmission('sess_pages');
    world.sessions.set('sess_pages', { status: 'pending', url: `https://${PAGES_HOST}/s/sess_pages?t=abc` });
    const answer = await ok<{ handoff: { url: string } }>(await handoff(submission.id, applicant));
    expect(answer.handoff.url).toBe(`https://${PAGES_HOST}/s/sess_pages?t=abc`);
    const [audited] = await handoffAudits(submission.id);
    expect(audited?.data).toMatchObject({ host: PAGES_HOST });
    expect(JSON.stringify(audited)).not.toContain('t=abc');
  });

  it('hands off for the newest eligible pending session of the run', async () => {
    const { submission, applicant, runId } = await waitingSubmission('sess_older');
    await insertSession(world.platform.database, world.tenantId, {
      runId,
      externalId: 'sess_newer',
      installId: world.installId,
      versionId: world.versionId,
      createdAt: new Date(Date.now() + 60_000),
    });
    world.sessions.set('sess_newer', { status: 'pending' });
    await ok(await handoff(submission.id, applicant));
    expect(world.vendor.requests.map((r) => r.path)).toEqual(['/v1/sessions/sess_newer']);

    // A newer session whose version hands off nothing is passed over.
    await insertSession(world.platform.database, world.tenantId, {
      runId,
      externalId: 'sess_screening',
      installId: world.installId,
      versionId: await versionIdOf(world.platform.database, 'sanctions-screening'),
      createdAt: new Date(Date.now() + 120_000),
    });
    world.vendor.reset();
    await ok(await handoff(submission.id, applicant));
    expect(world.vendor.requests.map((r) => r.path)).toEqual(['/v1/sessions/sess_newer']);
  });
});

describe('the module answered null: 200 { handoff: null }', () => {
  it('answers null for a session the vendor already settled, audits nothing, and meters the hand-off', async () => {
    const { submission, applicant } = await waitingSubmission('sess_settled', { vendorStatus: 'approved' });
    const before = await handoffsMetered();
    expect(await ok(await handoff(submission.id, applicant))).toEqual({ handoff: null });
    expect(await handoffsMetered()).toBe(before + 1);
    expect(world.vendor.requests).toHaveLength(1);
    expect(await handoffAudits(submission.id)).toEqual([]);
  });
});

describe('the return address: the tenant’s collection.flowUrl, else COLLECTION_FLOW_URL, then /flow/<id>', () => {
  it('prefers the tenant’s, falls back to the deployment’s, and is 409 with neither', async () => {
    const { submission, applicant } = await waitingSubmission('sess_return');
    try {
      await setTenantFlowUrl('https://collect.acme.example/kyc/');
      await ok(await handoff(submission.id, applicant));
      expect(world.vendor.requests.at(-1)?.query.redirectUrl).toBe(
        `https://collect.acme.example/kyc/flow/${submission.id}`,
      );

      await setTenantFlowUrl(null);
      await ok(await handoff(submission.id, applicant));
      expect(world.vendor.requests.at(-1)?.query.redirectUrl).toBe(
        `${DEPLOYMENT_FLOW_URL}/flow/${submission.id}`,
      );

      // Neither set: nothing is run.
      world.platform.config.collectionFlowUrl = null;
      world.vendor.reset();
      const refused = await errorOf(await handoff(submission.id, applicant), 409);
      expect(refused).toMatchObject({
        code: 'handoff_unavailable',
        message: expect.stringMatching(/return/),
      });
      expect(world.vendor.requests).toEqual([]);
    } finally {
      world.platform.config.collectionFlowUrl = DEPLOYMENT_FLOW_URL;
      await setTenantFlowUrl(null);
    }
  });

  it('never takes the address from the request: a returnUrl asked for is refused, nothing runs', async () => {
    const { submission, applicant } = await waitingSubmission('sess_query');
    const refused = await errorOf(
      await world.platform.fetch(
        `/collection-submissions/${submission.id}/handoff?returnUrl=https%3A%2F%2Fevil.example`,
        { token: applicant },
      ),
      400,
    );
    expect(refused.code).toBe('validation_error');
    expect(world.vendor.requests).toEqual([]);
  });
});

describe('409 handoff_unavailable', () => {
  const unavailable = async (id: string, token: string) => {
    expect((await errorOf(await handoff(id, token), 409)).code).toBe('handoff_unavailable');
    expect((await ok<{ handoff: boolean }>(await status(id, token))).handoff).toBe(false);
  };

  it('while the submission is not sent; then it hands off', async () => {
    const { submission, applicant } = await waitingSubmission('sess_unsent', { send: false });
    expect(submission.status).toBe('open');
    await unavailable(submission.id, applicant);
    expect(world.vendor.requests).toEqual([]);
    await ok(await world.platform.fetch(`/collection-submissions/${submission.id}/send`, { method: 'POST' }));
    await ok(await handoff(submission.id, applicant));
  });

  it('when the run waits for no session: not waiting, or no pending session, or one that hands off nothing', async () => {
    for (const runStatus of ['running', 'completed'] as const) {
      const { submission, applicant } = await waitingSubmission(`sess_${runStatus}`, { runStatus });
      await unavailable(submission.id, applicant);
    }
    const settled = await waitingSubmission('sess_done');
    await world.platform.database.db
      .update(appCallbacks)
      .set({ status: 'completed' })
      .where(eq(appCallbacks.externalId, 'sess_done'));
    await unavailable(settled.submission.id, settled.applicant);

    const versionId = await versionIdOf(world.platform.database, 'sanctions-screening');
    const screening = await waitingSubmission('sess_no_handoff', { versionId });
    await unavailable(screening.submission.id, screening.applicant);
    expect(world.vendor.requests).toEqual([]);
  });

  it('while the session’s version is blocked', async () => {
    const { submission, applicant } = await waitingSubmission('sess_blocked');
    const [version] = await world.platform.database.db
      .select({ sha256: appVersions.sha256 })
      .from(appVersions)
      .where(eq(appVersions.id, world.versionId));
    const [block] = await world.platform.database.db
      .insert(appBlocks)
      .values({ sha256: version?.sha256, reason: 'leaks applicant data', createdBy: 'ops' })
      .returning({ id: appBlocks.id });
    try {
      await unavailable(submission.id, applicant);
    } finally {
      await world.platform.database.db
        .update(appBlocks)
        .set({ liftedAt: new Date(), liftedBy: 'ops' })
        .where(eq(appBlocks.id, block?.id as string));
    }
    await ok(await handoff(submission.id, applicant));
  });

  it('while the install is disabled, or once it is removed', async () => {
    const { submission, applicant } = await waitingSubmission('sess_disabled');
    const install = eq(appInstalls.id, world.installId);
    await world.platform.database.db.update(appInstalls).set({ enabled: false }).where(install);
    try {
      await unavailable(submission.id, applicant);
    } finally {
      await world.platform.database.db.update(appInstalls).set({ enabled: true }).where(install);
    }

    // A session of an install that no longer exists.
    const removed = await waitingSubmission('sess_removed', { installId: randomUUID() });
    await unavailable(removed.submission.id, removed.applicant);
    expect(world.vendor.requests).toEqual([]);
  });
});

describe('502 handoff_failed', () => {
  it('when the module failed (the vendor answered an error), metered all the same', async () => {
    const { submission, applicant } = await waitingSubmission('sess_down');
    world.sessions.set('sess_down', {
      status: 'pending',
      failure: { status: 500, json: { message: 'down' } },
    });
    const before = await handoffsMetered();
    const failed = await errorOf(await handoff(submission.id, applicant), 502);
    expect(failed).toMatchObject({ code: 'handoff_failed', details: { reason: 'error' } });
    expect(JSON.stringify(failed)).not.toContain('down');
    expect(await handoffsMetered()).toBe(before + 1);
  });

  it('when the page is not https on an approved host, naming neither page nor address', async () => {
    const { submission, applicant } = await waitingSubmission('sess_elsewhere');
    world.sessions.set('sess_elsewhere', { status: 'pending', url: 'https://phish.example/s?t=secret-ish' });
    const failed = await errorOf(await handoff(submission.id, applicant), 502);
    expect(failed).toMatchObject({ code: 'handoff_failed', details: { reason: 'page' } });
    expect(failed.message).toMatch(/host phish\.example is not approved/);
    expect(JSON.stringify(failed)).not.toContain('secret-ish');
    expect(await handoffAudits(submission.id)).toEqual([]);
  });

  it('when the page holds control characters, rather than answering a header injection', async () => {
    const { submission, applicant } = await waitingSubmission('sess_crlf');
    const page = `https://${PAGES_HOST}/x\r\nSet-Cookie: a=b`;
    world.sessions.set('sess_crlf', { status: 'pending', url: page });
    const response = await handoff(submission.id, applicant);
    const text = await response.clone().text();
    const failed = await errorOf(response, 502);
    expect(failed).toMatchObject({ code: 'handoff_failed', details: { reason: 'page' } });
    expect(failed.message).toMatch(/space or a control character/);
    expect(text).not.toContain('Set-Cookie');
    expect(await handoffAudits(submission.id)).toEqual([]);
  });

  it('when a required secret has no value', async () => {
    const { submission, applicant } = await waitingSubmission('sess_nosecret');
    const secret = and(
      eq(appInstallSecrets.installId, world.installId),
      eq(appInstallSecrets.name, 'WEBHOOK_SECRET'),
    );
    const [kept] = await world.platform.database.db.select().from(appInstallSecrets).where(secret);
    await world.platform.database.db.delete(appInstallSecrets).where(secret);
    try {
      const failed = await errorOf(await handoff(submission.id, applicant), 502);
      expect(failed).toMatchObject({
        code: 'handoff_failed',
        details: { reason: 'missing_secrets', missingSecrets: ['WEBHOOK_SECRET'] },
      });
      expect(world.vendor.requests).toEqual([]);
    } finally {
      if (kept) await world.platform.database.db.insert(appInstallSecrets).values(kept);
    }
  });
});

describe('metering: hand-offs are counted apart, never limited', () => {
  it('counts each hand-off the module ran on in handoffs, not as calls, even past a quota of no calls', async () => {
    const before = await handoffsMetered();
    await setTenantQuota(
      world.platform.database.db,
      world.tenantId,
      { metric: 'calls', period: 'day', max: 0 },
      { type: 'operator', id: 'ops', name: 'ops' },
    );
    const first = await waitingSubmission('sess_metered');
    await ok(await handoff(first.submission.id, first.applicant));
    await ok(await handoff(first.submission.id, first.applicant));
    expect(await handoffsMetered()).toBe(before + 2);
    const rows = await meteredToday();
    expect(rows.every((row) => row.calls === 0 && row.httpRequests === 0 && row.spendMicros === 0)).toBe(
      true,
    );
  });
});
