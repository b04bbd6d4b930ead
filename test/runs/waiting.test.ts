// A run's step on an asynchronous action (docs/runs.md "Waiting"), through the real api, runner, worker
// and the release http-connector's request_async against a vendor double: the pending answer opens a
// session with the invocation record, the run waits with <outputKey>ExternalId in its context, and each
// way a session settles (completed, failed, timed out, install removed) moves the run on once through
// its continuation; a cancel while waiting fails the session and nothing continues.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleSession } from '../../src/vendor-sessions/session-store.ts';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import { ok } from '../installs/support.ts';
import { publishDefinition, type RunAnswer, type RunsStack, recordsOf, startRunsStack } from './stack.ts';
import { until } from './worker-process.ts';

let stack: RunsStack;
let tenantId: string;
let jobs = 0;

beforeAll(async () => {
  stack = await startRunsStack(
    [
      {
        method: 'POST',
        path: '/jobs',
        // Each job its own id, unless the body names one (two runs then start the same vendor job).
        respond: (request) => {
          const named = (JSON.parse(request.body || '{}') as { id?: string }).id;
          return { json: { id: named ?? `job_${++jobs}` } };
        },
      },
    ],
    { resumeIntervalMs: 25 },
  );
  tenantId = await stack.platform.tenantId();
  const admin = await stack.platform.token();
  const call = (path: string, method: string, json: unknown) =>
    stack.platform.fetch(path, { method, token: admin, json });
  const config = {
    baseUrl: stack.vendor.url,
    webhook: { scheme: 'hmac', externalIdFrom: { json: '/job/id' } },
  };
  await ok(
    await call('/app-installs', 'POST', {
      name: 'jobs',
      versionId: stack.connectorVersionId,
      enabled: false,
      config,
      approveHosts: [stack.vendor.host],
    }),
    201,
  );
  await ok(await call('/app-installs/jobs/secrets/WEBHOOK_SECRET', 'POST', { value: 'whsec-waiting' }));
  await ok(
    await call('/app-installs/jobs', 'PUT', { versionId: stack.connectorVersionId, enabled: true, config }),
  );
  await publishDefinition(stack, tenantId, 'workflow', 'verify', {
    steps: [
      {
        id: 'start',
        type: 'call_app',
        install: 'jobs',
        action: 'request_async',
        input: { method: 'POST', path: '/jobs', body: {} },
        inputMapping: { 'body.id': 'jobId', callbackTimeoutSeconds: 'wait' },
        outputKey: 'verification',
      },
      {
        id: 'verdict',
        type: 'decide',
        branches: [{ when: { path: 'verification.decision', equals: 'approved' }, outcome: 'approve' }],
        otherwise: 'review',
      },
    ],
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const runOf = async (id: string) =>
  ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${id}`, { token: await stack.platform.token() }));

async function startRun(context: Record<string, unknown> = {}) {
  return ok<RunAnswer>(
    await stack.platform.fetch('/workflow-runs', {
      method: 'POST',
      token: await stack.platform.token(),
      json: { workflow: 'verify', subjectId: 'subject-w', context },
    }),
    201,
  );
}

/** Waits until the run's status is `status` (the resumer and the workflows move it). */
const runIn = (id: string, status: string) =>
  until(`run ${id} ${status}`, async () => {
    const run = await runOf(id);
    return run.status === status ? run : null;
  });

const sessionOfRun = async (runId: string) => {
  const [session] = await stack.platform.database.db
    .select()
    .from(appCallbacks)
    .where(eq(appCallbacks.workflowRunId, runId));
  if (!session) throw new Error(`run ${runId} has no session`);
  return session;
};

/** A run waiting on its session: its status, context, session and pending record checked. */
async function waitingRun(context: Record<string, unknown> = {}) {
  const started = await startRun(context);
  const run = await runIn(started.id, 'waiting_callback');
  const session = await sessionOfRun(run.id);
  expect(run.context).toMatchObject({ verificationExternalId: session.externalId });
  expect(session).toMatchObject({
    status: 'pending',
    stepId: 'start',
    action: 'request_async',
    installName: 'jobs',
  });
  expect(run.steps.map((s) => [s.id, s.status])).toEqual([
    ['start', 'running'],
    ['verdict', 'pending'],
  ]);
  const records = await recordsOf(stack, run.id);
  expect(records.map((r) => r.status)).toEqual(['pending']);
  return { run, session };
}

describe('a step on an asynchronous action', () => {
  it('waits, then completes with the session’s output and runs the steps after it', async () => {
    const { run, session } = await waitingRun();
    // The action declares a seven-day wait and the input asked for none: the run waits seven days.
    const waitMs = (session.waitUntil?.getTime() ?? 0) - session.createdAt.getTime();
    expect(Math.round(waitMs / 1000)).toBe(604_800);
    await settleSession(stack.platform.database.db, session.id, {
      status: 'completed',
      output: { decision: 'approved', score: 7 },
    });
    const done = await runIn(run.id, 'completed');
    expect(done.context).toMatchObject({
      verification: { decision: 'approved', score: 7 },
      verificationExternalId: session.externalId,
      verdict: { outcome: 'approve' },
    });
    expect(done.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
    expect((await sessionOfRun(run.id)).resumedAt).not.toBeNull();
  });

  it('fails the run with AppCallbackFailed naming install and action, never the vendor’s reply', async () => {
    const { run, session } = await waitingRun();
    await settleSession(stack.platform.database.db, session.id, {
      status: 'failed',
      error: 'document expired: applicant Ada Lovelace',
    });
    const failed = await runIn(run.id, 'failed');
    expect(failed.error).toEqual({
      code: 'AppCallbackFailed',
      message: 'install jobs action request_async: the vendor reported the session failed',
      details: { install: 'jobs', action: 'request_async', callbackId: session.id },
    });
    expect(JSON.stringify(failed)).not.toContain('Ada');
    expect(failed.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
  });

  it('times out after the shorter wait the answer asked for (CallbackTimeout)', async () => {
    const { run, session } = await waitingRun({ wait: 1 });
    const waitMs = (session.waitUntil?.getTime() ?? 0) - session.createdAt.getTime();
    expect(Math.round(waitMs / 1000)).toBe(1);
    const failed = await runIn(run.id, 'failed');
    expect(failed.error).toMatchObject({ code: 'CallbackTimeout', details: { install: 'jobs' } });
    expect(await sessionOfRun(run.id)).toMatchObject({ status: 'timed_out', error: null });
  });

  it('a cancel while waiting fails the session with run_cancelled; nothing continues', async () => {
    const { run } = await waitingRun();
    const cancelled = await ok<RunAnswer>(
      await stack.platform.fetch(`/workflow-runs/${run.id}/cancel`, {
        method: 'POST',
        token: await stack.platform.token(),
      }),
    );
    expect(cancelled.status).toBe('cancelled');
    const session = await sessionOfRun(run.id);
    expect(session).toMatchObject({ status: 'failed', error: 'run_cancelled' });
    expect(session.resumedAt).not.toBeNull();
    // A completion arriving later finds the session settled: the run stays cancelled.
    expect(await settleSession(stack.platform.database.db, session.id, { status: 'completed' })).toBeNull();
    expect((await runOf(run.id)).status).toBe('cancelled');
  });

  it('an external id another session of the install holds fails the step at once with validation_error', async () => {
    const first = await waitingRun({ jobId: 'job-shared' });
    const second = await startRun({ jobId: 'job-shared' });
    const failed = await runIn(second.id, 'failed');
    expect(failed.error).toEqual({
      code: 'validation_error',
      message:
        'install jobs, action request_async: validation_error (external_id): another session of the install holds the external id the app answered',
      details: { reason: 'external_id', attempts: 1 },
    });
    const records = await recordsOf(stack, second.id);
    expect(records.map((r) => [r.status, (r.error as { code?: string } | null)?.code])).toEqual([
      ['error', 'validation_error'],
    ]);
    // The first run still waits on its session.
    expect((await runOf(first.run.id)).status).toBe('waiting_callback');
    const sessions = await stack.platform.database.db
      .select()
      .from(appCallbacks)
      .where(and(eq(appCallbacks.externalId, 'job-shared')));
    expect(sessions.map((s) => s.workflowRunId)).toEqual([first.run.id]);
    await settleSession(stack.platform.database.db, first.session.id, { status: 'completed', output: {} });
    await runIn(first.run.id, 'completed');
  });

  it('removing the install with force=true ends the wait at once: install_removed', async () => {
    const admin = await stack.platform.token();
    const { run } = await waitingRun();
    const again = await stack.platform.fetch('/app-installs/jobs', { method: 'DELETE', token: admin });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: 'install_in_use', details: { pendingCallbacks: 1, runs: [{ id: run.id }] } },
    });
    const removed = await stack.platform.fetch('/app-installs/jobs?force=true', {
      method: 'DELETE',
      token: admin,
    });
    expect(removed.status).toBe(204);
    const failed = await runIn(run.id, 'failed');
    expect(failed.error).toMatchObject({
      code: 'install_removed',
      details: { install: 'jobs', action: 'request_async' },
    });
    expect(await sessionOfRun(run.id)).toMatchObject({ status: 'failed', error: 'install_removed' });
  });
});
