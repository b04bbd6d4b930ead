// The resumer's pass (src/vendor-sessions/resumer.ts) against real PostgreSQL and the real engine (DBOS,
// launched by a worker in this process): a settled session nobody resumed gets its continuation started;
// one whose continuation is already enqueued is left to it (the webhook's wake started it: starting it
// again would only repeat its enqueue); one whose continuation ended without taking the run ends the run
// stranded. The continuations are enqueued for a platform version no worker runs, so they stay enqueued.
import { randomUUID } from 'node:crypto';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { RESUME_WORKFLOW, resumeWorkflowId } from '../../src/runs/workflows.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { resumePass, type StrandedError } from '../../src/vendor-sessions/resumer.ts';
import { ENGINE_SCHEMA, type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { createTestDatabase } from '../support/database.ts';
import { insertSession } from './rows.ts';

let database: Database;
let worker: RunningWorker;
let client: DBOSClient;
let tenantId: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  const logger = pino({ level: 'silent' });
  worker = await startWorker({ databaseUrl, logger, healthPort: null, executorId: `resumer-${process.pid}` });
  client = await DBOSClient.create({
    systemDatabaseUrl: databaseUrl,
    systemDatabaseSchemaName: ENGINE_SCHEMA,
  });
  database = openDatabase(databaseUrl);
  tenantId = (await ensureTenant(database.db, 'resumer')).tenant.id;
});
afterAll(async () => {
  await client?.destroy();
  await worker?.close();
  await database?.close();
});

/** A session of a run, settled and not resumed; answers its run and session ids. */
async function settledSession() {
  const runId = randomUUID();
  const session = await insertSession(database.db, {
    tenantId,
    workflowRunId: runId,
    stepId: 'verify',
    status: 'completed',
  });
  return { runId, sessionId: session.id };
}

/** The session's continuation, enqueued where no worker takes it (another platform version). */
const enqueueContinuation = (runId: string, sessionId: string) =>
  client.enqueue(
    {
      queueName: 'platform',
      workflowName: RESUME_WORKFLOW,
      workflowID: resumeWorkflowId(runId, sessionId),
      appVersion: 'a-version-no-worker-runs',
    },
    runId,
    sessionId,
  );

describe('a pass of the resumer', () => {
  it('starts the continuation of a settled session with none, leaves an enqueued one to itself, and ends the run of an ended one stranded', async () => {
    const none = await settledSession();
    const enqueued = await settledSession();
    await enqueueContinuation(enqueued.runId, enqueued.sessionId);
    const ended = await settledSession();
    await enqueueContinuation(ended.runId, ended.sessionId);
    await client.cancelWorkflow(resumeWorkflowId(ended.runId, ended.sessionId));

    const resumed: string[] = [];
    const failed: { runId: string; error: StrandedError }[] = [];
    const pass = await resumePass({
      database,
      logger: pino({ level: 'silent' }),
      resume: async (_runId, sessionId) => void resumed.push(sessionId),
      failRun: async (runId, error) => void failed.push({ runId, error }),
    });

    expect(resumed).toEqual([none.sessionId]);
    expect(failed).toEqual([
      {
        runId: ended.runId,
        error: expect.objectContaining({ details: { reason: 'stranded', workflowStatus: 'CANCELLED' } }),
      },
    ]);
    expect(pass).toEqual({ timedOut: 0, resumed: 1, stranded: 1 });
  });
});
