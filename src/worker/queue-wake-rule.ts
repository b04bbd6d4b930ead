// When the queue gate lets DBOS's poll of a queue reach the database (docs/runs.md, "Queue dispatch").

export interface QueueView {
  /** The listener is LISTENing: without it every tick polls, as DBOS alone would. */
  listening: boolean;
  /** A notification named this queue since the last real poll. */
  notified: boolean;
  /** Workflows the last real poll claimed: more may be waiting behind the worker's limits. */
  lastClaimed: number;
  /** Workflows of this queue running in this process now, and at the previous tick. */
  runningNow: number;
  runningBefore: number;
  /** Milliseconds since the last real poll, and the safety interval. */
  sinceLastPoll: number;
  safetyMs: number;
}

/** A real poll when something may be startable; a missed notice costs at most safetyMs of latency. */
export function shouldPoll(view: QueueView): boolean {
  return (
    !view.listening ||
    view.notified ||
    view.lastClaimed > 0 ||
    view.runningNow < view.runningBefore || // capacity freed here: a held-back workflow may start
    view.sinceLastPoll >= view.safetyMs
  );
}
