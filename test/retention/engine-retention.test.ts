// The retention sweep of the engine's own tables (src/retention/engine-workflows.ts, docs/retention.md
// "The engine's workflows") against real PostgreSQL and the real engine: DBOS launched by a worker in this
// process, runs moved by the real run workflows (a decide step needs no runner). An ended workflow of an
// ended run goes once it ended more than RETENTION_ENGINE_HOURS ago, with its input, output and steps
// (DBOS.deleteWorkflows); so do the worker's self-checks. Kept: a workflow still running, waiting or
// enqueued (whatever its run), the ended workflow of a run still open (a run waiting on a vendor
// session), and any workflow that ended less than the setting ago. Each pass's clock is injected.
import { randomUUID } from 'node:crypto';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { readDatabaseNow } from '../../src/installs/index.ts';
import { launchedEngine } from '../../src/retention/engine-workflows.ts';
import { sweepRetention } from '../../src/retention/retention.ts';
import { dbosRunsEngine, type RunsEngine } from '../../src/runs/engine-client.ts';
import type { WorkflowStep } from '../../src/runs/model.ts';
import { workflowRunSteps, workflowRuns } from '../../src/runs/tables.ts';
import { RESULT_POLLING_MS, registerRunWorkflows } from '../../src/runs/workflows.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { ENGINE_SCHEMA, type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { publishDefinitionRows } from '../runs/definitions.ts';
import { createTestDatabase } from '../support/database.ts';

const HOUR = 3_600_000;
const logger = pino({ level: 'silent' });
let database: Database;
let worker: RunningWorker;
let engine: RunsEngine;
let client: DBOSClient;
let tenantId: string;
let release: () => void = () => {};

/** A workflow of a run that runs until the test releases it, and one waiting on a message (DBOS.recv). */
let held: ((runId: string) => Promise<void>) | null = null;
let waits: ((runId: string) => Promise<void>) | null = null;

const STEPS = [{ id: 'decide', type: 'decide', branches: [], otherwise: 'approve' }] as WorkflowStep[];

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  database = openDatabase(databaseUrl);
  tenantId = (await ensureTenant(database.db, 'engine-retention')).tenant.id;
  await publishDefinitionRows(database, tenantId, 'workflow', 'decide', { steps: STEPS });
  const holding = new Promise<void>((resolve) => {
    release = resolve;
  });
  worker = await startWorker({
    databaseUrl,
    logger,
    healthPort: null,
    executorId: `engine-retention-${process.pid}`,
    registerWorkflows: () => {
      registerRunWorkflows({ database, logger, attempt: null });
      held = DBOS.registerWorkflow(async (_runId: string) => holding, { name: 'test.held' });
      waits = DBOS.registerWorkflow(async (_runId: string) => void (await DBOS.recv<string>('go', 3_600)), {
        name: 'test.waits',
      });
    },
  });
  engine = dbosRunsEngine(databaseUrl);
  client = await DBOSClient.create({
    systemDatabaseUrl: databaseUrl,
    systemDatabaseSchemaName: ENGINE_SCHEMA,
  });
});
afterAll(async () => {
  release();
  await client?.destroy();
  await engine?.close();
  await worker?.close();
  await database?.close();
});

/** A run written as the api writes it, in `status`; answers its id. */
async function newRun(status: 'running' | 'waiting_callback'): Promise<string> {
  const id = randomUUID();
  const [version] = await database.db
    .execute<{ id: string; definition_id: string }>(
      sql`select id, definition_id from definition_versions where tenant_id = ${tenantId}`,
    )
    .then((r) => r.rows);
  await database.db.insert(workflowRuns).values({
    id,
    tenantId,
    definitionId: version?.definition_id as string,
    definitionVersionId: version?.id as string,
    workflowKey: 'decide',
    version: 1,
    subjectId: 'subject-1',
    context: {},
    createdBy: 'user:test',
    status,
  });
  await database.db
    .insert(workflowRunSteps)
    .values({ runId: id, stepId: 'decide', position: 0, type: 'decide' });
  return id;
}

/** Starts the run's workflow as the api does and waits for it to end: the run ends with it when running. */
async function runWorkflowOf(runId: string): Promise<void> {
  await engine.start(runId, { traceParent: null, tenantId, key: 'decide' });
  await DBOS.retrieveWorkflow(runId).getResult({ pollingIntervalMs: RESULT_POLLING_MS });
}

const statusOf = async (workflowId: string) =>
  (
    await database.db.execute<{ status: string }>(
      sql`select status from dbos.workflow_status where workflow_uuid = ${workflowId}`,
    )
  ).rows[0]?.status ?? null;

/** Every workflow the engine holds, by id, with its status. */
const workflows = async () =>
  Object.fromEntries(
    (
      await database.db.execute<{ id: string; status: string }>(
        sql`select workflow_uuid as id, status from dbos.workflow_status`,
      )
    ).rows.map((row) => [row.id, row.status]),
  );

/** Rows the engine keeps of a workflow besides its status: its input, output and steps. */
const restOf = async (workflowId: string) =>
  Number(
    (
      await database.db.execute<{ n: string }>(sql`
        select (select count(*) from dbos.workflow_input where workflow_uuid = ${workflowId})
          + (select count(*) from dbos.workflow_output where workflow_uuid = ${workflowId})
          + (select count(*) from dbos.operation_outputs where workflow_uuid = ${workflowId}) as n`)
    ).rows[0]?.n,
  );

const pass = (now: Date, hours: number, limits?: { batchSize: number; maxBatches: number }) =>
  sweepRetention({
    database,
    logger,
    settings: { appCallbackDays: 0, submissionEventDays: 0 },
    now,
    engine: { workflows: launchedEngine, hours },
    ...(limits ? { limits } : {}),
  });

describe('the engine’s workflows', () => {
  it('deletes the ended workflows of ended runs and the self-checks once older than the setting; keeps what runs, waits, is enqueued, or is recent', async () => {
    // An ended run and its ended workflow: due once older than the setting.
    const ended = await newRun('running');
    await runWorkflowOf(ended);
    expect(await statusOf(ended)).toBe('SUCCESS');
    expect(await restOf(ended)).toBeGreaterThan(0);
    // A run still open whose own workflow ended: the wait on a vendor session.
    const waiting = await newRun('waiting_callback');
    await runWorkflowOf(waiting);
    expect(await statusOf(waiting)).toBe('SUCCESS');
    // Workflows of the ended run that have not ended: running, waiting on a message, enqueued.
    const running = `${ended}:held`;
    await DBOS.startWorkflow(held as NonNullable<typeof held>, { workflowID: running })(ended);
    const waitingOnMessage = `${ended}:waits`;
    await DBOS.startWorkflow(waits as NonNullable<typeof waits>, { workflowID: waitingOnMessage })(ended);
    const enqueued = `${ended}:enqueued`;
    await client.enqueue(
      {
        queueName: 'platform',
        workflowName: 'test.held',
        workflowID: enqueued,
        appVersion: 'no-worker-runs-it',
      },
      ended,
    );
    expect([await statusOf(running), await statusOf(waitingOnMessage), await statusOf(enqueued)]).toEqual([
      'PENDING',
      'PENDING',
      'ENQUEUED',
    ]);
    const selfChecks = Object.keys(await workflows()).filter(
      (id) => ![ended, waiting].includes(id) && !id.startsWith(ended),
    );
    expect(selfChecks).toHaveLength(2);

    // Now: everything ended less than an hour ago stays.
    const now = await readDatabaseNow(database.db);
    const before = await workflows();
    expect((await pass(now, 1)).deleted['dbos.workflow_status']).toBe(0);
    expect(await workflows()).toEqual(before);

    // Two hours on: the ended run's workflow and the self-checks go, with their inputs, outputs and steps.
    const later = await pass(new Date(now.getTime() + 2 * HOUR), 1);
    expect(later.deleted['dbos.workflow_status']).toBe(3);
    expect(later.failed).toEqual([]);
    expect(await workflows()).toEqual({
      [waiting]: 'SUCCESS',
      [running]: 'PENDING',
      [waitingOnMessage]: 'PENDING',
      [enqueued]: 'ENQUEUED',
    });
    expect(await restOf(ended)).toBe(0);
    for (const id of selfChecks) expect(await restOf(id)).toBe(0);
    // The run's own rows are the platform's: untouched.
    const [run] = await database.db
      .execute<{ status: string }>(sql`select status from workflow_runs where id = ${ended}`)
      .then((r) => r.rows);
    expect(run?.status).toBe('completed');

    // 0 keeps them forever, however old.
    await DBOS.send(waitingOnMessage, 'go', 'go');
    await DBOS.retrieveWorkflow(waitingOnMessage).getResult({ pollingIntervalMs: RESULT_POLLING_MS });
    expect((await pass(new Date(now.getTime() + 1_000 * HOUR), 0)).deleted).not.toHaveProperty(
      'dbos.workflow_status',
    );
    expect(await statusOf(waitingOnMessage)).toBe('SUCCESS');
  });

  it('deletes in batches, oldest first, and names the engine capped when its batches ran out', async () => {
    const runs = [await newRun('running'), await newRun('running'), await newRun('running')];
    for (const runId of runs) await runWorkflowOf(runId);
    const now = new Date((await readDatabaseNow(database.db)).getTime() + 2 * HOUR);
    // The previous test's ended workflow (it ended first) goes first, then the two oldest runs'.
    const capped = await pass(now, 1, { batchSize: 1, maxBatches: 3 });
    expect(capped.deleted['dbos.workflow_status']).toBe(3);
    expect(capped.capped).toEqual([{ tenantId: null, target: 'dbos.workflow_status' }]);
    expect([await statusOf(runs[0] as string), await statusOf(runs[1] as string)]).toEqual([null, null]);
    expect(await statusOf(runs[2] as string)).toBe('SUCCESS');
    const rest = await pass(now, 1, { batchSize: 1, maxBatches: 3 });
    expect(rest.deleted['dbos.workflow_status']).toBe(1);
    expect(rest.capped).toEqual([]);
    expect(await statusOf(runs[2] as string)).toBeNull();
  });
});
