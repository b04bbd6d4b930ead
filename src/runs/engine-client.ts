// How the api starts and cancels runs on DBOS: a DBOSClient on the engine's database, so the api works
// alone (another process runs the worker) and in `--role all` alike. The run is enqueued on the `platform`
// queue with the run's id as its workflow id (a repeated start returns the existing workflow), pinned to
// this platform version so only a worker of the same version dequeues it. Each start, resume and cancel is
// a client span of the request's trace (docs/telemetry.md "Traces").
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { inSpan, SpanKind } from '../telemetry/index.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { ENGINE_SCHEMA, enginePool, withIdleTransactionTimeout } from '../worker/engine.ts';
import type { RunTraceHead } from './run-trace.ts';
import { RESUME_WORKFLOW, RUN_WORKFLOW, resumeWorkflowId } from './workflows.ts';

export interface RunsEngine {
  /** `head`: what the worker's spans of the run need (run-trace.ts), carried in the workflow's input. */
  start(runId: string, head: RunTraceHead): Promise<void>;
  /**
   * Starts the continuation of a run whose vendor session settled (docs/runs.md "Waiting on a vendor session"): idempotent,
   * its workflow id names the run and the session, so two deliveries or the resumer start it once.
   */
  resume(runId: string, sessionId: string): Promise<void>;
  /** Cancels the run's workflow and its children (the call_app step in flight). */
  cancel(runId: string): Promise<void>;
  close(): Promise<void>;
}

export function dbosRunsEngine(databaseUrl: string): RunsEngine {
  let client: Promise<DBOSClient> | null = null;
  let pool: pg.Pool | null = null;
  const clientOf = () => {
    pool ??= enginePool(databaseUrl, 4);
    client ??= DBOSClient.create({
      systemDatabaseUrl: withIdleTransactionTimeout(databaseUrl),
      systemDatabasePool: pool,
      systemDatabaseSchemaName: ENGINE_SCHEMA,
    }).catch((error: unknown) => {
      client = null;
      throw error;
    });
    return client;
  };
  return {
    start: (runId, head) =>
      clientSpan('start', RUN_WORKFLOW, runId, runId, async () => {
        await (await clientOf()).enqueue(
          {
            queueName: 'platform',
            workflowName: RUN_WORKFLOW,
            workflowID: runId,
            appVersion: PLATFORM_VERSION,
          },
          runId,
          head,
        );
      }),
    resume: (runId, sessionId) =>
      clientSpan('start', RESUME_WORKFLOW, runId, resumeWorkflowId(runId, sessionId), async () => {
        await (await clientOf()).enqueue(
          {
            queueName: 'platform',
            workflowName: RESUME_WORKFLOW,
            workflowID: resumeWorkflowId(runId, sessionId),
            appVersion: PLATFORM_VERSION,
          },
          runId,
          sessionId,
        );
      }),
    cancel: (runId) =>
      clientSpan('cancel', RUN_WORKFLOW, runId, runId, async () => {
        await (await clientOf()).cancelWorkflow(runId, { cancelChildren: true });
      }),
    async close() {
      if (client) await (await client.catch(() => null))?.destroy();
      // The pool is ours, not the client's (systemDatabasePool): destroy leaves it open.
      await pool?.end();
      pool = null;
    },
  };
}

/** `workflow.start runs.workflow`, `workflow.cancel runs.workflow`…: the api's call on the engine. */
const clientSpan = (
  operation: 'start' | 'cancel',
  workflow: string,
  runId: string,
  workflowId: string,
  work: () => Promise<void>,
) =>
  inSpan(
    `workflow.${operation} ${workflow}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'service.run_id': runId, 'service.workflow_id': workflowId, 'workflow.name': workflow },
    },
    work,
  );
