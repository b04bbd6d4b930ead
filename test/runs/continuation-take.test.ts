// A continuation's take of its settled session (src/runs/waits.ts takeSettledSession) has no DBOS
// checkpoint: a continuation recovered after a crash takes again. So the take must answer the same to its
// own workflow, move nothing else, and never move a run that went on to wait at a later step's session
// (that run's own continuation moves it). Against a real, migrated PostgreSQL; the rows are written as
// the api, the step and the webhook write them.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import type { WorkflowStep } from '../../src/runs/model.ts';
import { stepsOfRun } from '../../src/runs/run-store.ts';
import { workflowRunSteps, workflowRuns } from '../../src/runs/tables.ts';
import { takeSettledSession } from '../../src/runs/waits.ts';
import { resumeWorkflowId } from '../../src/runs/workflows.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { appCallbacks, type CallbackStatus } from '../../src/vendor-sessions/tables.ts';
import { createTestDatabase } from '../support/database.ts';
import { insertSession } from '../vendor-sessions/rows.ts';
import { publishDefinitionRows } from './definitions.ts';

let database: Database;
let tenantId: string;
let versionId: string;
let definitionId: string;

const STEPS = [
  { id: 'first', type: 'call_app', install: 'kyc', action: 'verify', input: {}, outputKey: 'first' },
  { id: 'second', type: 'call_app', install: 'kyc', action: 'verify', input: {}, outputKey: 'second' },
] as WorkflowStep[];

beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
  tenantId = (await ensureTenant(database.db, 'continuation-take')).tenant.id;
  ({ definitionId, versionId } = await publishDefinitionRows(database, tenantId, 'workflow', 'two-waits', {
    steps: STEPS,
  }));
});
afterAll(() => database?.close());

/**
 * A run waiting at step `at` on its session, settled `status`: the steps before it completed, it running,
 * the run waiting_callback under `workflowId` (the workflow that last moved it). Answers the ids.
 */
async function waitingRun(at: 'first' | 'second', status: CallbackStatus, workflowId: string | null = null) {
  const runId = randomUUID();
  await database.db.insert(workflowRuns).values({
    id: runId,
    tenantId,
    definitionId,
    definitionVersionId: versionId,
    workflowKey: 'two-waits',
    version: 1,
    subjectId: 'subject-1',
    context: { applicant: 'a' },
    createdBy: 'user:test',
    status: 'waiting_callback',
    workflowId,
  });
  const position = at === 'first' ? 0 : 1;
  await database.db.insert(workflowRunSteps).values(
    STEPS.map((s, i) => ({
      runId,
      stepId: s.id,
      position: i,
      type: s.type,
      status:
        i < position ? ('completed' as const) : i === position ? ('running' as const) : ('pending' as const),
    })),
  );
  const session = await sessionOf(runId, at, status);
  return { runId, sessionId: session.id };
}

const sessionOf = (runId: string, stepId: string, status: CallbackStatus) =>
  insertSession(database.db, {
    tenantId,
    workflowRunId: runId,
    stepId,
    status,
    ...(status === 'completed' ? { output: { decision: 'approved' } } : {}),
  });

const runOf = async (runId: string) =>
  (await database.db.select().from(workflowRuns).where(eq(workflowRuns.id, runId)))[0];
const resumedAt = async (sessionId: string) =>
  (await database.db.select().from(appCallbacks).where(eq(appCallbacks.id, sessionId)))[0]?.resumedAt ?? null;

describe('a continuation takes its settled session', () => {
  it('moves the waiting run to running under itself, marks the session resumed, and ends the step with its output', async () => {
    const { runId, sessionId } = await waitingRun('first', 'completed');
    const workflowId = resumeWorkflowId(runId, sessionId);
    const taken = await takeSettledSession(database, runId, sessionId, workflowId);
    expect(taken).toMatchObject({
      index: 0,
      step: { id: 'first' },
      end: { status: 'completed', output: { decision: 'approved' } },
      run: { id: runId, status: 'running', workflowId, context: { applicant: 'a' }, tenantId },
    });
    expect(taken?.run.steps.map((s) => s.id)).toEqual(['first', 'second']);
    expect(await runOf(runId)).toMatchObject({ status: 'running', workflowId });
    expect(await resumedAt(sessionId)).not.toBeNull();
  });

  it('answers the same to its own workflow taking again (recovered after a crash), and moves nothing', async () => {
    const { runId, sessionId } = await waitingRun('first', 'failed');
    const workflowId = resumeWorkflowId(runId, sessionId);
    const first = await takeSettledSession(database, runId, sessionId, workflowId);
    const marked = await resumedAt(sessionId);
    const again = await takeSettledSession(database, runId, sessionId, workflowId);
    expect(again).toEqual(first);
    expect(again?.end).toMatchObject({ status: 'failed', error: { code: 'AppCallbackFailed' } });
    expect(await resumedAt(sessionId)).toEqual(marked);
  });

  it('never moves a run that went on to wait at a later step: its own continuation takes it', async () => {
    // The first session's continuation took the run, completed the first step, and the second step's
    // pending answer put the run waiting again; then it crashed, and runs again from its start.
    const { runId, sessionId: second } = await waitingRun('second', 'completed');
    const first = await sessionOf(runId, 'first', 'completed');
    const firstWorkflow = resumeWorkflowId(runId, first.id);
    await database.db
      .update(workflowRuns)
      .set({ workflowId: firstWorkflow })
      .where(eq(workflowRuns.id, runId));
    await database.db
      .update(appCallbacks)
      .set({ resumedAt: new Date() })
      .where(eq(appCallbacks.id, first.id));

    expect(await takeSettledSession(database, runId, first.id, firstWorkflow)).toBeNull();
    expect(await runOf(runId)).toMatchObject({ status: 'waiting_callback', workflowId: firstWorkflow });

    const secondWorkflow = resumeWorkflowId(runId, second);
    expect(await takeSettledSession(database, runId, second, secondWorkflow)).toMatchObject({
      index: 1,
      step: { id: 'second' },
    });
    expect(await runOf(runId)).toMatchObject({ status: 'running', workflowId: secondWorkflow });
    // The first continuation, run again now, leaves the run to the second.
    expect(await takeSettledSession(database, runId, first.id, firstWorkflow)).toBeNull();
    expect(await runOf(runId)).toMatchObject({ status: 'running', workflowId: secondWorkflow });
  });

  it('takes nothing while the session is pending, and leaves it unmarked', async () => {
    const { runId, sessionId } = await waitingRun('first', 'pending');
    expect(
      await takeSettledSession(database, runId, sessionId, resumeWorkflowId(runId, sessionId)),
    ).toBeNull();
    expect(await runOf(runId)).toMatchObject({ status: 'waiting_callback' });
    expect(await resumedAt(sessionId)).toBeNull();
  });

  it('takes nothing of a cancelled run or one another continuation moves, and marks the session resumed', async () => {
    const cancelled = await waitingRun('first', 'completed');
    await database.db
      .update(workflowRuns)
      .set({ status: 'cancelled' })
      .where(eq(workflowRuns.id, cancelled.runId));
    const moving = await waitingRun('first', 'completed');
    await database.db
      .update(workflowRuns)
      .set({ status: 'running', workflowId: 'another-continuation' })
      .where(eq(workflowRuns.id, moving.runId));
    for (const { runId, sessionId } of [cancelled, moving]) {
      expect(
        await takeSettledSession(database, runId, sessionId, resumeWorkflowId(runId, sessionId)),
      ).toBeNull();
      expect(await resumedAt(sessionId)).not.toBeNull();
    }
    expect(await runOf(cancelled.runId)).toMatchObject({ status: 'cancelled' });
    expect(await runOf(moving.runId)).toMatchObject({
      status: 'running',
      workflowId: 'another-continuation',
    });
    expect((await stepsOfRun(database, moving.runId)).map((s) => s.status)).toEqual(['running', 'pending']);
  });

  it('takes no session of another run', async () => {
    const mine = await waitingRun('first', 'completed');
    const other = await waitingRun('first', 'completed');
    const workflowId = resumeWorkflowId(mine.runId, other.sessionId);
    expect(await takeSettledSession(database, mine.runId, other.sessionId, workflowId)).toBeNull();
    expect(await runOf(mine.runId)).toMatchObject({ status: 'waiting_callback' });
    expect(await resumedAt(other.sessionId)).toBeNull();
  });
});
