// The circuit's arithmetic (only outages count; an attempt's steps 2, 4
// and 7; docs/calls.md "The circuit"), pure: the clock is always the database's `now`, handed in.
//   - gateOf: what the circuit says of a new attempt (step 2): pass, a trial due (claimed at step 4), or
//     refused;
//   - countOf: how an attempt that reached the runner counts: an outage, a success, or nothing;
//   - nextCircuit: the row after an attempt counted (step 7), and what the move announces.
import type { CircuitState } from '../tables.ts';

/** The settings in force: the install's own, else the deployment's (APP_CIRCUIT_*). */
export interface CircuitSettings {
  failureThreshold: number;
  openSeconds: number;
}

/** What the circuit keeps (app_install_circuits); null: no row (closed, no count, never moved). */
export interface CircuitRow {
  state: CircuitState;
  failures: number;
  since: Date | null;
  openedAt: Date | null;
  trialId: string | null;
  trialClaimedAt: Date | null;
}

export const CLOSED: CircuitRow = {
  state: 'closed',
  failures: 0,
  since: null,
  openedAt: null,
  trialId: null,
  trialClaimedAt: null,
};

/** The settings in force for an install: each of its own values, else the deployment's. */
export const settingsInForce = (
  own: { circuitFailureThreshold: number | null; circuitOpenSeconds: number | null },
  defaults: CircuitSettings,
): CircuitSettings => ({
  failureThreshold: own.circuitFailureThreshold ?? defaults.failureThreshold,
  openSeconds: own.circuitOpenSeconds ?? defaults.openSeconds,
});

const plusSeconds = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);

/**
 * The state as a reader sees it at `now`: an open circuit whose open time has passed is half-open (its
 * trial is free to claim) even before any call claimed it; `since` is then when the open time ended.
 */
export function shownCircuit(row: CircuitRow | null, settings: CircuitSettings, now: Date) {
  const r = row ?? CLOSED;
  if (r.state === 'open' && r.openedAt) {
    const ends = plusSeconds(r.openedAt, settings.openSeconds);
    if (ends <= now) return { state: 'half_open' as const, failures: r.failures, since: ends };
  }
  return { state: r.state, failures: r.failures, since: r.since };
}

export type CircuitGate =
  /** Closed: the attempt goes on; `failures` tells step 7 whether a success has a count to clear. */
  | { kind: 'closed'; failures: number }
  /** The trial is free: the attempt must claim it (step 4) before it goes on. */
  | { kind: 'trial_due' }
  /** Refused with 503 app_circuit_open, recorded nowhere; `until`: when a trial may next be claimed. */
  | { kind: 'refused'; state: 'open' | 'half_open'; until: Date };

/**
 * Step 2. Open: refused until the open time has passed, then a trial is due. Half-open: refused while a
 * trial is out; its slot frees when it reports or an open time after its claim (a trial that never
 * reports). A trial is only claimed at step 4, after the quotas, so a refused call never uses one.
 */
export function gateOf(row: CircuitRow | null, settings: CircuitSettings, now: Date): CircuitGate {
  const r = row ?? CLOSED;
  if (r.state === 'closed') return { kind: 'closed', failures: r.failures };
  const from = r.state === 'open' ? r.openedAt : r.trialClaimedAt;
  if (from === null) return { kind: 'trial_due' };
  const until = plusSeconds(from, settings.openSeconds);
  return until <= now ? { kind: 'trial_due' } : { kind: 'refused', state: r.state, until };
}

/** The last two seconds of a step's time: a retryable failure there is the step's clock, not the vendor. */
export const STEP_END_MARGIN_MS = 2_000;

/** What countOf reads of an attempt that reached the runner. */
export interface CountedAttempt {
  status: 'success' | 'pending' | 'error' | 'timeout';
  /** The error's reason (`error` for the module's own error answer; else the runner's failure code). */
  reason?: string;
  retryable?: boolean;
  /** The time the attempt was given, and its action's own timeoutMs. */
  timeoutMs: number;
  actionTimeoutMs: number;
  /** Time the step (or rule evaluation) had left when the attempt ended; null when there is no deadline. */
  msLeftAtEnd: number | null;
}

export type CircuitCount = 'outage' | 'success' | 'none';

/**
 * How an attempt counts. Outages: an error answer the app calls retryable, and a timeout — unless the
 * step's time cut the attempt short (it timed out with less than its action's time, or failed retryably
 * in the step's last two seconds). A success (or pending: the vendor took the work) counts as success.
 * Everything else — final errors, traps, answers outside the contract, a busy or unreachable runner —
 * counts nothing. Refusals before the runner never get here.
 */
export function countOf(attempt: CountedAttempt): CircuitCount {
  if (attempt.status === 'success' || attempt.status === 'pending') return 'success';
  const inLastSeconds = attempt.msLeftAtEnd !== null && attempt.msLeftAtEnd <= STEP_END_MARGIN_MS;
  if (attempt.status === 'timeout') {
    return attempt.timeoutMs < attempt.actionTimeoutMs || inLastSeconds ? 'none' : 'outage';
  }
  if (attempt.reason === 'error' && attempt.retryable === true) return inLastSeconds ? 'none' : 'outage';
  return 'none';
}

/** What a move announces: audited, and for `opened` an event and the app_degraded notification. */
export type CircuitAnnouncement = 'opened' | 'closed' | null;

export type CircuitMove = { write: false } | { write: true; row: CircuitRow; announce: CircuitAnnouncement };

const NO_WRITE: CircuitMove = { write: false };

/**
 * Step 7: the row after an attempt that counted `count`, at `now`. `trialId` is the trial the attempt
 * claimed, if any: it moves the circuit only while the row still holds that claim (a lapsed claim, taken
 * over by another attempt, moves nothing). A trial's success closes; its outage re-opens; an attempt that
 * counts nothing (say the runner was busy) frees the slot at once, so the next call is the trial.
 * Outside a trial, outages add up and open the circuit at the threshold, and a success clears a count. A
 * success on a circuit with no count writes nothing.
 */
export function nextCircuit(
  row: CircuitRow | null,
  count: CircuitCount,
  trialId: string | null,
  settings: CircuitSettings,
  now: Date,
): CircuitMove {
  const r = row ?? CLOSED;
  if (trialId !== null) {
    if (r.trialId !== trialId) return NO_WRITE;
    const freed = { ...r, trialId: null, trialClaimedAt: null };
    if (count === 'success') {
      return { write: true, row: { ...freed, state: 'closed', failures: 0, since: now }, announce: 'closed' };
    }
    if (count === 'outage') {
      const reopened = {
        ...freed,
        state: 'open' as const,
        failures: r.failures + 1,
        since: now,
        openedAt: now,
      };
      return { write: true, row: reopened, announce: null };
    }
    return { write: true, row: freed, announce: null };
  }
  if (count === 'success') {
    if (r.state !== 'closed' || r.failures === 0) return NO_WRITE;
    return { write: true, row: { ...r, failures: 0 }, announce: null };
  }
  if (count === 'none') return NO_WRITE;
  const failures = r.failures + 1;
  if (r.state === 'closed' && failures >= settings.failureThreshold) {
    return {
      write: true,
      row: { ...r, state: 'open', failures, since: now, openedAt: now },
      announce: 'opened',
    };
  }
  return { write: true, row: { ...r, failures }, announce: null };
}
