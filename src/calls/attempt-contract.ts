// What one attempt is asked and answers (docs/calls.md "The attempt pipeline"): the call, the caller's
// options and the outcome, apart from the pipeline so its span and metrics read them without importing it.

import type { Actor, AuditEntry } from '../audit/trail.ts';
import type { Tx } from '../db/pool.ts';
import type {
  CircuitCount,
  CircuitRead,
  InstallRow,
  StoredCache,
  StoredSecret,
  VersionRow,
} from '../installs/index.ts';
import type { LogLine, Usage } from '../runner/index.ts';
import type { InvocationContext } from './invocations.ts';
import type { AttemptError, AttemptResult } from './outcome.ts';
import type { QuotasAndLimits } from './quota-check.ts';

export interface AttemptCall {
  install: InstallRow;
  /** The name the call used (the install's name or a kept alias); absent: the install's name. */
  calledAs?: string;
  version: VersionRow;
  action: string;
  input: unknown;
  /** The mapping a step's or rule's input was built with: admission checks it against `mappable`. */
  inputMapping?: Record<string, string>;
  idempotencyKey: string | null;
  subjectId: string | null;
  /** The install's webhook URL, handed to the module for an asynchronous action's vendor. */
  callbackUrl: string | null;
  /** Whether the caller may have the call read documents (a test call: the caller holds documents:read). */
  mayReadDocuments: boolean;
  /**
   * Epoch ms by which the step or rule evaluation must end: the attempt gets the action's timeoutMs, cut
   * to the time left, and is not started with less than the minimum (attempt-time.ts). Absent (a test
   * call): the action's timeoutMs.
   */
  deadline?: number;
  /** A block's reason (null: none) as read with the install (resolveCall); absent: admission reads it. */
  blockReason?: string | null;
  /** The install's circuit as read with it (resolveCall); absent: step 2 reads it. */
  circuit?: CircuitRead;
  /** The tenant's quotas and the install's limits as read with it (resolveCall); absent: step 3 reads them. */
  limits?: QuotasAndLimits;
  /** The install's cache generation and stored values as read with it (resolveCall); absent: step 5 reads them. */
  cache?: StoredCache;
  /** The install's sealed secrets as read with it (resolveCall); absent: admission reads them. */
  secrets?: readonly StoredSecret[];
}

export interface AttemptOptions {
  /** False for a test call, which runs enabled or not. */
  requireEnabled: boolean;
  /** Who the audit trail names for a quota's first refusal. */
  actor?: Actor;
  requestId?: string | null;
  /** Steps, rules and fallbacks go through the install's circuit; test calls do not. */
  circuit?: boolean;
  /**
   * Record the attempt (steps, rules and fallbacks; never test calls): an admission refusal, or what
   * the runner made of it, written with its metering in one transaction.
   */
  record?: InvocationContext;
  /**
   * An attempt never recorded (a test call): its audit record, made from how it ended, written with its
   * metering in one statement (test-call-write.ts), so neither is written without the other.
   */
  audit?: (ended: EndedAttempt) => AuditEntry;
  /**
   * A recorded attempt of an asynchronous action that answered pending: opens its vendor session in the
   * transaction of its record and metering (a run's step: the run then waits, runs/waits.ts). An error
   * (the external id is another session's) makes the attempt that error, uncharged.
   */
  openSession?: (tx: Tx, pending: PendingStart) => Promise<{ sessionId: string } | { error: AttemptError }>;
}

/** How an attempt ended, for its audit record. */
export type EndedAttempt = AttemptResult & { callId: string; durationMs: number; usage: Usage };

/** What a pending answer started, for its session. */
export interface PendingStart {
  install: InstallRow;
  version: VersionRow;
  action: string;
  externalId: string;
  /** The wait asked for, never longer than the action declares (outcome.ts). */
  callbackTimeoutSeconds: number;
}

export interface AttemptOutcome extends AttemptResult {
  callId: string;
  durationMs: number;
  usage: Usage;
  logs: LogLine[];
  /** Whether the module ran, or may have: such an attempt is a call of its install, metered. */
  ran: boolean;
  /** How the attempt counts for the circuit (an outage is also what lets a fallback take the call). */
  counted: CircuitCount;
  /** The invocation record's id, when the attempt was recorded. */
  invocationId?: string;
  /** The vendor session a pending answer opened (options.openSession). */
  sessionId?: string;
}
