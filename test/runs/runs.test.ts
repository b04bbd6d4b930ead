// Workflow runs through the real api, worker (DBOS, this process) and runner: http-connector against a
// vendor double (docs/runs.md "Runs").
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { definitions } from '../../src/runs/tables.ts';
import { registerRunWorkflows } from '../../src/runs/workflows.ts';
import { errorOf, ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  settledRun,
  startRunsStack,
} from './stack.ts';

let stack: RunsStack;
let tenantId: string;
let flaky = 0;

const step = (install: string, extra: Record<string, unknown> = {}) => ({
  id: 'fetch',
  type: 'call_app' as const,
  install,
  action: 'request',
  input: { method: 'GET' },
  inputMapping: { path: 'request.path' },
  outputKey: 'vendor',
  ...extra,
});

beforeAll(async () => {
  stack = await startRunsStack([
    { method: 'GET', path: '/hello', json: { greeting: 'hi' } },
    {
      method: 'GET',
      path: '/flaky',
      respond: () => (++flaky <= 2 ? { status: 503, json: { busy: true } } : { json: { third: 'time' } }),
    },
  ]);
  tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'vendor');
  await publishDefinition(stack, tenantId, 'workflow', 'hello', { steps: [step('vendor')] });
}, 120_000);
afterAll(async () => stack?.close());

const start = async (body: unknown, token?: string) =>
  stack.platform.fetch('/workflow-runs', { method: 'POST', json: body, ...(token ? { token } : {}) });

async function run(workflow: string, path = '/hello'): Promise<RunAnswer> {
  const started = await ok<RunAnswer>(
    await start({ workflow, subjectId: 'subject-1', context: { request: { path } } }),
    201,
  );
  expect(started.status).toBe('running');
  return settledRun(stack, started.id);
}

describe('workflow runs', () => {
  it('completes a one-step run with the app’s output in its context, audited', async () => {
    const done = await run('hello');
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.steps).toEqual([expect.objectContaining({ id: 'fetch', status: 'completed', attempts: 1 })]);
    expect(done.context).toMatchObject({
      vendor: { status: 200, body: { greeting: 'hi' } },
      request: { path: '/hello' },
    });
    const audited = await stack.platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.resourceId, done.id)));
    expect(audited.map((e) => e.action)).toEqual(['workflow.run.completed']);
  });

  it('runs the call_app step as a child workflow on the apps queue too (callMode queue)', async () => {
    registerRunWorkflows({ ...stack.runtime, callMode: 'queue' });
    try {
      const done = await run('hello');
      expect(done).toMatchObject({ status: 'completed', context: { vendor: { body: { greeting: 'hi' } } } });
      const [child] = await stack.platform.database.db
        .execute<{ queue_name: string; status: string }>(
          sql`select queue_name, status from dbos.workflow_status where workflow_uuid = ${`${done.id}:fetch`}`,
        )
        .then((r) => r.rows);
      expect(child).toEqual({ queue_name: 'apps', status: 'SUCCESS' });
    } finally {
      registerRunWorkflows(stack.runtime);
    }
  });

  it('retries a retryable error answer: 503 twice then 200 is three attempts with one idempotency key', async () => {
    await publishDefinition(stack, tenantId, 'workflow', 'flaky', {
      steps: [step('vendor', { retry: { maxAttempts: 3, backoffMs: 50 } })],
    });
    flaky = 0;
    const done = await run('flaky', '/flaky');
    expect(done.status).toBe('completed');
    expect(done.steps[0]).toMatchObject({ status: 'completed', attempts: 3 });
    expect(flaky).toBe(3);
    // One invocation record per attempt, under the one key of the step.
    const records = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(eq(appInvocations.workflowRunId, done.id))
      .orderBy(asc(appInvocations.attempt));
    expect(records.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(records.map((r) => r.status)).toEqual(['error', 'error', 'success']);
    expect(new Set(records.map((r) => r.idempotencyKey))).toEqual(new Set([`${done.id}:fetch`]));
  });

  it('fails the step and the run with the spec’s code: a disabled install, then a deleted one', async () => {
    await installConnector(stack, 'doomed');
    await publishDefinition(stack, tenantId, 'workflow', 'doomed', { steps: [step('doomed')] });
    const admin = await stack.platform.token();
    const version = stack.connectorVersionId;
    const config = { baseUrl: stack.vendor.url };
    await ok(
      await stack.platform.fetch('/app-installs/doomed', {
        method: 'PUT',
        token: admin,
        json: { versionId: version, enabled: false, config },
      }),
    );
    const disabled = await run('doomed');
    expect(disabled.status).toBe('failed');
    expect(disabled.steps[0]).toMatchObject({ status: 'failed', error: { code: 'install_not_configured' } });
    expect(disabled.error?.code).toBe('install_not_configured');

    await ok(await stack.platform.fetch('/app-installs/doomed', { method: 'DELETE', token: admin }), 204);
    const gone = await run('doomed');
    expect(gone.status).toBe('failed');
    expect(gone.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'unknown_install' },
    });
    const [failed] = await stack.platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, gone.id), eq(auditEvents.action, 'workflow.run.failed')));
    expect(failed?.data).toMatchObject({ error: { code: 'unknown_install' }, stepId: 'fetch' });
  });

  it('runs a rule_set step and a decide step, emitting decision.emitted', async () => {
    await publishDefinition(stack, tenantId, 'rule_set', 'adult', {
      rules: [{ key: 'age', type: 'condition', when: { path: 'applicant.age', gte: 18 } }],
    });
    await publishDefinition(stack, tenantId, 'workflow', 'decides', {
      steps: [
        { id: 'rules', type: 'rule_set', ruleSet: 'adult', outputKey: 'rules' },
        {
          id: 'verdict',
          type: 'decide',
          branches: [{ when: { path: 'rules.passed', equals: true }, outcome: 'approve', riskScore: 10 }],
          otherwise: 'decline',
        },
      ],
    });
    const started = await ok<RunAnswer>(
      await start({ workflow: 'decides', subjectId: 's-9', context: { applicant: { age: 36 } } }),
      201,
    );
    const done = await settledRun(stack, started.id);
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({
      rules: { passed: true },
      verdict: { outcome: 'approve', riskScore: 10 },
    });
    const [decision] = await stack.platform.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'decision.emitted')))
      .orderBy(asc(auditEvents.id));
    expect(decision?.data).toMatchObject({
      outcome: 'approve',
      riskScore: 10,
      source: 'verdict',
      workflowRunId: done.id,
    });
  });

  it('cancels a running run; a run that ended cannot be cancelled', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    stack.vendor.route({
      method: 'GET',
      path: '/hold',
      respond: async () => {
        await held;
        return { json: {} };
      },
    });
    const started = await ok<RunAnswer>(
      await start({ workflow: 'hello', subjectId: 's', context: { request: { path: '/hold' } } }),
      201,
    );
    const cancelled = await ok<RunAnswer>(
      await stack.platform.fetch(`/workflow-runs/${started.id}/cancel`, { method: 'POST' }),
    );
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.steps[0]?.status).toBe('cancelled');
    release();
    const again = await errorOf(
      await stack.platform.fetch(`/workflow-runs/${started.id}/cancel`, { method: 'POST' }),
      409,
    );
    expect(again.code).toBe('conflict');
    expect((await settledRun(stack, started.id)).status).toBe('cancelled');
  });

  it('lists runs newest first with filters; hides context without runs:context; 404 for another tenant', async () => {
    const list = await ok<{ items: { id: string; workflow: string }[]; total: number }>(
      await stack.platform.fetch('/workflow-runs?workflow=hello&status=completed&limit=10'),
    );
    expect(list.items.length).toBeGreaterThan(0);
    expect(list.items.every((r) => r.workflow === 'hello')).toBe(true);
    const id = list.items[0]?.id as string;
    const analyst = await stack.platform.token({ roles: ['analyst'] });
    const seen = await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${id}`, { token: analyst }));
    expect(seen.context).toBe('[redacted]');
    const other = await stack.platform.token({ tenant: 'other' });
    expect(
      (await errorOf(await stack.platform.fetch(`/workflow-runs/${id}`, { token: other }), 404)).code,
    ).toBe('not_found');
    await errorOf(
      await stack.platform.fetch(`/workflow-runs/${id}/cancel`, { method: 'POST', token: other }),
      404,
    );
  });

  it('refuses bad bodies with pointers, an unknown workflow (404) and one never published (409)', async () => {
    const bad = await errorOf(await start({ workflow: 'hello', context: [], extra: 1 }), 400);
    const paths = (bad.details?.issues as { path: string }[]).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/subjectId', '/extra']));
    expect((await errorOf(await start({ workflow: 'nope', subjectId: 's' }), 404)).code).toBe('not_found');
    const db = stack.platform.database.db;
    await db
      .insert(definitions)
      .values({ tenantId, kind: 'workflow', key: 'draft-only', createdBy: 'user:test' });
    expect((await errorOf(await start({ workflow: 'draft-only', subjectId: 's' }), 409)).code).toBe(
      'conflict',
    );
  });
});
