// Every run ends, once (docs/runs.md "How a run ends", "The sweep", "Bounds"): real runs on the worker
// (DBOS, this process), the real api and runner, http-connector against a vendor double. Faults are the
// real PostgreSQL's: a trigger refusing one write stands for whatever a run's workflow did not expect.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { and, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { CONTEXT_LIMIT_BYTES } from '../../src/runs/bounds.ts';
import type { RunsEngine } from '../../src/runs/engine-client.ts';
import { startRun } from '../../src/runs/service.ts';
import { NO_WORKFLOW_GRACE_MS, startRunSweep, sweepStrandedRuns } from '../../src/runs/sweep.ts';
import { registerRunWorkflows } from '../../src/runs/workflows.ts';
import { ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  requestStep,
  settledRun,
  startRunsStack,
} from './stack.ts';
import { until } from './worker-process.ts';

let stack: RunsStack;
let tenantId: string;
let release = () => {};
const logger = pino({ level: 'silent' });

/** A call_app step asking the vendor for `path`, the run's marker in its query (to tell its requests). */
const callStep = (id: string, path: string) =>
  requestStep('vendor', path, {
    id,
    inputMapping: { 'query.run': 'marker' },
    outputKey: id,
    // A retried or resent step would show here as a second request.
    retry: { maxAttempts: 3, backoffMs: 0 },
  });

beforeAll(async () => {
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  stack = await startRunsStack([
    { method: 'GET', path: '/hello', json: { greeting: 'hi' } },
    { method: 'GET', path: '/busy', respond: () => ({ status: 503, json: { busy: true } }) },
    {
      method: 'GET',
      path: '/big/:kib',
      respond: (request) => ({ json: { blob: 'x'.repeat(Number(request.params.kib) * 1024) } }),
    },
    {
      method: 'GET',
      path: '/hold',
      respond: async () => {
        await held;
        return { json: { held: true } };
      },
    },
  ]);
  tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'vendor');
  await stack.platform.database.db.execute(sql`
    create function test_refuse() returns trigger language plpgsql
    as $$ begin raise exception 'refused by the test'; end $$`);
}, 120_000);
afterAll(async () => {
  release();
  await stack?.close();
});

const db = () => stack.platform.database.db;

/** Starts a run of `workflow` with a fresh marker; answers it as started and the marker. */
async function start(workflow: string, subjectId = 'subject-1') {
  const marker = crypto.randomUUID();
  const started = await ok<RunAnswer>(
    await stack.platform.fetch('/workflow-runs', {
      method: 'POST',
      json: { workflow, subjectId, context: { marker } },
    }),
    201,
  );
  return { id: started.id, marker };
}

const requestsOf = (marker: string) => stack.vendor.requests.filter((r) => r.query.run === marker);

async function auditOf(runId: string) {
  return db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, runId), eq(auditEvents.action, 'workflow.run.failed')));
}

async function workflowStatus(runId: string): Promise<string | null> {
  const { rows } = await db().execute<{ status: string }>(
    sql`select status from dbos.workflow_status where workflow_uuid = ${runId}`,
  );
  return rows[0]?.status ?? null;
}

describe('a failure other than the app call’s own answer ends the run internal', () => {
  it.each([
    'inline',
    'queue',
  ] as const)('an attempt failing after its call was sent (%s): failed, audited, the call not sent again', async (callMode) => {
    const step = `unrecorded_${callMode}`;
    await db().execute(sql`
        create trigger ${sql.identifier(`refuse_${step}`)} before insert on app_invocations for each row
        when (new.step_id = ${sql.raw(`'${step}'`)}) execute function test_refuse()`);
    await publishDefinition(stack, tenantId, 'workflow', step, { steps: [callStep(step, '/hello')] });
    registerRunWorkflows({ ...stack.runtime, callMode });
    try {
      const { id, marker } = await start(step);
      const done = await settledRun(stack, id);
      const error = { code: 'internal', details: { reason: 'outcome_unrecorded' } };
      expect(done).toMatchObject({ status: 'failed', error });
      expect(done.steps[0]).toMatchObject({ status: 'failed', error });
      expect(requestsOf(marker)).toHaveLength(1);
      const [audited] = await auditOf(id);
      expect(audited?.data).toMatchObject({ stepId: step, error });
    } finally {
      registerRunWorkflows(stack.runtime);
    }
  });

  it('an attempt failing before its call is sent: failed internal, that attempt not sent', async () => {
    // The first attempt is counted with the step's start and sent (the vendor answers 503, retryable);
    // the second attempt's count is refused, before its call.
    await db().execute(sql`
      create trigger refuse_uncounted before update on workflow_run_steps for each row
      when (new.step_id = 'uncounted' and new.attempts > 1) execute function test_refuse()`);
    await publishDefinition(stack, tenantId, 'workflow', 'uncounted', {
      steps: [callStep('uncounted', '/busy')],
    });
    const { id, marker } = await start('uncounted');
    const done = await settledRun(stack, id);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: 'internal', details: { reason: 'internal' } },
    });
    expect(done.steps[0]?.status).toBe('failed');
    expect(requestsOf(marker)).toHaveLength(1);
  });

  it('a row write failing between steps: the run fails internal, the rest skipped, audited once', async () => {
    await db().execute(sql`
      create trigger refuse_completing before update on workflow_run_steps for each row
      when (new.step_id = 'completing' and new.status = 'completed') execute function test_refuse()`);
    await publishDefinition(stack, tenantId, 'workflow', 'completing', {
      steps: [callStep('completing', '/hello'), callStep('second', '/hello')],
    });
    const { id, marker } = await start('completing');
    const done = await settledRun(stack, id);
    const error = { code: 'internal', message: expect.not.stringContaining('refused by the test') };
    expect(done).toMatchObject({ status: 'failed', error });
    expect(done.steps.map((s) => [s.id, s.status])).toEqual([
      ['completing', 'failed'],
      ['second', 'skipped'],
    ]);
    expect(requestsOf(marker)).toHaveLength(1);
    const audited = await auditOf(id);
    expect(audited).toHaveLength(1);
    expect(audited[0]?.data).toMatchObject({ stepId: 'completing', error: { code: 'internal' } });
  });
});

describe('bounds of the run context', () => {
  it('fails a step whose output is over 256 KiB with output_too_large, writing nothing of it', async () => {
    await publishDefinition(stack, tenantId, 'workflow', 'big-output', {
      steps: [callStep('big', '/big/300')],
    });
    const done = await settledRun(stack, (await start('big-output')).id);
    const error = { code: 'output_too_large', details: { bound: 'step_output', limitBytes: 256 * 1024 } };
    expect(done).toMatchObject({ status: 'failed', error });
    expect(done.steps[0]).toMatchObject({ status: 'failed', error });
    expect(Object.keys(done.context as object)).toEqual(['marker']);
  });

  it('fails the step that would take the context past 1 MiB; the context keeps the steps before it', async () => {
    const steps = ['b1', 'b2', 'b3', 'b4', 'b5'].map((id) => callStep(id, '/big/220'));
    await publishDefinition(stack, tenantId, 'workflow', 'big-context', { steps });
    const done = await settledRun(stack, (await start('big-context')).id);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: 'output_too_large', details: { bound: 'context', limitBytes: 1024 * 1024 } },
    });
    expect(done.steps.map((s) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
      'failed',
    ]);
    expect(Object.keys(done.context as object).sort()).toEqual(['b1', 'b2', 'b3', 'b4', 'marker']);
    expect(Buffer.byteLength(JSON.stringify(done.context))).toBeLessThanOrEqual(CONTEXT_LIMIT_BYTES);
  });
});

describe('the sweep', () => {
  /** The run's rows written and its enqueue lost, as when the api stops in between. */
  const lostEnqueue: RunsEngine = {
    start: async () => {},
    resume: async () => {},
    cancel: async () => {},
    close: async () => {},
  };
  const startWithoutWorkflow = (subjectId: string) =>
    startRun(
      {
        database: stack.platform.database,
        engine: lostEnqueue,
        tenantId,
        actorId: 'user:test',
        seesContext: true,
      },
      { workflow: 'swept', subjectId },
    ).then((started) => started.run);

  beforeAll(async () => {
    await publishDefinition(stack, tenantId, 'workflow', 'swept', { steps: [callStep('swept', '/hold')] });
  });

  it('ends a run whose workflow went to ERROR', async () => {
    // Neither the run's end nor its failure can be written: the workflow itself fails.
    await db().execute(sql`
      create trigger refuse_run_end before update on workflow_runs for each row
      when (new.subject_id = 'stranded-error' and new.status <> 'running') execute function test_refuse()`);
    await publishDefinition(stack, tenantId, 'workflow', 'errs', { steps: [callStep('errs', '/hello')] });
    const { id } = await start('errs', 'stranded-error');
    await until('the workflow’s ERROR', async () => ((await workflowStatus(id)) === 'ERROR' ? true : null));
    expect((await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${id}`))).status).toBe('running');
    await db().execute(sql`drop trigger refuse_run_end on workflow_runs`);

    expect(await sweepStrandedRuns({ database: stack.platform.database, logger })).toContain(id);
    const swept = await settledRun(stack, id);
    const error = { code: 'internal', details: { reason: 'stranded', workflowStatus: 'ERROR' } };
    expect(swept).toMatchObject({ status: 'failed', error });
    expect(swept.steps[0]).toMatchObject({ status: 'failed', error });
    const audited = await auditOf(id);
    expect(audited).toHaveLength(1);
    expect(audited[0]?.data).toMatchObject({ stepId: 'errs', error });
    // A second sweep finds nothing more to end there.
    expect(await sweepStrandedRuns({ database: stack.platform.database, logger })).not.toContain(id);
    expect(await auditOf(id)).toHaveLength(1);
  });

  it('ends a run whose workflow was cancelled in DBOS behind the api’s back', async () => {
    const { id, marker } = await start('swept');
    await until('the vendor’s held request', async () => (requestsOf(marker).length === 1 ? true : null));
    await DBOS.cancelWorkflow(id);
    await until('the workflow’s CANCELLED', async () =>
      (await workflowStatus(id)) === 'CANCELLED' ? true : null,
    );

    expect(await sweepStrandedRuns({ database: stack.platform.database, logger })).toContain(id);
    const swept = await settledRun(stack, id);
    expect(swept).toMatchObject({
      status: 'failed',
      error: { code: 'internal', details: { reason: 'stranded', workflowStatus: 'CANCELLED' } },
    });
    // The attempt in flight still ends and is recorded; the cancelled workflow moves the run no more.
    release();
    await until('the held attempt’s record', async () => {
      const records = await db().select().from(appInvocations).where(eq(appInvocations.workflowRunId, id));
      return records.length === 1 ? true : null;
    });
    expect((await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${id}`))).status).toBe('failed');
  });

  it('ends a run with no workflow once the grace period has passed, not before', async () => {
    const run = await startWithoutWorkflow('no-workflow');
    const createdAt = Date.parse(run.createdAt);
    const sweepAt = (now: number) =>
      sweepStrandedRuns({ database: stack.platform.database, logger, now: () => now });

    expect(await sweepAt(createdAt + NO_WORKFLOW_GRACE_MS - 1)).not.toContain(run.id);
    expect((await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${run.id}`))).status).toBe(
      'running',
    );
    expect(await sweepAt(createdAt + NO_WORKFLOW_GRACE_MS)).toContain(run.id);
    const swept = await settledRun(stack, run.id);
    expect(swept).toMatchObject({
      status: 'failed',
      error: { code: 'internal', details: { reason: 'stranded', workflowStatus: null } },
    });
    expect(swept.steps[0]?.status).toBe('skipped');
    expect(await auditOf(run.id)).toHaveLength(1);
  });

  it('sweeps again every interval', async () => {
    const run = await startWithoutWorkflow('swept-later');
    let clock = Date.parse(run.createdAt);
    const sweep = startRunSweep({
      database: stack.platform.database,
      logger,
      intervalMs: 20,
      now: () => clock,
    });
    try {
      // The first pass read the clock before the grace period passed: only a later pass ends the run.
      clock += NO_WORKFLOW_GRACE_MS;
      const swept = await until('a later sweep', async () => {
        const seen = await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${run.id}`));
        return seen.status === 'running' ? null : seen;
      });
      expect(swept).toMatchObject({ status: 'failed', error: { details: { reason: 'stranded' } } });
    } finally {
      await sweep.stop();
    }
  });
});
