// A run's workflow in the worker as a span of the request's trace (docs/telemetry.md "Traces"): the engine
// does not carry the trace from the api's enqueue to the worker, so the run keeps the request's traceparent
// and its workflows (a continuation's, a queued call_app child's) read it before their first step. The
// run's own workflow gets it in its input instead (RunTraceHead: the api enqueues it with the run), a
// statement less a run. Read only when this process records spans; a failed read starts a trace of the
// run's own rather than failing the run.
import { eq } from 'drizzle-orm';
import type { Database } from '../db/pool.ts';
import { inWorkflowSpan, tracingOn } from '../telemetry/index.ts';
import { workflowRuns } from './tables.ts';

/** What the worker's spans of a run need from its row, as the api enqueues it with the run's workflow. */
export interface RunTraceHead {
  traceParent: string | null;
  tenantId: string;
  key: string;
}

export async function inRunTrace<T>(
  database: Database,
  workflow: string,
  runId: string,
  workflowId: string,
  work: () => Promise<T>,
  /** Given with the workflow's input (the run's own workflow enqueued by this version): not read. */
  head?: RunTraceHead,
): Promise<T> {
  if (!tracingOn()) return work();
  const [run] = head
    ? [head]
    : await database.db
        .select({
          traceParent: workflowRuns.traceParent,
          tenantId: workflowRuns.tenantId,
          key: workflowRuns.workflowKey,
        })
        .from(workflowRuns)
        .where(eq(workflowRuns.id, runId))
        .catch(() => []);
  const attributes = {
    'service.run_id': runId,
    'service.workflow_id': workflowId,
    ...(run ? { 'service.tenant_id': run.tenantId, 'service.definition.key': run.key } : {}),
  };
  return inWorkflowSpan(`workflow.run ${workflow}`, run?.traceParent ?? null, attributes, work);
}
