// The README's "Try an asynchronous verification", followed through the real processes a newcomer starts
// (readme-stack.ts): `APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true npm start`, `npx app vendor-double --idv …`
// as the hosted verification vendor, tokens from `npx platform token` (the applicant's too), then the
// README's calls in order: identity-verification installed against the double, a workflow whose step
// waits on the vendor's session, the applicant handed off to the double's hosted page, the double's
// signed webhook completing the session and the run. Then, on the same stack (one platform start keeps
// the suite fast), the other ways a wait ends: declined, failed (AppCallbackFailed), cancelled while
// waiting (run_cancelled) and the install force-deleted (install_removed). Not here: the wait timing out
// (CallbackTimeout) — the app's shortest wait is its config's 60 s, so test/runs/waiting.test.ts covers
// it with a run that asks for a short one. Every wait polls the run; nothing sleeps.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';
import { installIdv, KYC_WORKFLOW } from './idv-install.ts';
import { type Answer, answer, type ReadmeStack, startReadmeStack } from './readme-stack.ts';
import { commandLines, readmeSection, shellBlocks } from './readme-text.ts';

const SLOW = 240_000;
const API_KEY = 'idv-demo-1234';
const WEBHOOK_SECRET = 'whsec-demo-5678';
const FLOW_URL = 'https://collect.example.com';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

const ok = (reply: Answer, status = 200) => expect(reply.status, reply.text).toBe(status);

/** Polls a run until `done` holds for its status; its last answer. */
async function runUntil(stack: ReadmeStack, runId: string, done: (status: string) => boolean) {
  let polled: Answer | undefined;
  await expect
    .poll(
      async () => {
        polled = await answer(stack.client.GET('/workflow-runs/{id}', { params: { path: { id: runId } } }));
        return done(polled.body?.status) ? 'done' : polled.body?.status;
      },
      { timeout: 60_000, interval: 50 },
    )
    .toBe('done');
  return (polled as Answer).body;
}

const settled = (status: string) => status !== 'running' && status !== 'waiting_callback';

/** Step 9's decide body, the same event again, as the README prints it, for this session. */
function readmeResend(sessionId: string): Record<string, unknown> {
  const lines = shellBlocks(readmeSection('Try an asynchronous verification')).flatMap(commandLines);
  const resend = lines.find((line) => line.includes('/decide') && line.includes('"eventId"')) ?? '';
  const body = /-d '(.*)'; echo$/.exec(resend)?.[1];
  expect(body, 'the README resends an event with its eventId').toBeDefined();
  return JSON.parse((body as string).replaceAll("'$SESSION'", sessionId));
}

/** `curl -X POST <double>/__double/sessions/<id>/decide -d <verdict>`: the double's answer. */
async function decide(host: string, sessionId: string, verdict: Record<string, unknown>) {
  const response = await fetch(`http://${host}/__double/sessions/${sessionId}/decide`, {
    method: 'POST',
    body: JSON.stringify(verdict),
  });
  return { status: response.status, body: await response.json() };
}

describe('README: try an asynchronous verification (identity-verification against its vendor double)', () => {
  it(
    'a run waits on the vendor, the applicant is handed off to its hosted page, the signed webhook completes the run; declined, failed, cancelled and removed waits end as documented',
    async () => {
      const stack = await startReadmeStack('demo', 'apps-platform-e2e-idv-');
      const { api, client } = stack;
      // Terminal 2: npx app vendor-double --idv --port <port> --webhook-secret … --api-key …
      const { vendor, host } = await stack.startVendor([
        '--idv',
        '--webhook-secret',
        WEBHOOK_SECRET,
        '--api-key',
        API_KEY,
      ]);
      // 1. the release version of identity-verification, installed disabled against the double; its
      // secrets; enabled
      const { installed, enabled } = await installIdv(stack, host, {
        apiKey: API_KEY,
        webhookSecret: WEBHOOK_SECRET,
      });
      expect(installed.body).toMatchObject({
        name: 'idv',
        enabled: false,
        hosts: [host],
        missingSecrets: ['API_KEY', 'WEBHOOK_SECRET'],
        webhookUrl: `${api}/webhooks/app-installs/${installed.body.id}`,
      });
      const webhookUrl = installed.body.webhookUrl as string;
      expect(enabled.body).toMatchObject({ name: 'idv', enabled: true, missingSecrets: [] });

      // 2. where the vendor's page sends the applicant back: the tenant's collection flow
      ok(
        await answer(
          client.PUT('/tenants/me/settings', {
            body: { approvals: { required: false, fourEyes: true }, collection: { flowUrl: FLOW_URL } },
          }),
        ),
      );

      // 3. a workflow: start the verification, then decide on its output
      const workflow = await answer(
        client.POST('/workflow-definitions', {
          body: {
            key: 'kyc',
            body: KYC_WORKFLOW,
          },
        }),
      );
      ok(workflow, 201);
      expect(workflow.body).toMatchObject({ version: 1, validation: { errors: [], warnings: [] } });
      const published = await answer(
        client.POST('/workflow-definitions/{key}/publish', { params: { path: { key: 'kyc' } } }),
      );
      ok(published);
      expect(published.body).toMatchObject({ status: 'published' });

      // 4. a run: it waits for the vendor, the session's id in its context
      const waitingRun = async (subjectId: string) => {
        const started = await answer(
          client.POST('/workflow-runs', {
            body: {
              workflow: 'kyc',
              subjectId,
              context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
            },
          }),
        );
        ok(started, 201);
        const run = await runUntil(stack, started.body.id, (status) => status !== 'running');
        expect(run, JSON.stringify(run)).toMatchObject({ status: 'waiting_callback', error: null });
        const sessionId = run.context.verificationExternalId as string;
        expect(sessionId).toMatch(/^sess_[0-9a-f]{12}$/);
        return { runId: run.id as string, sessionId };
      };
      const { runId, sessionId } = await waitingRun('applicant-7');
      // Terminal 2: the double opened the session, with the install's webhook URL to call back.
      await expect
        .poll(vendor.stderr)
        .toContain(`POST /v1/sessions: opened ${sessionId} (reference none; webhooks to ${webhookUrl})`);

      // 5. the applicant's side: a submission for the run, sent, and the token of the applicant's link
      const submission = await answer(
        client.POST('/collection-submissions', { body: { subjectId: 'applicant-7', workflowRunId: runId } }),
      );
      ok(submission, 201);
      const submissionId = submission.body.id as string;
      const sent = await answer(
        client.POST('/collection-submissions/{id}/send', { params: { path: { id: submissionId } } }),
      );
      ok(sent);
      expect(sent.body).toMatchObject({ status: 'sent' });
      const minted = await stack.command(['token', '--tenant', 'demo', '--applicant', submissionId]);
      expect(minted.code, minted.stderr).toBe(0);
      const applicant = stack.clientWith(minted.stdout.trim());

      // 6. the hand-off with the applicant's token: the double's hosted page for the session
      const status = await answer(
        applicant.GET('/collection-submissions/{id}/status', { params: { path: { id: submissionId } } }),
      );
      ok(status);
      expect(status.body).toEqual({ id: submissionId, status: 'sent', handoff: true });
      const handoff = await answer(
        applicant.GET('/collection-submissions/{id}/handoff', { params: { path: { id: submissionId } } }),
      );
      ok(handoff);
      const page = `http://${host}/hosted/${sessionId}`;
      expect(handoff.body).toEqual({ handoff: { url: page, expiresAt: expect.any(String) } });
      await expect
        .poll(vendor.stderr)
        .toContain(`GET /v1/sessions/${sessionId}: pending (returns to ${FLOW_URL}/flow/${submissionId})`);
      const hosted = await fetch(page);
      expect(hosted.status).toBe(200);
      expect(await hosted.text()).toContain(`Session <code>${sessionId}</code>: <strong>pending</strong>`);

      // 7. the applicant passes: the double posts the signed webhook and answers what the platform said
      const decided = await decide(host, sessionId, { decision: 'approved' });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      expect(decided.body).toEqual({
        session: { id: sessionId, status: 'approved', url: page, expiresAt: expect.any(String) },
        sent: {
          sessionId,
          eventId: `evt_${sessionId}_1`,
          status: 'approved',
          decision: 'approved',
          reasons: [],
        },
        platform: {
          status: 202,
          body: { received: true, callbackId: expect.any(String), status: 'completed' },
        },
      });
      const callbackId = decided.body.platform.body.callbackId as string;

      // 8. the run moved on: completed with the verification's output and the decision
      const completed = await runUntil(stack, runId, settled);
      expect(completed, JSON.stringify(completed)).toMatchObject({ status: 'completed', error: null });
      expect(completed.context).toEqual({
        applicant: { firstName: 'Ada', lastName: 'Lovelace' },
        verificationExternalId: sessionId,
        verification: { decision: 'approved', reasons: [], sessionId },
        decide: { outcome: 'approve', riskScore: null },
      });
      expect(completed.steps).toEqual([
        expect.objectContaining({ id: 'verify', type: 'call_app', status: 'completed', attempts: 1 }),
        expect.objectContaining({ id: 'decide', type: 'decide', status: 'completed' }),
      ]);

      // The session, completed with the vendor's output; the hand-off, then the webhook, audited.
      const sessions = await answer(
        client.GET('/app-callbacks', { params: { query: { workflowRunId: runId } } }),
      );
      ok(sessions);
      expect(sessions.body).toMatchObject({ total: 1, totalIsEstimate: false });
      expect(sessions.body.items).toEqual([
        expect.objectContaining({
          id: callbackId,
          installName: 'idv',
          action: 'start_verification',
          externalId: sessionId,
          workflowRunId: runId,
          stepId: 'verify',
          status: 'completed',
          output: { decision: 'approved', reasons: [], sessionId },
          error: null,
          completedAt: expect.any(String),
        }),
      ]);
      const audit = await answer(client.GET('/audit-events', { params: { query: { limit: 100 } } }));
      ok(audit);
      const events = audit.body.items as { action: string; data: Record<string, unknown> }[];
      expect(events.find((event) => event.action === 'app.callback.received')?.data).toEqual({
        name: 'idv',
        appName: 'identity-verification',
        callbackId,
        action: 'start_verification',
        externalId: sessionId,
        status: 'completed',
        eventId: `evt_${sessionId}_1`,
      });
      expect(
        events.find((event) => event.action === 'collection.submission.handoff_started')?.data,
      ).toMatchObject({ workflowRunId: runId, callbackId, install: 'idv', externalId: sessionId, host });
      // 9. The same event again, as the README sends it: a duplicate, nothing changes.
      const again = await decide(host, sessionId, readmeResend(sessionId));
      expect(again.body.platform).toEqual({ status: 200, body: { received: false, duplicate: true } });

      // Declined by the vendor: the session completes, and the run decides decline.
      const declined = await waitingRun('applicant-8');
      const refusal = await decide(host, declined.sessionId, {
        decision: 'declined',
        reasons: ['document_expired'],
      });
      expect(refusal.body.platform).toMatchObject({ status: 202, body: { status: 'completed' } });
      const declinedRun = await runUntil(stack, declined.runId, settled);
      expect(declinedRun).toMatchObject({
        status: 'completed',
        context: {
          verification: { decision: 'declined', reasons: ['document_expired'] },
          decide: { outcome: 'decline' },
        },
      });

      // The session failed at the vendor: the run fails AppCallbackFailed, the vendor's words kept on
      // the session only.
      const failed = await waitingRun('applicant-9');
      const broke = await decide(host, failed.sessionId, { status: 'error', error: 'camera unavailable' });
      expect(broke.body.platform).toMatchObject({ status: 202, body: { status: 'failed' } });
      const failedRun = await runUntil(stack, failed.runId, settled);
      expect(failedRun).toMatchObject({
        status: 'failed',
        error: { code: 'AppCallbackFailed', details: { install: 'idv', action: 'start_verification' } },
      });
      expect(JSON.stringify(failedRun.error)).not.toContain('camera');
      expect(failedRun.steps[0]).toMatchObject({ id: 'verify', status: 'failed' });
      const failedSession = await answer(
        client.GET('/app-callbacks', { params: { query: { workflowRunId: failed.runId } } }),
      );
      expect(failedSession.body.items[0]).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('camera'),
      });

      // Cancelled while waiting: the session fails run_cancelled; the vendor's late webhook is stale.
      const cancelled = await waitingRun('applicant-10');
      const cancel = await answer(
        client.POST('/workflow-runs/{id}/cancel', { params: { path: { id: cancelled.runId } } }),
      );
      ok(cancel);
      expect(cancel.body).toMatchObject({ status: 'cancelled', error: { code: 'run_cancelled' } });
      const cancelledSession = await answer(
        client.GET('/app-callbacks', { params: { query: { workflowRunId: cancelled.runId } } }),
      );
      expect(cancelledSession.body.items[0]).toMatchObject({ status: 'failed', error: 'run_cancelled' });
      const late = await decide(host, cancelled.sessionId, { decision: 'approved' });
      expect(late.body.platform).toMatchObject({ status: 200, body: { received: false, stale: true } });
      expect((await runUntil(stack, cancelled.runId, settled)).status).toBe('cancelled');

      // The install removed while a run waits: refused without force; with it, the run fails install_removed.
      const orphaned = await waitingRun('applicant-11');
      const inUse = await answer(
        client.DELETE('/app-installs/{install}', { params: { path: { install: 'idv' } } }),
      );
      ok(inUse, 409);
      expect(inUse.body.error).toMatchObject({ code: 'install_in_use' });
      const removed = await answer(
        client.DELETE('/app-installs/{install}', {
          params: { path: { install: 'idv' }, query: { force: true } },
        }),
      );
      ok(removed, 204);
      const removedRun = await runUntil(stack, orphaned.runId, settled);
      expect(removedRun).toMatchObject({ status: 'failed', error: { code: 'install_removed' } });
      const removedSession = await answer(
        client.GET('/app-callbacks', { params: { query: { workflowRunId: orphaned.runId } } }),
      );
      expect(removedSession.body.items[0]).toMatchObject({ status: 'failed', error: 'install_removed' });

      // Stop both; the secrets went only to the vendor.
      const { platform: platformExit, vendors } = await stack.stop();
      expect(platformExit.code, platformExit.stderr).toBe(0);
      expect(vendors[0]?.code, vendors[0]?.stderr).toBe(0);
      for (const text of stack.answers) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toContain(WEBHOOK_SECRET);
      }
      expect(platformExit.stdout).not.toContain(WEBHOOK_SECRET);
      expect(platformExit.stderr).not.toMatch(/"level":"(error|fatal)"/);
    },
    SLOW,
  );
});
