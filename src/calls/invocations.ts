// STAND-IN (runs-r worktree): invocation records land from another worktree; the lead keeps that one at
// merge. Only the InvocationContext type is relied on here.

/** What an attempt's invocation record names beside the call: its run, step, rule, attempt, fallback. */
export interface InvocationContext {
  workflowRunId: string | null;
  stepId: string | null;
  ruleSetKey: string | null;
  ruleKey: string | null;
  attempt: number;
  fallbackOf: { installId: string; name: string } | null;
}
