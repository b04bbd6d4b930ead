// A burst of one tenant's runs waits for the runner instead of failing (issue 26 item 5; a call no runner
// took waits for capacity, spending no attempt; docs/calls.md): the real api, worker (DBOS, this process) and
// runner (its defaults: 8 calls at once, 4 a tenant), http-connector against a vendor double holding each
// request 100 ms (long enough that a burst's calls overlap: 200 runs start at once, 4 calls go out at a time). Every run completes, the vendor answers each run once, no attempt is recorded `busy` and
// the health report counts no failure. The worker's runner client is watched (it still calls the real
// runner): the worker never has more than the tenant's 4 calls on their way, and the runner never answers
// busy.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInvocations } from '../../src/calls/tables.ts';
import type { RunnerClient } from '../../src/runner/client.ts';
import { workflowRunSteps, workflowRuns } from '../../src/runs/tables.ts';
import { type RunsRuntime, registerRunWorkflows } from '../../src/runs/workflows.ts';
import { ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  requestStep,
  startRunsStack,
} from './stack.ts';

/** Runs started at once: the 200, inline; queue mode repeats it with fewer (it costs more a run). */
const INLINE_RUNS = 200;
const QUEUE_RUNS = 60;
const VENDOR_HOLDS_MS = 100;

let stack: RunsStack;
let tenantId: string;
/** Requests the vendor answered, by the run's number (query `n`). */
const answered = new Map<string, number>();
/** The worker's calls of the runner: on their way now, the most at once, and the runner's busy answers. */
const sent = { now: 0, most: 0, busy: 0 };
let watched: RunsRuntime;

/** The real runner client, counting the calls the worker has on their way and the busy answers. */
function watchedRunner(runner: RunnerClient): RunnerClient {
  return {
    ...runner,
    invoke: async (body) => {
      sent.now++;
      sent.most = Math.max(sent.most, sent.now);
      try {
        const result = await runner.invoke(body);
        if (!result.ok && result.code === 'busy') sent.busy++;
        return result;
      } finally {
        sent.now--;
      }
    },
  };
}

beforeAll(async () => {
  stack = await startRunsStack([
    {
      method: 'GET',
      path: '/screen',
      respond: async (request) => {
        // The vendor's own pace, not a test's synchronisation: each request takes 100 ms to answer.
        await new Promise((resolve) => setTimeout(resolve, VENDOR_HOLDS_MS));
        const n = request.query.n ?? '';
        answered.set(n, (answered.get(n) ?? 0) + 1);
        return { json: { n } };
      },
    },
  ]);
  tenantId = await stack.platform.tenantId();
  const attempt = stack.runtime.attempt;
  if (!attempt) throw new Error('the test stack runs with apps on');
  watched = { ...stack.runtime, attempt: { ...attempt, runner: watchedRunner(attempt.runner) } };
  registerRunWorkflows(watched);
  await installConnector(stack, 'vendor');
  await publishDefinition(stack, tenantId, 'workflow', 'screen', {
    steps: [requestStep('vendor', '/screen', { inputMapping: { 'query.n': 'n' } })],
  });
}, 120_000);
afterAll(async () => stack?.close());

interface EndedRun {
  id: string;
  status: string;
  error: unknown;
  attempts: number;
}

/**
 * Starts `count` runs at once (numbered from `from`) and waits, on the database (hundreds of GETs would
 * meet the api's rate limit), until none of them is running; then answers each run with its step's attempts.
 */
async function burst(from: number, count: number): Promise<EndedRun[]> {
  const token = await stack.platform.token();
  const numbers = Array.from({ length: count }, (_, i) => String(from + i));
  const started = await Promise.all(
    numbers.map(async (n) =>
      ok<RunAnswer>(
        await stack.platform.fetch('/workflow-runs', {
          method: 'POST',
          token,
          json: { workflow: 'screen', subjectId: `applicant-${n}`, context: { n } },
        }),
        201,
      ),
    ),
  );
  const ids = started.map((run) => run.id);
  const db = stack.platform.database.db;
  const giveUpAt = Date.now() + 240_000;
  for (;;) {
    const [left] = await db
      .select({ count: sql<number>`count(*)::int` })
      .from(workflowRuns)
      .where(and(inArray(workflowRuns.id, ids), eq(workflowRuns.status, 'running')));
    if (left?.count === 0) break;
    expect(Date.now(), `${left?.count} runs still running`).toBeLessThan(giveUpAt);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return db
    .select({
      id: workflowRuns.id,
      status: workflowRuns.status,
      error: workflowRuns.error,
      attempts: workflowRunSteps.attempts,
    })
    .from(workflowRuns)
    .innerJoin(workflowRunSteps, eq(workflowRunSteps.runId, workflowRuns.id))
    .where(inArray(workflowRuns.id, ids));
}

/** The tenant's invocation records by status and reason. */
const recordedOutcomes = async () =>
  (
    await stack.platform.database.db
      .select({
        status: appInvocations.status,
        reason: sql<string | null>`${appInvocations.error}->>'reason'`,
        count: sql<number>`count(*)::int`,
      })
      .from(appInvocations)
      .where(eq(appInvocations.tenantId, tenantId))
      .groupBy(appInvocations.status, sql`${appInvocations.error}->>'reason'`)
  ).map((row) => ({ ...row }));

async function expectBurstCompletes(from: number, count: number) {
  const ended = await burst(from, count);
  const failed = ended.filter((run) => run.status !== 'completed');
  expect(
    failed.map((run) => run.error),
    'every run completes',
  ).toEqual([]);
  expect(ended.map((run) => run.attempts)).toEqual(ended.map(() => 1));
  // The vendor answered each run exactly once.
  for (let n = from; n < from + count; n++) expect(answered.get(String(n)), `run ${n}`).toBe(1);
}

describe('a burst of one tenant’s runs', () => {
  it(`${INLINE_RUNS} runs started at once all complete, the vendor answering each once (inline)`, async () => {
    await expectBurstCompletes(0, INLINE_RUNS);
    // The worker never sends the tenant more attempts at once than the runner admits for it (4).
    expect(sent).toEqual({ now: 0, most: 4, busy: 0 });
    expect(await recordedOutcomes()).toEqual([{ status: 'success', reason: null, count: INLINE_RUNS }]);
    const health = await ok<{ installs: { name: string; calls: number; failures: number }[] }>(
      await stack.platform.fetch('/apps/health'),
    );
    expect(health.installs).toEqual([
      expect.objectContaining({ name: 'vendor', calls: INLINE_RUNS, failures: 0 }),
    ]);
  }, 300_000);

  it(`${QUEUE_RUNS} runs started at once all complete in queue mode too (the apps queue bounds a tenant)`, async () => {
    registerRunWorkflows({ ...watched, callMode: 'queue' });
    sent.most = 0;
    try {
      await expectBurstCompletes(INLINE_RUNS, QUEUE_RUNS);
    } finally {
      registerRunWorkflows(watched);
    }
    expect(sent).toEqual({ now: 0, most: 4, busy: 0 });
    expect(await recordedOutcomes()).toEqual([
      { status: 'success', reason: null, count: INLINE_RUNS + QUEUE_RUNS },
    ]);
  }, 300_000);
});
