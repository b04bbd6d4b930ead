// A run on DBOS (docs/runs.md "How steps execute"): `runs.workflow` (workflow id = the run's id) runs the
// steps in order; each call_app step is a child workflow `runs.callApp` (id `${runId}:${stepId}`) enqueued
// on the dedicated `apps` queue, so app concurrency is bounded apart from the rest. Each attempt is one
// DBOS step (after a crash a completed attempt is not repeated), DBOS.sleep waits between attempts, and
// the run's own row writes are idempotent statements without checkpoints (run-store.ts), run again
// harmlessly by a recovered workflow. Every run ends, once (docs/runs.md "How a run ends"): row writes and
// attempts outlast a database blip (database-outage.ts), and whatever still fails ends the step or the run
// `internal` (run-failure.ts). Registered by the worker before launch.
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Logger } from 'pino';
import type { AttemptDeps } from '../calls/index.ts';
import { AttemptSlots } from '../calls/index.ts';
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
import { inRunTrace, type RunTraceHead } from './run-trace.ts';

export { STEP_DEADLINE_MS } from './call-app-step.ts';

import { completeStep, endRun, failOpenRun, type LoadedRun, type NextStep, openRun } from './run-store.ts';
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
  DBOS.registerWorkflow((runId: string, head?: RunTraceHead) => activeRun(() => runWorkflow(runId, head)), {
    name: RUN_WORKFLOW,
  });
  resumeRegistered = DBOS.registerWorkflow(
    (runId: string, sessionId: string) => activeRun(() => resumeWorkflow(runId, sessionId)),
    { name: RESUME_WORKFLOW },
  );
}

/**
 * The run's own row work: idempotent writes (run-store.ts), so they need no checkpoint of their own — done
 * again by a recovered workflow they change nothing — tried again while the database does not answer.
 * Only what must not happen twice (an attempt, a rule set's evaluation) is a DBOS step.
 */
const rowWork = <T>(work: () => Promise<T>): Promise<T> => whileDatabaseDown(work);

/**
 * The run's workflow: its steps, and, when anything but the engine's own errors escapes them, the run's
 * end `internal` (a run is never left running by its workflow).
 */
async function runWorkflow(runId: string, head?: RunTraceHead): Promise<void> {
  await inRunTrace(
    deps().database,
    RUN_WORKFLOW,
    runId,
    runId,
    async () => {
      try {
        await runSteps(runId);
      } catch (error) {
        if (isEngineStop(error)) throw error;
        deps().logger.error({ err: error, runId }, 'run workflow failed');
        const failure = failureOf(error);
        await rowWork(() => failOpenRun(deps().database, runId, failure));
      }
    },
    head,
  );
}

async function runSteps(runId: string): Promise<void> {
  const { database } = deps();
  // The run read and its first step started in one statement (run-store.ts openRun).
  const appsOn = deps().attempt !== null;
  const opened = await rowWork(() => openRun(database, runId, new Date(), appsOn));
  if (!opened || opened.run.status !== 'running') return;
  await stepsFrom(opened.run, 0, opened.run.context, opened.firstStartedAt);
}

/**
 * A run's continuation once its vendor session settled (docs/runs.md "Waiting on a vendor session"): it takes the run, ends
 * the waiting step with the session's outcome and runs the steps after it, with no checkpoint before the
 * next step's attempt (the take and the step's end are idempotent row writes). Ends the run `internal` like
 * the run's own workflow when anything but the engine's errors escapes.
 */
async function resumeWorkflow(runId: string, sessionId: string): Promise<void> {
  const { database } = deps();
  const workflowId = resumeWorkflowId(runId, sessionId);
  await inRunTrace(database, RESUME_WORKFLOW, runId, workflowId, async () => {
    try {
      // No DBOS step: the take is idempotent (waits.ts), so a recovered continuation takes again.
      const taken = await rowWork(() => takeSettledSession(database, runId, sessionId, workflowId));
      if (!taken) return;
      const { run, index, step, end } = taken;
      const settled = await inActivity({ 'service.step_id': step.id }, () =>
        settleStep(run, index, step, run.context, end),
      );
      if (settled !== null) await stepsFrom(run, index + 1, settled.context, settled.nextStartedAt);
    } catch (error) {
      if (isEngineStop(error)) throw error;
      deps().logger.error({ err: error, runId, sessionId }, 'run continuation failed');
      const failure = failureOf(error);
      await rowWork(() => failOpenRun(database, runId, failure));
    }
  });
}

/** Where a run stands after a step: its context, and the next step's start time (null: it stopped). */
interface Settled {
  context: Record<string, unknown>;
  nextStartedAt: number | null;
}

/**
 * The run's steps from `from` on, over `context`, the first one started at `startedAt` (null: the run is
 * no longer running, nothing to do). A step waiting on a vendor session ends the workflow: its
 * continuation goes on.
 */
async function stepsFrom(
  run: LoadedRun,
  from: number,
  start: Record<string, unknown>,
  startedAt: number | null,
): Promise<void> {
  let settled: Settled = { context: start, nextStartedAt: startedAt };
  for (let index = from; index < run.steps.length; index++) {
    const step = run.steps[index] as WorkflowStep;
    const started = settled.nextStartedAt;
    if (started === null) return;
    const context = settled.context;
    // The DBOS steps of this step are its activity spans (docs/telemetry.md "Traces").
    const next = await inActivity({ 'service.step_id': step.id }, () =>
      runStep(run, index, step, context, started),
    );
    if (next === null) return;
    settled = next;
  }
  await rowWork(() => endRun(deps().database, run, { status: 'completed' }));
}

/** The step after `index`, to be started with this one's completion; null after the last. */
const nextOf = (run: LoadedRun, index: number): NextStep | null => {
  const next = run.steps[index + 1];
  return next ? { stepId: next.id, startedAt: new Date(), appsOn: deps().attempt !== null } : null;
};

/**
 * One step, started at `startedAt`, from there to its end written: where the run stands after it, or null
 * when the run stops with it (it ended the run, or waits on a vendor session).
 */
async function runStep(
  run: LoadedRun,
  index: number,
  step: WorkflowStep,
  context: Record<string, unknown>,
  startedAt: number,
): Promise<Settled | null> {
  const { database } = deps();
  if (step.type === 'decide') {
    const decision = decide(step, context);
    const next = { ...context, [step.id]: decision };
    const written = await rowWork(() =>
      completeStep(database, run, step.id, next, nextOf(run, index), decision),
    );
    if (written.moved) countDecision();
    return { context: written.context, nextStartedAt: written.nextStartedAt };
  }
  const end = await executeStep(run, step, context, startedAt + STEP_DEADLINE_MS);
  if (end.status === 'waiting') return null;
  return settleStep(run, index, step, context, end);
}

/**
 * A step's end written: where the run stands after it, or null when the run ended with it (it failed,
 * its output passed the context's bounds, or it was the last step).
 */
async function settleStep(
  run: LoadedRun,
  index: number,
  step: Exclude<WorkflowStep, DecideStep>,
  context: Record<string, unknown>,
  end: Exclude<StepEnd, { status: 'waiting' }>,
): Promise<Settled | null> {
  const { database } = deps();
  // Past the context's bounds the step fails and the context is not written (bounds.ts).
  const placed =
    end.status === 'completed'
      ? placeOutput(context, step.outputKey, end.output)
      : { ok: false as const, error: end.error };
  if (!placed.ok) {
    const failed = { status: 'failed' as const, stepId: step.id, error: placed.error };
    await rowWork(() => endRun(database, run, failed));
    return null;
  }
  const next = nextOf(run, index);
  if (!next) {
    // The last step's completion and the run's end in one transaction.
    const last = { stepId: step.id, context: placed.context };
    await rowWork(() => endRun(database, run, { status: 'completed', last }));
    return null;
  }
  const written = await rowWork(() => completeStep(database, run, step.id, placed.context, next));
  return { context: written.context, nextStartedAt: written.nextStartedAt };
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
