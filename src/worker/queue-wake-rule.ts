// When the queue gate lets DBOS's poll of a queue reach the database (docs/runs.md, "Queue dispatch").
import { outageDelay } from '../db/outage.ts';

export interface QueueView {
  /** The listener is LISTENing: without it every tick polls, as DBOS alone would (the database there). */
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
  /** Real polls in a row that failed (the database away): each doubles the wait before the next. */
  failedPolls: number;
}

/** How long after a failed poll the next one waits: two ticks (40 ms), doubling to the safety interval. */
export function retryAfterMs(failedPolls: number, safetyMs: number): number {
  return outageDelay(failedPolls, { firstDelayMs: 40, maxDelayMs: safetyMs });
}

/**
 * A real poll when something may be startable; a missed notice costs at most safetyMs of latency. After
 * failed polls, none until the retry wait has passed: a database away is asked about once per safety
 * interval, and its error logged as often, rather than at every tick.
 */
export function shouldPoll(view: QueueView): boolean {
  if (view.failedPolls > 0) return view.sinceLastPoll >= retryAfterMs(view.failedPolls, view.safetyMs);
  return (
    !view.listening ||
    view.notified ||
    view.lastClaimed > 0 ||
    view.runningNow < view.runningBefore || // capacity freed here: a held-back workflow may start
    view.sinceLastPoll >= view.safetyMs
  );
}
