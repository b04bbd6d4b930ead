// How a step or a run ends when something other than its app call fails (docs/runs.md "How a run ends"):
// `internal`, with a fixed message naming no applicant data (a query's message may hold its parameters:
// run data) and a reason. The log line has the error itself, as logging.ts errorForLog writes errors.
import { Error as EngineErrors } from '@dbos-inc/dbos-sdk';
import { isUnavailable } from '../db/errors.ts';
import { UnrecordedCallError } from './database-outage.ts';
import type { RunError } from './model.ts';

export type FailureReason = 'outcome_unrecorded' | 'database_unavailable' | 'internal';

const MESSAGES: Record<FailureReason, string> = {
  outcome_unrecorded:
    'the database failed after the step’s app call was sent: the call is not sent again, and its outcome may not be recorded',
  database_unavailable: 'the database did not answer for two minutes: the run could not go on',
  internal: 'an internal error stopped the run (the worker’s log names its type)',
};

/** The error a step or run ends with after `error` (thrown, or recorded by DBOS and replayed). */
export function failureOf(error: unknown): RunError {
  const reason: FailureReason =
    (error as { name?: unknown } | null)?.name === new UnrecordedCallError().name
      ? 'outcome_unrecorded'
      : isUnavailable(error)
        ? 'database_unavailable'
        : 'internal';
  return { code: 'internal', message: MESSAGES[reason], details: { reason } };
}

/**
 * The engine's errors that stop this execution of the workflow: cancelled, its ownership lost to another
 * executor, replayed steps that do not match, the engine not running. A workflow lets them through rather
 * than end its run (a cancel ended it already; another execution or the next worker goes on; the sweep
 * ends a run whose workflow can no longer move it). Any other error, DBOS's included, ends the run.
 */
const ENGINE_STOPS = [
  EngineErrors.DBOSWorkflowCancelledError,
  EngineErrors.DBOSWorkflowConflictError,
  EngineErrors.DBOSUnexpectedStepError,
  EngineErrors.DBOSStepNondeterminismError,
  EngineErrors.DBOSExecutorNotInitializedError,
  EngineErrors.DBOSMaxRecoveryAttemptsExceededError,
];
export const isEngineStop = (error: unknown): boolean => ENGINE_STOPS.some((kind) => error instanceof kind);
