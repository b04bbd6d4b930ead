// A real worker process (`platform start --role worker`) on a deployment with apps off (APP_RUNNER_URL=off,
// and an api without a runner): it sweeps the runs stranded before it started, and runs fail their
// call_app steps and app rules at once with apps_unavailable instead of staying running; the invocation
// records still answer (listings need no runner). docs/runs.md "How a run ends", "The sweep".
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsEngine } from '../../src/runs/engine-client.ts';
import { startRun } from '../../src/runs/service.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { errorOf, ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { cleanUpProcesses } from '../support/processes.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { publishDefinitionRows } from './definitions.ts';
import type { RunAnswer } from './stack.ts';
import { startWorkerProcess, until } from './worker-process.ts';

const SLOW = 120_000;

let platform: TestPlatform;
let tenantId: string;
let strandedId: string;

/** The run's rows written and its enqueue lost, as when the api stops in between. */
const lostEnqueue: RunsEngine = {
  start: async () => {},
  resume: async () => {},
  cancel: async () => {},
  close: async () => {},
};

const callVendor = { install: 'vendor', action: 'request', input: { method: 'GET', path: '/x' } };

beforeAll(async () => {
  // No APP_RUNNER_TOKEN: the api has no runner, so apps are off; runs are still started (DBOS).
  platform = await startTestPlatform({ API_RATE_LIMIT_PER_MINUTE: '0' });
  tenantId = await platform.tenantId();
  const publish = (kind: 'workflow' | 'rule_set', key: string, body: object) =>
    publishDefinitionRows(platform.database, tenantId, kind, key, body as never);
  await publish('workflow', 'calls', {
    steps: [{ id: 'call', type: 'call_app', ...callVendor, outputKey: 'out' }],
  });
  await publish('rule_set', 'checks', {
    rules: [
      { key: 'adult', type: 'condition', when: { path: 'applicant.age', gte: 18 } },
      { key: 'screen', type: 'app', ...callVendor, resultPath: 'hits', failWhen: { gt: 0 } },
    ],
  });
  await publish('workflow', 'checked', {
    steps: [
      { id: 'rules', type: 'rule_set', ruleSet: 'checks', outputKey: 'checks' },
      {
        id: 'verdict',
        type: 'decide',
        branches: [{ when: { path: 'checks.passed', equals: true }, outcome: 'approve' }],
        otherwise: 'review',
      },
    ],
  });
  // A run stranded an hour ago, before any worker ran: its workflow was never enqueued.
  const stranded = await startRun(
    { database: platform.database, engine: lostEnqueue, tenantId, actorId: 'user:test', seesContext: true },
    { workflow: 'calls', subjectId: 'stranded' },
  );
  strandedId = stranded.run.id;
  await platform.database.db
    .update(workflowRuns)
    .set({ createdAt: sql`now() - interval '1 hour'` })
    .where(eq(workflowRuns.id, strandedId));

  await startWorkerProcess({
    DATABASE_URL: platform.config.databaseUrl as string,
    APP_RUNNER_URL: 'off',
    APP_RUNNER_TOKEN: RUNNER_TOKEN,
    APP_CALL_TOKEN_SECRET: 'call-token-secret-for-the-worker-start-test',
    WORKER_EXECUTOR_ID: 'worker-start-test',
  });
}, SLOW);
afterAll(async () => {
  await cleanUpProcesses();
  await platform?.close();
});

const runOf = async (id: string) => ok<RunAnswer>(await platform.fetch(`/workflow-runs/${id}`));
/** The run once it is no longer running: at once here, so well within the test's time. */
const ended = (id: string) =>
  until(
    `run ${id}'s end`,
    async () => {
      const run = await runOf(id);
      return run.status === 'running' ? null : run;
    },
    20_000,
  );

async function start(workflow: string, context: Record<string, unknown> = {}) {
  const started = await ok<RunAnswer>(
    await platform.fetch('/workflow-runs', { method: 'POST', json: { workflow, subjectId: 's', context } }),
    201,
  );
  return ended(started.id);
}

it(
  'sweeps at start-up the run stranded before it started',
  async () => {
    const swept = await ended(strandedId);
    expect(swept).toMatchObject({
      status: 'failed',
      error: { code: 'internal', details: { reason: 'stranded', workflowStatus: null } },
    });
    expect(swept.steps[0]?.status).toBe('skipped');
  },
  SLOW,
);

describe('apps off', () => {
  it('fails a call_app step at once with apps_unavailable, nothing attempted', async () => {
    const done = await start('calls');
    const error = {
      code: 'apps_unavailable',
      message: 'this deployment has no app runner or no module storage',
    };
    expect(done).toMatchObject({ status: 'failed', error });
    expect(done.steps[0]).toMatchObject({ status: 'failed', attempts: 0, error });
  });

  it('ends an app rule in error apps_unavailable; the run goes on to its decision', async () => {
    const done = await start('checked', { applicant: { age: 36 } });
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({
      checks: {
        passed: false,
        rules: [
          { key: 'adult', status: 'passed', value: 36 },
          { key: 'screen', status: 'error', error: { code: 'apps_unavailable' } },
        ],
      },
      verdict: { outcome: 'review' },
    });
  });

  it('still answers the invocation records; the routes that need apps answer 503 apps_unavailable', async () => {
    const listed = await ok<{ items: unknown[]; total: number }>(await platform.fetch('/app-invocations'));
    expect(listed).toMatchObject({ items: [], total: 0 });
    const unknown = await errorOf(await platform.fetch(`/app-invocations/${crypto.randomUUID()}`), 404);
    expect(unknown.code).toBe('not_found');
    expect((await errorOf(await platform.fetch('/app-installs'), 503)).code).toBe('apps_unavailable');
    const evaluate = (dryRun: boolean) =>
      platform.fetch('/rule-sets/checks/evaluate', {
        method: 'POST',
        json: { data: { applicant: { age: 36 } }, dryRun },
      });
    expect((await errorOf(await evaluate(false), 503)).code).toBe('apps_unavailable');
    expect(await ok<{ passed: boolean }>(await evaluate(true))).toMatchObject({ passed: true });
  });
});
