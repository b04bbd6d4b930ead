// The shapes of the small layer around the apps (src/runs/): versioned definitions (workflows
// and rule sets), their steps and rules, and workflow runs. The platform's contract covers only where apps touch them
// (call_app steps and app rules calling installs); docs/runs.md describes the whole layer.
// Past the calls' front door: the door reaches the tables, whose schema reads this file (an import circle).
import type { RetryOverride } from '../calls/retry-rules.ts';
import type { AnyCode } from '../http/error-codes.ts';

export type { RetryOverride };

export type { DefinitionKind } from '../audit/definition-kind.ts';
export type DefinitionStatus = 'draft' | 'published';

/** The install a step or rule falls back to (app-call.ts: when the named one's circuit is open or its vendor is down). */
export interface FallbackCall {
  install: string;
  action: string;
  input?: Record<string, unknown>;
  inputMapping?: Record<string, string>;
}

/** What a call_app step and an app rule share: which install, which action, and how the input is built. */
export interface AppCall {
  install: string;
  action: string;
  /** The literal input object, laid down first. */
  input?: Record<string, unknown>;
  /** Input field (dots set nested paths) → dot path into the run context or the rule data. */
  inputMapping?: Record<string, string>;
  fallback?: FallbackCall;
}

export interface CallAppStep extends AppCall {
  id: string;
  type: 'call_app';
  /** The step's output is stored under this key of the run context. */
  outputKey: string;
  retry?: RetryOverride;
}

export interface RuleSetStep {
  id: string;
  type: 'rule_set';
  /** A rule set's key; its published version is evaluated against the run context. */
  ruleSet: string;
  /** The rule set's result is stored under this key of the run context. */
  outputKey: string;
}

export type Outcome = 'approve' | 'review' | 'decline';

/** Picks an outcome from the context: the first branch whose condition holds, else `otherwise`. */
export interface DecideStep {
  id: string;
  type: 'decide';
  branches: { when: Condition; outcome: Outcome; riskScore?: number }[];
  otherwise: Outcome;
  /** A dot path into the context whose number becomes riskScore when a branch names none. */
  riskScorePath?: string;
}

export type WorkflowStep = CallAppStep | RuleSetStep | DecideStep;

/**
 * A comparison on one value (the value at an app rule's resultPath, or at a decide branch's path):
 * equals / notEquals (strict JSON equality), in / notIn (a list), lt / lte / gt / gte (numbers), exists.
 */
export type Comparison =
  | { equals: unknown }
  | { notEquals: unknown }
  | { in: unknown[] }
  | { notIn: unknown[] }
  | { lt: number }
  | { lte: number }
  | { gt: number }
  | { gte: number }
  | { exists: boolean };

/** A decide branch's condition: a comparison on the value at a dot path of the context. */
export type Condition = Comparison & { path: string };

/** A plain rule: a condition on the rule data. */
export interface DataRule {
  key: string;
  type: 'condition';
  when: Condition;
}

/** An app rule: calls an install's synchronous action and fails when the value at resultPath matches. */
export interface AppRule extends AppCall {
  key: string;
  type: 'app';
  resultPath: string;
  failWhen: Comparison;
}

export type Rule = DataRule | AppRule;

export interface WorkflowBody {
  steps: WorkflowStep[];
}

export interface RuleSetBody {
  rules: Rule[];
}

export type DefinitionBody = WorkflowBody | RuleSetBody;

export type RunStatus = 'running' | 'waiting_callback' | 'completed' | 'failed' | 'cancelled';
export type StepStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped' | 'cancelled';

/** The error of a step, a rule or a run: the API's error code and message, and details where given. */
export interface RunError {
  /** A key of the error catalogue (http/error-codes.ts). */
  code: AnyCode;
  message: string;
  details?: Record<string, unknown>;
}
