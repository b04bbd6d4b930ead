// A run's error names the install, the action and the error code, never the vendor's reply or any text
// the module produced (docs/runs.md "A run's error"): through the real api, worker and runner, with a
// hostile vendor that echoes into its error replies what it was sent — the applicant's name mapped into
// the query, and the API key (which the runner redacts to its placeholder) — beside its own marker. The
// reply stays in the invocation record, readable with runs:context.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorRequest } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import type { InvocationView } from '../../src/calls/invocations.ts';
import { ok } from '../installs/support.ts';
import { publishDefinition, type RunAnswer, type RunsStack, settledRun, startRunsStack } from './stack.ts';

const VENDOR_MARKER = 'vendor-marker-5c1e';
const APPLICANT_MARKER = 'Applicant-Marker-77aa';
const API_KEY = 'sk-hostile-0d9f1b2c3a';
const PLACEHOLDER = '[secret:API_KEY]';
/** What no run error, run list, audit record or rule error may hold. */
const FORBIDDEN = [VENDOR_MARKER, APPLICANT_MARKER, API_KEY, PLACEHOLDER, 'the vendor answered'];

let stack: RunsStack;
let tenantId: string;
let admin: string;

/** The vendor's reply: its marker, the query it got (the applicant's name) and the key it got. */
const echo = (status: number) => (request: VendorRequest) => ({
  status,
  json: { m: VENDOR_MARKER, q: request.query, k: request.headers['x-api-key'] ?? null },
});

beforeAll(async () => {
  stack = await startRunsStack([
    { method: 'GET', path: '/reject', respond: echo(400) },
    { method: 'GET', path: '/down', respond: echo(503) },
  ]);
  tenantId = await stack.platform.tenantId();
  admin = await stack.platform.token();
  for (const name of ['hostile', 'hostile-backup']) await installWithKey(name);
  const step = (path: string, extra: Record<string, unknown> = {}) => ({
    id: 'screen',
    type: 'call_app' as const,
    install: 'hostile',
    action: 'request',
    input: { method: 'GET', path },
    inputMapping: { 'query.name': 'applicant.name' },
    outputKey: 'screening',
    ...extra,
  });
  await publishDefinition(stack, tenantId, 'workflow', 'rejected', { steps: [step('/reject')] });
  await publishDefinition(stack, tenantId, 'workflow', 'both-down', {
    steps: [
      step('/down', {
        retry: { maxAttempts: 1 },
        fallback: {
          install: 'hostile-backup',
          action: 'request',
          input: { method: 'GET', path: '/reject' },
          inputMapping: { 'query.name': 'applicant.name' },
        },
      }),
    ],
  });
  await publishDefinition(stack, tenantId, 'rule_set', 'hostile-rules', {
    rules: [
      {
        key: 'screen',
        type: 'app',
        install: 'hostile',
        action: 'request',
        input: { method: 'GET', path: '/reject' },
        inputMapping: { 'query.name': 'applicant.name' },
        resultPath: 'status',
        failWhen: { equals: 200 },
      },
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

/** http-connector with an API key header, the key stored, enabled. */
async function installWithKey(name: string) {
  const config = { baseUrl: stack.vendor.url, auth: { type: 'apiKey', header: 'X-Api-Key' } };
  const call = (path: string, method: string, json: unknown) =>
    stack.platform.fetch(path, { method, json, token: admin });
  await ok(
    await call('/app-installs', 'POST', {
      name,
      versionId: stack.connectorVersionId,
      enabled: false,
      config,
      approveHosts: [stack.vendor.host],
    }),
    201,
  );
  await ok(await call(`/app-installs/${name}/secrets/API_KEY`, 'POST', { value: API_KEY }));
  await ok(
    await call(`/app-installs/${name}`, 'PUT', {
      versionId: stack.connectorVersionId,
      enabled: true,
      config,
    }),
  );
}

async function failedRun(workflow: string): Promise<RunAnswer> {
  const started = await ok<RunAnswer>(
    await stack.platform.fetch('/workflow-runs', {
      method: 'POST',
      json: { workflow, subjectId: 'applicant-1', context: { applicant: { name: APPLICANT_MARKER } } },
    }),
    201,
  );
  const done = await settledRun(stack, started.id);
  expect(done.status).toBe('failed');
  return done;
}

function expectClean(what: string, value: unknown) {
  const text = JSON.stringify(value);
  for (const forbidden of FORBIDDEN) expect(text, `${what} holds ${forbidden}`).not.toContain(forbidden);
}

/** Everything about a failed run an analyst without runs:context reads, besides its records. */
async function analystViews(run: RunAnswer) {
  const analyst = await stack.platform.token({ roles: ['analyst'] });
  const one = await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${run.id}`, { token: analyst }));
  const list = await ok<{ items: { id: string }[] }>(
    await stack.platform.fetch(`/workflow-runs?subjectId=applicant-1&limit=100`, { token: analyst }),
  );
  const [audited] = await stack.platform.database.db
    .select({ data: auditEvents.data })
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, run.id), eq(auditEvents.action, 'workflow.run.failed')));
  expect(audited).toBeDefined();
  return { one, listed: list.items.find((item) => item.id === run.id), audited: audited?.data };
}

const recordsOf = async (runId: string, token?: string) =>
  (
    await ok<{ items: InvocationView[] }>(
      await stack.platform.fetch(`/app-invocations?workflowRunId=${runId}`, token ? { token } : {}),
    )
  ).items;

describe('a run’s error holds no vendor reply', () => {
  it('names the install, action, code and reason of a final error answer; the record keeps the reply', async () => {
    const done = await failedRun('rejected');
    const error = {
      code: 'app_call_failed',
      message:
        'install hostile, action request: app_call_failed (error): the app answered an error; its invocation record holds the reply',
      details: { reason: 'error', attempts: 1 },
    };
    expect(done.error).toEqual(error);
    expect(done.steps[0]?.error).toEqual(error);
    const { one, listed, audited } = await analystViews(done);
    expect(listed).toMatchObject({ error });
    expect(audited).toMatchObject({ stepId: 'screen', error });
    // The admin's view holds the context (the applicant's name) by right: its errors and steps are checked.
    const errors = { error: done.error, steps: done.steps };
    for (const [what, value] of Object.entries({ errors, one, listed, audited })) expectClean(what, value);

    // The reply stays in the record: whole with runs:context, redacted without.
    const [record] = await recordsOf(done.id);
    expect(record?.error?.message).toContain(VENDOR_MARKER);
    expect(record?.error?.message).toContain(APPLICANT_MARKER);
    expect(record?.error?.message).toContain(PLACEHOLDER);
    expect(record?.error?.message).not.toContain(API_KEY);
    const analyst = await stack.platform.token({ roles: ['analyst'] });
    const [redacted] = await recordsOf(done.id, analyst);
    expect(redacted?.error).toMatchObject({
      code: 'app_call_failed',
      reason: 'error',
      message: '[redacted]',
    });
  });

  it('words the fallback’s error in details.fallback the same way', async () => {
    const done = await failedRun('both-down');
    expect(done.steps[0]?.error).toEqual({
      code: 'app_call_failed',
      message:
        'install hostile, action request: app_call_failed (error): the app answered an error; its invocation record holds the reply',
      details: {
        reason: 'error',
        attempts: 2,
        fallback: {
          install: 'hostile-backup',
          action: 'request',
          code: 'app_call_failed',
          message:
            'install hostile-backup, action request: app_call_failed (error): the app answered an error; its invocation record holds the reply',
        },
      },
    });
    const { one, listed, audited } = await analystViews(done);
    // The admin's view holds the context (the applicant's name) by right: its errors and steps are checked.
    const errors = { error: done.error, steps: done.steps };
    for (const [what, value] of Object.entries({ errors, one, listed, audited })) expectClean(what, value);
    const records = await recordsOf(done.id);
    expect(records.map((r) => [r.installName, r.status])).toEqual([
      ['hostile-backup', 'error'],
      ['hostile', 'error'],
    ]);
    expect(records.every((r) => r.error?.message.includes(VENDOR_MARKER))).toBe(true);
  });

  it('keeps the reply out of an evaluated app rule’s error too', async () => {
    const evaluation = await ok<{ rules: { status: string; error?: unknown }[] }>(
      await stack.platform.fetch('/rule-sets/hostile-rules/evaluate', {
        method: 'POST',
        json: { data: { applicant: { name: APPLICANT_MARKER } } },
      }),
    );
    expect(evaluation.rules).toEqual([
      {
        key: 'screen',
        type: 'app',
        status: 'error',
        error: {
          code: 'app_call_failed',
          message:
            'install hostile, action request: app_call_failed (error): the app answered an error; its invocation record holds the reply',
          details: { reason: 'error' },
        },
      },
    ]);
    expectClean('evaluation', evaluation);
  });
});
