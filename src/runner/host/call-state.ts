// What one call's host functions share: its tenant, tag, secrets, redactor, limits and usage.
import type { Redactor } from '../redaction.ts';

export interface Usage {
  httpRequests: number;
  reusedConnections: number;
  documentReads: number;
  logLines: number;
  ai?: { requests: number; inputTokens: number; outputTokens: number };
}

/** The usage of a call that has used nothing yet (a fresh object: a call's counters grow in place). */
export const noUsage = (): Usage => ({
  httpRequests: 0,
  reusedConnections: 0,
  documentReads: 0,
  logLines: 0,
});

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export interface CacheEntry {
  name: string;
  value: string;
  /** ISO timestamp. */
  expiresAt: string;
}

export type CacheChange =
  | { op: 'set'; name: string; value: string; ttlSeconds: number }
  | {
      op: 'delete';
      name: string /** The value this call read, so the caller deletes only while it is still that one. */;
      readValue: string | null;
    };

/**
 * What the host functions run on the call's sandbox thread read of it (log, hmac, hmac_verify:
 * threads/thread-call.ts): they work on what the module wrote, so they run at its thread's priority.
 */
export interface ThreadCallState {
  secretTag: string;
  secrets: ReadonlyMap<string, string>;
  redactor: Redactor;
  logs: LogLine[];
  usage: Pick<Usage, 'logLines'>;
}

/** One call as the main thread's host functions (http_request, ai, document_read, cache) see it. */
export interface CallState {
  callId: string;
  tenantId: string;
  secretTag: string;
  secrets: ReadonlyMap<string, string>;
  hosts: readonly string[];
  redactor: Redactor;
  usage: Usage;
  /** Live cached values handed in by the caller; changes go back in the answer. null: unavailable. */
  cache: Map<string, CacheEntry> | null;
  cacheChanges: CacheChange[];
  cacheSets: number;
  /** Epoch ms past which nothing the call started may run. */
  deadline: number;
  /** Aborted when the call has ended: host work still under way stops, and its answer reaches no one. */
  signal: AbortSignal;
  documents: { token: string; baseUrl: string } | null;
}
