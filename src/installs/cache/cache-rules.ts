// Pure rules of an install's cached values (docs/cached-values.md):
// which values are live, when a value expires, what a call's changes amount to once applied in order, and
// which values leave when the install is over its budget. cache.ts runs them against the database.

import { isDeepStrictEqual } from 'node:util';
import {
  type CacheChange,
  MAX_SETS_PER_CALL,
  MAX_TTL_SECONDS,
  MAX_VALUE_BYTES,
  MIN_VALUE_CHARS,
} from '../../runner/index.ts';

/** The names the cache host function accepts (src/runner/host/cache.ts), checked again on storing. */
const CACHE_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Why a save or an approved change clears the install's cached values: version when the
 * version moved, else config when the config did; null when neither changed (the values stay).
 */
export function clearReasonOf(
  before: { versionId: string; config: unknown },
  after: { versionId: string; config: unknown },
): 'version' | 'config' | null {
  if (before.versionId !== after.versionId) return 'version';
  return isDeepStrictEqual(before.config, after.config) ? null : 'config';
}

export interface CacheBudget {
  entries: number;
  totalBytes: number;
}

/** A value counts while its expiry is still ahead. */
export const isLive = (expiresAt: Date, now: Date) => expiresAt.getTime() > now.getTime();

/** When a value set now with `ttlSeconds` expires: at least a second, at most a day. */
export function expiryOf(now: Date, ttlSeconds: number): Date {
  const seconds = Math.min(Math.max(Math.floor(ttlSeconds), 1), MAX_TTL_SECONDS);
  return new Date(now.getTime() + seconds * 1000);
}

/** What a value weighs against the budget: its UTF-8 length. */
export const sizeOf = (value: string) => Buffer.byteLength(value, 'utf8');

/**
 * Whether a change keeps the host function's rules. The runner is a separate service whose answer the
 * platform stores, so a change outside them (a misbehaving runner) is not stored.
 */
function wellFormed(change: CacheChange): boolean {
  if (typeof change?.name !== 'string' || !CACHE_NAME.test(change.name)) return false;
  if (change.op === 'set') {
    return (
      typeof change.value === 'string' &&
      change.value.length >= MIN_VALUE_CHARS &&
      sizeOf(change.value) <= MAX_VALUE_BYTES &&
      Number.isInteger(change.ttlSeconds) &&
      change.ttlSeconds >= 1
    );
  }
  return change.op === 'delete' && (change.readValue === null || typeof change.readValue === 'string');
}

export interface CachePlan {
  /** Values to write, in the order of each name's last set: the last written counts as the newest. */
  set: { name: string; value: string; ttlSeconds: number }[];
  /** Stored names whose value goes. */
  delete: string[];
  /** Changes left out: outside the host function's rules, or sets past 64 a call. */
  ignored: number;
}

/**
 * The net effect of a call's changes applied in order to the stored values. `stored` holds the stored
 * (live, opened) value of every name a delete may touch. A set writes its value (of two sets of one
 * name, the later); a delete removes a value only while it is still the one the call read (readValue),
 * which may be a value the same call set before; readValue null means the call read none, so it removes
 * nothing.
 */
export function planCacheChanges(
  stored: ReadonlyMap<string, string>,
  changes: readonly CacheChange[],
): CachePlan {
  const current = new Map(stored);
  // Insertion order is the order of each name's last set (a name is re-inserted on every set).
  const sets = new Map<string, { name: string; value: string; ttlSeconds: number }>();
  let setCount = 0;
  let ignored = 0;
  for (const change of changes) {
    if (!wellFormed(change) || (change.op === 'set' && setCount >= MAX_SETS_PER_CALL)) {
      ignored += 1;
      continue;
    }
    if (change.op === 'set') {
      setCount += 1;
      current.set(change.name, change.value);
      sets.delete(change.name);
      sets.set(change.name, { name: change.name, value: change.value, ttlSeconds: change.ttlSeconds });
    } else if (change.readValue !== null && current.get(change.name) === change.readValue) {
      current.delete(change.name);
      sets.delete(change.name);
    }
  }
  return {
    set: [...sets.values()],
    delete: [...stored.keys()].filter((name) => !current.has(name)),
    ignored,
  };
}

export interface StoredValueWeight {
  name: string;
  sizeBytes: number;
  /** Strictly increasing per write: the smallest was written longest ago. */
  writeSeq: number;
}

/**
 * The values that leave so the install keeps its budget: while it holds more values or more bytes than
 * the budget allows, the one written longest ago goes.
 */
export function evictionChoice(values: readonly StoredValueWeight[], budget: CacheBudget): string[] {
  const oldestFirst = [...values].sort((a, b) => a.writeSeq - b.writeSeq);
  let entries = oldestFirst.length;
  let totalBytes = oldestFirst.reduce((sum, v) => sum + v.sizeBytes, 0);
  const leaving: string[] = [];
  for (const value of oldestFirst) {
    if (entries <= budget.entries && totalBytes <= budget.totalBytes) break;
    leaving.push(value.name);
    entries -= 1;
    totalBytes -= value.sizeBytes;
  }
  return leaving;
}
