// A run on DBOS (docs/runs.md "How steps execute"): `runs.workflow` (workflow id = the run's id) runs the
// steps in order; each call_app step is a child workflow `runs.callApp` (id `${runId}:${stepId}`) enqueued
// on the dedicated `apps` queue, so app concurrency is bounded apart from the rest. Each attempt is one
// DBOS step (after a crash a completed attempt is not repeated), DBOS.sleep waits between attempts, and
// every row write lives in a step and is idempotent (run-store.ts). Every run ends, once (docs/runs.md "How a
// run ends"): row writes and attempts outlast a database blip (database-outage.ts), and whatever still
// fails ends the step or the run `internal` (run-failure.ts). Registered by the worker before launch.
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Logger } from 'pino';
import type { AttemptDeps } from '../calls/attempt.ts';
import { AttemptSlots } from '../calls/attempt-slots.ts';
import { whileDatabaseDown } from '../db/outage.ts';
import type { Database } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { activeRun, countDecision, inActivity } from '../telemetry/index.ts';
import { placeOutput } from './bounds.ts';
import {
  type CallAppArgs,
  callAppArgs,
  callAppSteps,
  STEP_DEADLINE_MS,
  type StepEnd,
} from './call-app-step.ts';
import { conditionHolds } from './comparison.ts';
import { countSends, whileUnsent } from './database-outage.ts';
import { evaluateRuleSet } from './evaluation.ts';
import { readPath } from './input-mapping.ts';
import type { DecideStep, WorkflowStep } from './model.ts';
import { failureOf, isEngineStop } from './run-failure.ts';
import { inRunTrace } from './run-trace.ts';

export { STEP_DEADLINE_MS } from './call-app-step.ts';

import {
  completeStep,
  emitDecision,
  endRun,
  failOpenRun,
  type LoadedRun,
  loadRun,
  startStep,
} from './run-store.ts';
import { takeSettledSession } from './waits.ts';

export const RUN_WORKFLOW = 'runs.workflow';
export const CALL_APP_WORKFLOW = 'runs.callApp';
/** A run's continuation after its vendor session settled (docs/runs.md "Waiting on a vendor session"). */
export const RESUME_WORKFLOW = 'runs.resume';
/** The continuation's workflow id: one per run and session, whoever starts it. */
export const resumeWorkflowId = (runId: string, sessionId: string) => `${runId}:${sessionId}`;
/** How often a run polls for its queued child's result (DBOS's default, 1000 ms, would add up to a second). */
export const RESULT_POLLING_MS = 20;

export interface RunsRuntime {
  /** The worker's pool, which the run's rows are written through. */
  database: Database;
  /**
   * What app calls go through; null when apps are off (no runner or no module storage): call_app steps
   * and app rules then fail at once with apps_unavailable.
   */
  attempt: AttemptDeps | null;
  logger: Logger;
  /**
   * How call_app steps run: `inline` (default) as steps of the run's own workflow, at most
   * INLINE_CONCURRENCY attempts at once per process; `queue` as a child workflow on the `apps` queue.
   * Inline measured ~1.4× the runs a second at ¾ of the CPU (docs/runs.md "Step latency").
   */
  callMode?: 'queue' | 'inline';
  /**
   * A tenant's attempts at once (APP_RUNNER_TENANT_CONCURRENCY, the runner's bound; default 4): inline
   * and for rule_set steps' app rules per process; in queue mode the apps queue's partition per tenant.
   */
  tenantConcurrency?: number;
}

/** Attempts in flight per process when call_app steps run inline (the apps queue's workerConcurrency). */
export const INLINE_CONCURRENCY = 8;
/** APP_RUNNER_TENANT_CONCURRENCY's default (config.ts), for a runtime that names none. */
const DEFAULT_TENANT_CONCURRENCY = 4;

let runtime: RunsRuntime | null = null;
let inlineSlots = new AttemptSlots(INLINE_CONCURRENCY, DEFAULT_TENANT_CONCURRENCY);
let callAppChild: ((args: CallAppArgs) => Promise<StepEnd>) | null = null;

const deps = (): RunsRuntime => {
  if (!runtime) throw new Error('run workflows are not registered in this process');
  return runtime;
};

let resumeRegistered: ((runId: string, sessionId: string) => Promise<void>) | null = null;

/**
 * Starts a run's continuation for its settled session on the platform queue, in this worker (the
 * resumer's way; the api enqueues it through RunsEngine.resume). Idempotent by workflow id.
 */
export async function startContinuation(runId: string, sessionId: string): Promise<void> {
  if (!resumeRegistered) throw new Error('run workflows are not registered in this process');
  await DBOS.startWorkflow(resumeRegistered, {
    workflowID: resumeWorkflowId(runId, sessionId),
    queueName: 'platform',
  })(runId, sessionId);
}

/** Registers the run workflows (once per process) with what they call; call before DBOS.launch. */
export function registerRunWorkflows(given: RunsRuntime): void {
  runtime = given;
  const perTenant = given.tenantConcurrency ?? DEFAULT_TENANT_CONCURRENCY;
  if (inlineSlots.perTenant !== perTenant) inlineSlots = new AttemptSlots(INLINE_CONCURRENCY, perTenant);
  if (callAppChild) return;
  callAppChild = DBOS.registerWorkflow(callAppWorkflow, { name: CALL_APP_WORKFLOW });
  // Counted in service.workflow.run.active while they execute here.
  DBOS.registerWorkflow((runId: string) => activeRun(() => runWorkflow(runId)), { name: RUN_WORKFLOW });
  resumeRegistered = DBOS.registerWorkflow(
    (runId: string, sessionId: string) => activeRun(() => resumeWorkflow(runId, sessionId)),
    { name: RESUME_WORKFLOW },
  );
}

/** A DBOS step of the run's own row work, tried again while the database does not answer. */
const rowStep = <T>(name: string, work: () => Promise<T>): Promise<T> =>
  DBOS.runStep(() => whileDatabaseDown(work), { name });

/**
 * The run's workflow: its steps, and, when anything but the engine's own errors escapes them, the run's
 * end `internal` (a run is never left running by its workflow).
 */
async function runWorkflow(runId: string): Promise<void> {
  await inRunTrace(deps().database, RUN_WORKFLOW, runId, runId, async () => {
    try {
      await runSteps(runId);
    } catch (error) {
      if (isEngineStop(error)) throw error;
      deps().logger.error({ err: error, runId }, 'run workflow failed');
      const failure = failureOf(error);
      await rowStep('fail', () => failOpenRun(deps().database, runId, failure));
    }
  });
}

async function runSteps(runId: string): Promise<void> {
  const { database } = deps();
  // The load also starts the first step (one checkpoint fewer a run): startStep is idempotent.
  const loaded = await rowStep('load', async () => {
    const run = await loadRun(database, runId);
    const first = run?.status === 'running' ? run.steps[0] : undefined;
    if (!first) return { run, startedAt: null };
    await startStep(database, runId, first.id);
    return { run, startedAt: Date.now() };
  });
  const { run } = loaded;
  if (!run || run.status !== 'running') return;
  await stepsFrom(run, 0, run.context, loaded.startedAt);
}

/**
 * A run's continuation once its vendor session settled (docs/runs.md "Waiting on a vendor session"): it takes the run, ends
 * the waiting step with the session's outcome and runs the steps after it. Ends the run `internal` like
 * the run's own workflow when anything but the engine's errors escapes.
 */
async function resumeWorkflow(runId: string, sessionId: string): Promise<void> {
  const { database } = deps();
  const workflowId = resumeWorkflowId(runId, sessionId);
  await inRunTrace(database, RESUME_WORKFLOW, runId, workflowId, async () => {
    try {
      const taken = await rowStep('take', () => takeSettledSession(database, runId, sessionId, workflowId));
      if (!taken) return;
      const { run, index, step, end } = taken;
      const context = await inActivity({ 'service.step_id': step.id }, () =>
        settleStep(run, index, step, run.context, end),
      );
      if (context !== null) await stepsFrom(run, index + 1, context, null);
    } catch (error) {
      if (isEngineStop(error)) throw error;
      deps().logger.error({ err: error, runId, sessionId }, 'run continuation failed');
      const failure = failureOf(error);
      await rowStep('fail', () => failOpenRun(database, runId, failure));
    }
  });
}

/**
 * The run's steps from `from` on, over `context`; the first one's start time given when its start is
 * already checkpointed. A step waiting on a vendor session ends the workflow: its continuation goes on.
 */
async function stepsFrom(
  run: LoadedRun,
  from: number,
  start: Record<string, unknown>,
  firstStartedAt: number | null,
): Promise<void> {
  let context = start;
  for (let index = from; index < run.steps.length; index++) {
    const step = run.steps[index] as WorkflowStep;
    const given = index === from ? firstStartedAt : null;
    // The DBOS steps of this step are its activity spans (docs/telemetry.md "Traces").
    const next = await inActivity({ 'service.step_id': step.id }, () =>
      runStep(run, index, step, context, given),
    );
    if (next === null) return;
    context = next;
  }
  await rowStep('end', () => endRun(deps().database, run, { status: 'completed' }));
}

/**
 * One step from its start to its end written: the run's context after it, or null when the run stops
 * with it (it ended the run, or waits on a vendor session). Its start time is given when its start is
 * already checkpointed.
 */
async function runStep(
  run: LoadedRun,
  index: number,
  step: WorkflowStep,
  context: Record<string, unknown>,
  givenStartedAt: number | null,
): Promise<Record<string, unknown> | null> {
  const { database } = deps();
  // The step's start time is checkpointed with its start: a call_app step's deadline counts from it.
  const startedAt =
    givenStartedAt ??
    (await rowStep<number>(`start:${step.id}`, () =>
      startStep(database, run.id, step.id).then(() => Date.now()),
    ));
  if (step.type === 'decide') {
    const decision = decide(step, context);
    const next = { ...context, [step.id]: decision };
    await rowStep(`decide:${step.id}`, () =>
      emitDecision(database, run, step.id, decision, next).then(countDecision),
    );
    return next;
  }
  const end = await executeStep(run, step, context, startedAt + STEP_DEADLINE_MS);
  if (end.status === 'waiting') return null;
  return settleStep(run, index, step, context, end);
}

/**
 * A step's end written: the run's context with its output placed, or null when the run ended with it
 * (it failed, its output passed the context's bounds, or it was the last step).
 */
async function settleStep(
  run: LoadedRun,
  index: number,
  step: Exclude<WorkflowStep, DecideStep>,
  context: Record<string, unknown>,
  end: Exclude<StepEnd, { status: 'waiting' }>,
): Promise<Record<string, unknown> | null> {
  const { database } = deps();
  // Past the context's bounds the step fails and the context is not written (bounds.ts).
  const placed =
    end.status === 'completed'
      ? placeOutput(context, step.outputKey, end.output)
      : { ok: false as const, error: end.error };
  if (!placed.ok) {
    const failed = { status: 'failed' as const, stepId: step.id, error: placed.error };
    await rowStep('end', () => endRun(database, run, failed));
    return null;
  }
  const completed = { stepId: step.id, context: placed.context };
  if (index === run.steps.length - 1) {
    // The last step's completion and the run's end in one transaction (and one checkpoint).
    await rowStep('end', () => endRun(database, run, { status: 'completed', last: completed }));
    return null;
  }
  await rowStep(`complete:${step.id}`, () =>
    completeStep(database, run.id, completed.stepId, completed.context),
  );
  return placed.context;
}

/** A call_app or rule_set step's end: `internal` when anything but its calls' own answers failed it. */
async function executeStep(
  run: LoadedRun,
  step: Exclude<WorkflowStep, DecideStep>,
  context: Record<string, unknown>,
  deadline: number,
): Promise<StepEnd> {
  try {
    return await stepEnd(run, step, context, deadline);
  } catch (error) {
    if (isEngineStop(error)) throw error;
    deps().logger.error({ err: error, runId: run.id, stepId: step.id }, 'step failed');
    return { status: 'failed', error: failureOf(error) };
  }
}

async function stepEnd(
  run: LoadedRun,
  step: Exclude<WorkflowStep, DecideStep>,
  context: Record<string, unknown>,
  deadline: number,
): Promise<StepEnd> {
  if (step.type === 'call_app' && (deps().callMode ?? 'inline') === 'inline') {
    return callAppSteps(
      deps().attempt,
      callAppArgs(run, step, context),
      `${step.id}:`,
      inlineSlots,
      deadline,
    );
  }
  if (step.type === 'call_app') {
    if (!callAppChild) throw new Error('run workflows are not registered');
    // The apps queue is partitioned by tenant: at most APP_RUNNER_TENANT_CONCURRENCY of a tenant's steps at once.
    const handle = await DBOS.startWorkflow(callAppChild, {
      workflowID: `${run.id}:${step.id}`,
      queueName: 'apps',
      enqueueOptions: { queuePartitionKey: run.tenantId },
    })(callAppArgs(run, step, context));
    return handle.getResult({ pollingIntervalMs: RESULT_POLLING_MS });
  }
  const { database, attempt } = deps();
  return DBOS.runStep(
    async (): Promise<StepEnd> => {
      const sends = attempt ? countSends(attempt.runner) : null;
      try {
        const evaluate = () =>
          evaluateRuleSet(
            {
              database,
              attempt: attempt && sends ? { ...attempt, runner: sends.runner } : null,
              slots: inlineSlots,
            },
            {
              tenantId: run.tenantId,
              key: step.ruleSet,
              data: context,
              dryRun: false,
              subjectId: run.subjectId,
              runId: run.id,
              stepId: step.id,
              idempotencyBase: `${run.id}:${step.id}`,
            },
          );
        const output = await whileUnsent(evaluate, sends ?? { sent: () => 0 });
        return { status: 'completed', output };
      } catch (error) {
        if (error instanceof ApiError)
          return { status: 'failed', error: { code: error.code, message: error.message } };
        throw error;
      }
    },
    { name: `rule_set:${step.id}` },
  );
}

/** The first branch whose condition holds, else otherwise; riskScore from the branch or riskScorePath. */
export function decide(step: DecideStep, context: Record<string, unknown>) {
  const branch = step.branches.find((b) => conditionHolds(context, b.when));
  const read = step.riskScorePath ? readPath(context, step.riskScorePath) : { found: false as const };
  const fromPath = read.found && typeof read.value === 'number' ? read.value : null;
  return { outcome: branch?.outcome ?? step.otherwise, riskScore: branch?.riskScore ?? fromPath };
}

const callAppWorkflow = (args: CallAppArgs): Promise<StepEnd> =>
  inRunTrace(deps().database, CALL_APP_WORKFLOW, args.runId, `${args.runId}:${args.stepId}`, () =>
    inActivity({ 'service.step_id': args.stepId }, () => callAppSteps(deps().attempt, args, '', null, null)),
  );
