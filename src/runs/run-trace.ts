// A run's workflow in the worker as a span of the request's trace (docs/telemetry.md "Traces"): the engine
// does not carry the trace from the api's enqueue to the worker, so the run keeps the request's traceparent
// and its workflows (the run's, a continuation's, a queued call_app child's) read it before their first
// step. Read only when this process records spans; a failed read starts a trace of the run's own rather
// than failing the run.
import { eq } from 'drizzle-orm';
import type { Database } from '../db/pool.ts';
import { inWorkflowSpan, tracingOn } from '../telemetry/index.ts';
import { workflowRuns } from './tables.ts';

export async function inRunTrace<T>(
  database: Database,
  workflow: string,
  runId: string,
  workflowId: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return work();
  const [run] = await database.db
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
