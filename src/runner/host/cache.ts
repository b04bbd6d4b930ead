// cache: per-install values kept between calls by the platform (the runner keeps none).
//   { op: "get", name } → { value: string | null }
//   { op: "set", name, value, ttlSeconds? } → { ok: true }     value 8 characters to 8 KiB, ttl ≤ 1 day
//   { op: "delete", name } → { ok: true }
import { countCacheOperation } from '../../telemetry/index.ts';
import { MIN_REDACTED_LENGTH } from '../redaction.ts';
import type { CallState } from './call-state.ts';
import { refuse } from './refusal.ts';

export const MAX_SETS_PER_CALL = 64;
/** Shorter values could not be redacted (redaction.ts). */
export const MIN_VALUE_CHARS = MIN_REDACTED_LENGTH;
export const MAX_VALUE_BYTES = 8 * 1024;
export const MAX_TTL_SECONDS = 86_400;
const NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

export function cache(state: CallState, request: unknown, now = Date.now()) {
  const values = state.cache;
  if (!values) return refuse('cache: this deployment keeps no cached values (no secret store key)');
  const { op, name, value, ttlSeconds = MAX_TTL_SECONDS } = (request ?? {}) as Record<string, unknown>;
  if (typeof name !== 'string' || !NAME.test(name))
    return refuse('cache: name must be 1 to 100 of A-Z a-z 0-9 _ . : -');
  const live = values.get(name);
  const current = live && Date.parse(live.expiresAt) > now ? live : undefined;
  switch (op) {
    case 'get':
      countCacheOperation(current ? 'hit' : 'miss');
      return { value: current?.value ?? null };
    case 'set': {
      if (typeof value !== 'string') return refuse('cache: value must be text');
      if (value.length < MIN_VALUE_CHARS || Buffer.byteLength(value) > MAX_VALUE_BYTES) {
        return refuse('cache: value must be 8 characters to 8 KiB');
      }
      if (typeof ttlSeconds !== 'number' || !Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
        return refuse('cache: ttlSeconds must be a positive integer');
      }
      if (state.cacheSets >= MAX_SETS_PER_CALL)
        return refuse(`cache: at most ${MAX_SETS_PER_CALL} sets a call`);
      const ttl = Math.min(ttlSeconds, MAX_TTL_SECONDS);
      state.cacheSets += 1;
      state.redactor.cached(name, value);
      values.set(name, { name, value, expiresAt: new Date(now + ttl * 1000).toISOString() });
      state.cacheChanges.push({ op: 'set', name, value, ttlSeconds: ttl });
      countCacheOperation('set');
      return { ok: true };
    }
    case 'delete':
      state.cacheChanges.push({ op: 'delete', name, readValue: current?.value ?? null });
      values.delete(name);
      countCacheOperation('delete');
      return { ok: true };
    default:
      return refuse('cache: op must be get, set or delete');
  }
}
