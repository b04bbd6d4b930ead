// A vendor answering text PostgreSQL cannot store (U+0000, a lone surrogate), passed on by the release
// http-connector through the real runner: every run ends, evaluation answers, and the test call gives the
// same output, each character replaced with U+FFFD (docs/module-contract.md "Text an answer may hold").
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInvocations } from '../../src/calls/tables.ts';
import { ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  settledRun,
  startRunsStack,
} from './stack.ts';

let stack: RunsStack;

/** The vendor's JSON text, written by hand: JSON.stringify would write the same escapes. */
const ANSWERS: Record<string, string> = {
  '/nul': '{"name":"Ada\\u0000Lovelace","k\\u0000ey":["\\u0000"]}',
  '/surrogate': '{"name":"Ada\\ud800Lovelace","k\\udfffey":["\\ud800"],"pair":"\\ud83d\\ude00"}',
};
const EXPECTED: Record<string, unknown> = {
  '/nul': { name: 'Ada\uFFFDLovelace', 'k\uFFFDey': ['\uFFFD'] },
  '/surrogate': { name: 'Ada\uFFFDLovelace', 'k\uFFFDey': ['\uFFFD'], pair: '😀' },
};

beforeAll(async () => {
  stack = await startRunsStack(
    Object.entries(ANSWERS).map(([path, body]) => ({
      method: 'GET',
      path,
      headers: { 'content-type': 'application/json' },
      body,
    })),
  );
  const tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'vendor');
  await publishDefinition(stack, tenantId, 'workflow', 'echo', {
    steps: [
      {
        id: 'fetch',
        type: 'call_app',
        install: 'vendor',
        action: 'request',
        input: { method: 'GET' },
        inputMapping: { path: 'request.path' },
        outputKey: 'vendor',
      },
    ],
  });
  await publishDefinition(stack, tenantId, 'rule_set', 'echo', {
    rules: [
      {
        key: 'name',
        type: 'app',
        install: 'vendor',
        action: 'request',
        input: { method: 'GET' },
        inputMapping: { path: 'request.path' },
        resultPath: 'body',
        failWhen: { equals: 'never' },
      },
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

describe.each(Object.keys(ANSWERS))('a vendor answering %s', (path) => {
  it('a run completes with U+FFFD in its context, step output and invocation record', async () => {
    const started = await ok<RunAnswer>(
      await stack.platform.fetch('/workflow-runs', {
        method: 'POST',
        json: { workflow: 'echo', subjectId: 'subject-1', context: { request: { path } } },
      }),
      201,
    );
    const done = await settledRun(stack, started.id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.context).toMatchObject({ vendor: { status: 200, body: EXPECTED[path] } });
    const records = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(eq(appInvocations.workflowRunId, done.id));
    expect(records.map((r) => r.status)).toEqual(['success']);
    expect(records[0]?.output).toMatchObject({ body: EXPECTED[path] });
    const listed = await ok<{ items: { output: unknown }[] }>(
      await stack.platform.fetch(`/app-invocations?workflowRunId=${done.id}`),
    );
    expect(listed.items[0]?.output).toMatchObject({ body: EXPECTED[path] });
  });

  it('an evaluation answers 200 with the same value', async () => {
    const result = await ok<{ passed: boolean; rules: unknown[] }>(
      await stack.platform.fetch('/rule-sets/echo/evaluate', {
        method: 'POST',
        json: { data: { request: { path } } },
      }),
    );
    expect(result).toMatchObject({
      passed: true,
      rules: [{ key: 'name', status: 'passed', value: EXPECTED[path] }],
    });
  });

  it('a test call answers the same output', async () => {
    const answer = await ok<{ status: string; output: unknown }>(
      await stack.platform.fetch('/app-installs/vendor/test', {
        method: 'POST',
        json: { action: 'request', input: { method: 'GET', path } },
      }),
    );
    expect(answer).toMatchObject({ status: 'success', output: { status: 200, body: EXPECTED[path] } });
  });
});
