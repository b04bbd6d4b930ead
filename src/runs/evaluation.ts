// Rule evaluation (docs/runs.md "Rule evaluation"): a published rule set against data, each rule's result
// out. Condition rules test the data; app rules call an install's synchronous action through callApp
// (app-call.ts: the one attempt pipeline, retries, the fallback) within the evaluation's one-minute
// deadline, which every app call of the evaluation shares (a rule's call retries only as its action
// declares, and no attempt starts that the minute leaves too little time for), and fail when failWhen
// matches the value at resultPath.
import { randomUUID } from 'node:crypto';
import type { AttemptDeps, AttemptSlots } from '../calls/index.ts';
import type { Database } from '../db/pool.ts';
import { inSpan, msSince, recordRuleEvaluation, recordRuleSetEvaluation } from '../telemetry/index.ts';
import { type CallDriver, callApp } from './app-call.ts';
import { conditionHolds, matches } from './comparison.ts';
import { buildInput, readPath } from './input-mapping.ts';
import type { AppRule, Rule, RuleSetBody, RunError } from './model.ts';
import { type DefinitionVersionRow, requirePublished } from './published.ts';

export const EVALUATION_DEADLINE_MS = 60_000;

export type RuleStatus = 'passed' | 'failed' | 'error' | 'skipped';

export interface RuleResult {
  key: string;
  type: Rule['type'];
  status: RuleStatus;
  value?: unknown;
  error?: RunError;
}

export interface Evaluation {
  ruleSet: { key: string; version: number };
  /** True when no rule failed or ended in error (skipped rules do not count). */
  passed: boolean;
  rules: RuleResult[];
}

export interface EvaluationRequest {
  tenantId: string;
  key: string;
  data: unknown;
  /** Skips app rules (status skipped), as backtests do. */
  dryRun: boolean;
  subjectId: string | null;
  /** A run's rule_set step: its run and step (recorded on each invocation). */
  runId?: string;
  stepId?: string;
  /** `${runId}:${stepId}` for a run's step: each app rule's key is `${base}:rule:${rule.key}`. */
  idempotencyBase?: string;
  /** The published version when the caller read it already (the route, to see whether it calls apps). */
  version?: DefinitionVersionRow;
}

export interface EvaluationDeps {
  database: Database;
  /** What app rules call through; null when apps are off: each app rule is `error` apps_unavailable. */
  attempt: AttemptDeps | null;
  /** Waits between attempts and for a runner's capacity (a DBOS-free timer by default). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** A worker's bound on attempts at once (a run's rule_set step); absent: none (the api's evaluations). */
  slots?: AttemptSlots;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A rule set's evaluation, as a `rule_set.evaluate` span with a `rule.evaluate` span per rule. */
export function evaluateRuleSet(deps: EvaluationDeps, request: EvaluationRequest): Promise<Evaluation> {
  const attributes = { 'rule_set.key': request.key, 'service.tenant_id': request.tenantId };
  const started = performance.now();
  return inSpan('rule_set.evaluate', { attributes }, async (span) => {
    try {
      const evaluation = await evaluateRules(deps, request);
      span.setAttributes({
        'rule_set.version': evaluation.ruleSet.version,
        'rule_set.passed': evaluation.passed,
      });
      return evaluation;
    } finally {
      recordRuleSetEvaluation(msSince(started));
    }
  });
}

async function evaluateRules(deps: EvaluationDeps, request: EvaluationRequest): Promise<Evaluation> {
  const db = deps.database.db;
  const version = request.version ?? (await requirePublished(db, request.tenantId, 'rule_set', request.key));
  const now = deps.now ?? Date.now;
  const deadline = now() + EVALUATION_DEADLINE_MS;
  const base = request.idempotencyBase ?? `eval-${randomUUID()}`;
  const rules: RuleResult[] = [];
  for (const rule of (version.body as RuleSetBody).rules) {
    const ruleStarted = performance.now();
    const attributes = { 'rule.key': rule.key, 'rule.type': rule.type };
    const result = await inSpan('rule.evaluate', { attributes }, async (span) => {
      const evaluated = await evaluateRule(deps, request, rule, `${base}:rule:${rule.key}`, deadline);
      span.setAttribute('rule.status', evaluated.status);
      if (evaluated.error) span.setAttribute('error.type', evaluated.error.code);
      return evaluated;
    });
    recordRuleEvaluation(msSince(ruleStarted));
    rules.push(result);
  }
  const passed = rules.every((r) => r.status === 'passed' || r.status === 'skipped');
  return { ruleSet: { key: request.key, version: version.version }, passed, rules };
}

/** One rule's result: a condition tested on the data, or an app rule's call (skipped in a dry run). */
async function evaluateRule(
  deps: EvaluationDeps,
  request: EvaluationRequest,
  rule: Rule,
  idempotencyKey: string,
  deadline: number,
): Promise<RuleResult> {
  if (rule.type === 'condition') {
    const read = readPath(request.data, rule.when.path);
    const status = conditionHolds(request.data, rule.when) ? 'passed' : 'failed';
    return { key: rule.key, type: rule.type, status, ...(read.found ? { value: read.value } : {}) };
  }
  if (request.dryRun) return { key: rule.key, type: rule.type, status: 'skipped' };
  if (!deps.attempt) return { key: rule.key, type: rule.type, status: 'error', error: APPS_UNAVAILABLE };
  return evaluateAppRule({ ...deps, attempt: deps.attempt }, request, rule, idempotencyKey, deadline);
}

const APPS_UNAVAILABLE: RunError = {
  code: 'apps_unavailable',
  message: 'this deployment has no app runner or no module storage',
};

async function evaluateAppRule(
  deps: EvaluationDeps & { attempt: AttemptDeps },
  request: EvaluationRequest,
  rule: AppRule,
  idempotencyKey: string,
  deadline: number,
): Promise<RuleResult> {
  const result = (status: RuleStatus, extra: Partial<RuleResult> = {}): RuleResult => ({
    key: rule.key,
    type: rule.type,
    status,
    ...extra,
  });
  const sleep = deps.sleep ?? wait;
  const { slots } = deps;
  const driver: CallDriver = {
    attempt: (_name, run) =>
      slots ? slots.run(request.tenantId, (slot) => run((ms) => slot.pause(ms))) : run(sleep),
    sleep,
    now: deps.now ?? Date.now,
  };
  const end = await callApp(deps.attempt, driver, {
    caller: 'rule',
    tenantId: request.tenantId,
    subjectId: request.subjectId,
    idempotencyKey,
    deadline,
    origin: {
      workflowRunId: request.runId ?? null,
      stepId: request.stepId ?? null,
      ruleSetKey: request.key,
      ruleKey: rule.key,
    },
    named: {
      install: rule.install,
      action: rule.action,
      input: buildInput(rule.input, rule.inputMapping, request.data),
      ...(rule.inputMapping ? { inputMapping: rule.inputMapping } : {}),
    },
    ...(rule.fallback
      ? {
          fallback: {
            install: rule.fallback.install,
            action: rule.fallback.action,
            input: buildInput(rule.fallback.input, rule.fallback.inputMapping, request.data),
            ...(rule.fallback.inputMapping ? { inputMapping: rule.fallback.inputMapping } : {}),
          },
        }
      : {}),
    asyncRefusal: (action) => ({
      code: 'validation_error',
      message: `action ${action} is asynchronous; an app rule calls synchronous actions only`,
    }),
  });
  if (!end.ok) return result('error', { error: end.error });
  const read = readPath(end.output, rule.resultPath);
  const value = read.found ? read.value : undefined;
  return result(matches(value, rule.failWhen) ? 'failed' : 'passed', read.found ? { value } : {});
}
