// A database blip never strands a run (docs/runs.md "How a run ends"): a run's row writes and an attempt's
// database work are tried again while PostgreSQL does not answer (db/outage.ts), for up to two minutes.
// An app call already sent is never sent again: the attempt writes its outcome once the database is back
// (calls/attempt.ts); work that still fails after its call went to the runner ends as UnrecordedCallError.
import { OUTAGE_POLICY, type OutagePolicy, whileDatabaseDown } from '../db/outage.ts';
import type { RunnerClient } from '../runner/index.ts';

/**
 * Work failed after an app call was sent (the database refused its record, say): the call's outcome may
 * not be recorded, and it must not be sent again. Matched by name: DBOS records and replays it as data.
 */
export class UnrecordedCallError extends Error {
  override readonly name = 'UnrecordedCallError';
  constructor() {
    super('the work failed after an app call was sent');
  }
}

export interface SendCount {
  /** The runner client to call through: it counts every invoke. */
  runner: RunnerClient;
  sent(): number;
}

/** Counts the calls sent to the runner through the client it answers. */
export function countSends(runner: RunnerClient): SendCount {
  let sent = 0;
  return {
    runner: {
      inspect: (bytes, tenantId) => runner.inspect(bytes, tenantId),
      invoke: (body) => {
        sent++;
        return runner.invoke(body);
      },
      handleWebhook: (body) => runner.handleWebhook(body),
      handoff: (body) => runner.handoff(body),
      close: () => runner.close(),
    },
    sent: () => sent,
  };
}

/**
 * Work that sends app calls (an attempt, a rule set's evaluation): tried again while the database does
 * not answer as long as nothing was sent; once a call was sent, any failure is an UnrecordedCallError.
 */
export function whileUnsent<T>(
  work: () => Promise<T>,
  sends: Pick<SendCount, 'sent'>,
  policy: OutagePolicy = OUTAGE_POLICY,
): Promise<T> {
  return whileDatabaseDown(async () => {
    const before = sends.sent();
    try {
      return await work();
    } catch (error) {
      if (sends.sent() > before) throw new UnrecordedCallError();
      throw error;
    }
  }, policy);
}
