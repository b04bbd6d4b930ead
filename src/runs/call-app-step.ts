// One call_app step's attempts as DBOS steps (docs/runs.md "How steps execute on DBOS"): inline in the
// run's workflow, or as the `apps` queue's child workflow. Each attempt is a DBOS step (a crash never
// repeats a completed one), DBOS.sleep waits between them, and a pending answer opens the step's vendor
// session (waits.ts): the step then ends `waiting`.
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AttemptDeps, AttemptSlots } from '../calls/index.ts';
import { type AppCallEnd, type CallDriver, callApp, type InstallPart } from './app-call.ts';
import { countSends, whileUnsent } from './database-outage.ts';
import { buildInput } from './input-mapping.ts';
import type { CallAppStep, RunError } from './model.ts';
import { countAttempt, type LoadedRun } from './run-store.ts';
import { sessionOpener } from './waits.ts';

/**
 * A call_app step's deadline (2.5 minutes): its attempts and the policy's waits; a vendor's longer
 * wait (retryAfterMs, up to ten minutes) extends it by the difference (retry-rules.ts decideRetry).
 */
export const STEP_DEADLINE_MS = 150_000;
export /** A step's end: its output, its error, or a vendor session it waits on (the workflow then ends). */
type StepEnd =
  | { status: 'completed'; output: unknown }
  | { status: 'failed'; error: RunError }
  | { status: 'waiting' };

export interface CallAppArgs {
  tenantId: string;
  runId: string;
  stepId: string;
  /** Where the step's output goes: its pending answer's external id is written beside it. */
  outputKey: string;
  subjectId: string;
  named: InstallPart;
  fallback?: InstallPart;
}

const appsUnavailable: RunError = {
  code: 'apps_unavailable',
  message: 'this deployment has no app runner or no module storage',
};

export const callAppArgs = (
  run: LoadedRun,
  step: CallAppStep,
  context: Record<string, unknown>,
): CallAppArgs => ({
  tenantId: run.tenantId,
  runId: run.id,
  stepId: step.id,
  outputKey: step.outputKey,
  subjectId: run.subjectId,
  named: {
    install: step.install,
    action: step.action,
    input: buildInput(step.input, step.inputMapping, context),
    ...(step.inputMapping ? { inputMapping: step.inputMapping } : {}),
    ...(step.retry ? { retry: step.retry } : {}),
  },
  ...(step.fallback
    ? {
        fallback: {
          install: step.fallback.install,
          action: step.fallback.action,
          input: buildInput(step.fallback.input, step.fallback.inputMapping, context),
          ...(step.fallback.inputMapping ? { inputMapping: step.fallback.inputMapping } : {}),
        },
      }
    : {}),
});

/**
 * The attempts of one call_app step (callApp: the named install's, then its fallback's) as DBOS steps,
 * names prefixed when inline, with DBOS.sleep between them.
 */
export async function callAppSteps(
  attempt: AttemptDeps | null,
  args: CallAppArgs,
  prefix: string,
  slots: AttemptSlots | null,
  given: number | null,
): Promise<StepEnd> {
  // A child workflow checkpoints its own deadline; inline, the step's start gave it.
  const deadline =
    given ?? (await DBOS.runStep(async () => Date.now() + STEP_DEADLINE_MS, { name: `${prefix}deadline` }));
  if (!attempt) return { status: 'failed', error: appsUnavailable };
  const sends = countSends(attempt.runner);
  const attemptDeps = { ...attempt, runner: sends.runner };
  const driver: CallDriver = {
    // An attempt outlasts a database blip until its call is sent; a sent call is never sent again. Inline,
    // it holds a place of the process's slots, given up while it waits for the runner's capacity.
    attempt: (name, run) =>
      DBOS.runStep(
        () =>
          whileUnsent(
            slots
              ? () => slots.run(args.tenantId, (slot) => run((ms) => slot.pause(ms)))
              : () => run(capacityTimer),
            sends,
          ),
        { name: `${prefix}${name}` },
      ),
    sleep: (ms) => DBOS.sleep(ms),
    now: Date.now,
  };
  const end: AppCallEnd = await callApp(attemptDeps, driver, {
    caller: 'step',
    tenantId: args.tenantId,
    subjectId: args.subjectId,
    idempotencyKey: `${args.runId}:${args.stepId}`,
    deadline,
    origin: { workflowRunId: args.runId, stepId: args.stepId, ruleSetKey: null, ruleKey: null },
    named: args.named,
    ...(args.fallback ? { fallback: args.fallback } : {}),
    openSession: sessionOpener({ id: args.runId }, { id: args.stepId, outputKey: args.outputKey }),
    // The first attempt was counted with the step's start (run-store.ts).
    onAttempt: (n) =>
      n === 1 ? Promise.resolve() : countAttempt(attemptDeps.database, args.runId, args.stepId, n),
  });
  if (end.ok && end.waiting) return { status: 'waiting' };
  if (end.ok) return { status: 'completed', output: end.output };
  // A step's error says how many attempts it took, the fallback's included.
  return {
    status: 'failed',
    error: { ...end.error, details: { ...end.error.details, attempts: end.attempts } },
  };
}

/** A wait for the runner's capacity within an attempt's DBOS step (a crash repeats the whole attempt). */
const capacityTimer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
