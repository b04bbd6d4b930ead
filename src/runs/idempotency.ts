// Idempotency-Key on POST /workflow-runs (docs/runs.md "Starting a run twice"): a client retrying a start
// after a timeout gets the run its first request started instead of a second one (and a second vendor
// bill). Pure: which requests are the same one. The key, the request's digest and the run are stored per
// tenant in workflow_run_keys (service.ts claims the key in the transaction that writes the run).
import { createHash } from 'node:crypto';

/** How long a key answers the run it started; after that the key starts a new run. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/** A start's request as the run it starts sees it: a left-out context is the empty one it becomes. */
export interface StartRequest {
  workflow: string;
  subjectId: string;
  context?: Record<string, unknown>;
}

/** JSON with every object's members in code-point order: one text for one value, however it was sent. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The digest two requests share exactly when they would start the same run: the workflow, the subject
 * and the context, compared as JSON values (member order and spacing do not count; a left-out context
 * is {}).
 */
export function requestDigest(request: StartRequest): string {
  const start = { workflow: request.workflow, subjectId: request.subjectId, context: request.context ?? {} };
  return createHash('sha256').update(canonicalJson(start)).digest('hex');
}
