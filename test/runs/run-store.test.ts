// The run's own row writes carry no DBOS checkpoint (docs/runs.md "What is checkpointed, and what is
// not"): a recovered workflow runs them again, so each must change nothing the second time and answer
// what the first time wrote (a step's start time, which its deadline counts from). Against a real,
// migrated PostgreSQL; the rows are written as the api writes them.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import type { RunError, WorkflowStep } from '../../src/runs/model.ts';
import { completeStep, endRun, openRun, stepsOfRun } from '../../src/runs/run-store.ts';
import { workflowRunSteps, workflowRuns } from '../../src/runs/tables.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';
import { publishDefinitionRows } from './definitions.ts';

let database: Database;
let tenantId: string;
let versionId: string;
let definitionId: string;

const STEPS: WorkflowStep[] = [
  { id: 'check', type: 'call_app', install: 'vendor', action: 'screen', input: {}, outputKey: 'checked' },
  {
    id: 'decide',
    type: 'decide',
    branches: [{ when: { path: '/checked/ok', equals: true }, outcome: 'approve' }],
    otherwise: 'review',
  },
  { id: 'after', type: 'call_app', install: 'vendor', action: 'screen', input: {}, outputKey: 'after' },
] as WorkflowStep[];

beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
  tenantId = (await ensureTenant(database.db, 'run-store')).tenant.id;
  ({ definitionId, versionId } = await publishDefinitionRows(database, tenantId, 'workflow', 'three', {
    steps: STEPS,
  }));
});
afterAll(() => database?.close());

/** A run of the three steps as the api writes it: running, every step pending. */
async function newRun(): Promise<string> {
  const id = randomUUID();
  await database.db.insert(workflowRuns).values({
    id,
    tenantId,
    definitionId,
    definitionVersionId: versionId,
    workflowKey: 'three',
    version: 1,
    subjectId: 'subject-1',
    context: { applicant: 'a' },
    createdBy: 'user:test',
  });
  await database.db
    .insert(workflowRunSteps)
    .values(STEPS.map((s, position) => ({ runId: id, stepId: s.id, position, type: s.type })));
  return id;
}

const at = (iso: string) => new Date(iso);
const statusOf = async (runId: string) =>
  Object.fromEntries((await stepsOfRun(database, runId)).map((s) => [s.stepId, s.status]));
const attemptsOf = async (runId: string) =>
  Object.fromEntries((await stepsOfRun(database, runId)).map((s) => [s.stepId, s.attempts]));
const endsAudited = async (runId: string) =>
  (
    await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceType, 'workflow_run'), eq(auditEvents.resourceId, runId)))
  ).map((e) => e.action);

describe('the run’s row writes, done twice', () => {
  it('openRun starts the first step once, its first attempt counted, and answers the first start time again', async () => {
    const runId = await newRun();
    const first = await openRun(database, runId, at('2026-01-01T00:00:00.000Z'), true);
    expect(first?.run).toMatchObject({ id: runId, tenantId, status: 'running', context: { applicant: 'a' } });
    expect(first?.run.steps.map((s) => s.id)).toEqual(['check', 'decide', 'after']);
    expect(first?.firstStartedAt).toBe(Date.parse('2026-01-01T00:00:00.000Z'));

    const again = await openRun(database, runId, at('2026-01-01T00:05:00.000Z'), true);
    expect(again?.firstStartedAt).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
    expect(await statusOf(runId)).toEqual({ check: 'running', decide: 'pending', after: 'pending' });
    expect(await attemptsOf(runId)).toEqual({ check: 1, decide: 0, after: 0 });
    expect(await openRun(database, randomUUID(), new Date(), true)).toBeNull();
  });

  it('a call_app step started while apps are off shows no attempt', async () => {
    const runId = await newRun();
    await openRun(database, runId, new Date(), false);
    expect(await attemptsOf(runId)).toEqual({ check: 0, decide: 0, after: 0 });
  });

  it('completeStep moves the step, the context and the next start once; a decision is audited once', async () => {
    const runId = await newRun();
    const opened = await openRun(database, runId, at('2026-01-01T00:00:00.000Z'), true);
    const run = opened?.run as NonNullable<typeof opened>['run'];
    const next = { stepId: 'decide', startedAt: at('2026-01-01T00:00:01.000Z'), appsOn: true };
    const context = { applicant: 'a', checked: { ok: true } };
    expect(await completeStep(database, run, 'check', context, next)).toEqual({
      moved: true,
      context,
      nextStartedAt: Date.parse('2026-01-01T00:00:01.000Z'),
    });
    // Again, later and with another context (a decision taken again may differ): nothing moves, the stored
    // context and the first start are answered.
    const later = { stepId: 'decide', startedAt: at('2026-01-01T00:09:00.000Z'), appsOn: true };
    expect(await completeStep(database, run, 'check', { other: 1 }, later)).toEqual({
      moved: false,
      context,
      nextStartedAt: Date.parse('2026-01-01T00:00:01.000Z'),
    });
    const [row] = await database.db.select().from(workflowRuns).where(eq(workflowRuns.id, runId));
    expect(row?.context).toEqual(context);

    const decision = { outcome: 'approve', riskScore: null };
    const afterNext = { stepId: 'after', startedAt: at('2026-01-01T00:00:02.000Z'), appsOn: true };
    for (let i = 0; i < 2; i++) await completeStep(database, run, 'decide', context, afterNext, decision);
    const decisions = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'decision.emitted'), eq(auditEvents.resourceId, `${runId}:decide`)));
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.data).toMatchObject({ outcome: 'approve', source: 'decide', workflowRunId: runId });
    expect(await statusOf(runId)).toEqual({ check: 'completed', decide: 'completed', after: 'running' });
    expect(await attemptsOf(runId)).toEqual({ check: 1, decide: 0, after: 1 });
  });

  it('completeStep starts nothing once the run was cancelled: the workflow stops there', async () => {
    const runId = await newRun();
    const opened = await openRun(database, runId, new Date(), true);
    await database.db.update(workflowRuns).set({ status: 'cancelled' }).where(eq(workflowRuns.id, runId));
    const next = { stepId: 'decide', startedAt: new Date(), appsOn: true };
    const written = await completeStep(database, opened?.run as never, 'check', { x: 1 }, next);
    expect(written.nextStartedAt).toBeNull();
    expect((await statusOf(runId)).decide).toBe('pending');
  });

  it('endRun ends the run once: the last step, the context, the pending steps skipped, one audit event', async () => {
    const runId = await newRun();
    const opened = await openRun(database, runId, new Date(), true);
    const run = opened?.run as NonNullable<typeof opened>['run'];
    const last = { stepId: 'check', context: { applicant: 'a', checked: { ok: false } } };
    await endRun(database, run, { status: 'completed', last });
    await endRun(database, run, { status: 'completed', last: { stepId: 'check', context: { other: 1 } } });
    await endRun(database, run, {
      status: 'failed',
      stepId: 'check',
      error: { code: 'internal', message: 'x' },
    });
    const [row] = await database.db.select().from(workflowRuns).where(eq(workflowRuns.id, runId));
    expect(row).toMatchObject({ status: 'completed', error: null, context: last.context });
    expect(row?.completedAt).toBeInstanceOf(Date);
    expect(await statusOf(runId)).toEqual({ check: 'completed', decide: 'skipped', after: 'skipped' });
    expect(await endsAudited(runId)).toEqual(['workflow.run.completed']);
  });

  it('endRun failed: the step failed with the error, the rest skipped, workflow.run.failed with both', async () => {
    const runId = await newRun();
    const opened = await openRun(database, runId, new Date(), true);
    const error: RunError = {
      code: 'app_call_failed',
      message: 'the vendor failed',
      details: { reason: 'timeout' },
    };
    await endRun(database, opened?.run as never, { status: 'failed', stepId: 'check', error });
    const steps = await stepsOfRun(database, runId);
    expect(steps.map((s) => [s.stepId, s.status, s.error])).toEqual([
      ['check', 'failed', error],
      ['decide', 'skipped', null],
      ['after', 'skipped', null],
    ]);
    const [audit] = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceType, 'workflow_run'), eq(auditEvents.resourceId, runId)));
    expect(audit).toMatchObject({
      tenantId,
      action: 'workflow.run.failed',
      actorType: 'system',
      actorId: 'workflow-runs',
      data: {
        workflowRunId: runId,
        workflow: 'three',
        version: 1,
        subjectId: 'subject-1',
        stepId: 'check',
        error,
      },
    });
  });
});
