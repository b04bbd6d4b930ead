// An install's cached values between calls, kept the way the platform keeps them (docs/cached-values.md):
// the runner keeps none; each call hands in the live values and answers its changes, which are applied
// here. A delete applies only while the value is still the one the call read; per install at most
// APP_CACHE_ENTRIES values and APP_CACHE_TOTAL_BYTES of values (defaults 16 and 64 KiB), the oldest
// written leaving first; a value lives until its expiry (a day at most).
import { evictionChoice, expiryOf, planCacheChanges, sizeOf } from '../../../src/installs/index.ts';
import type { CacheChange, CacheEntry } from '../../../src/runner/index.ts';

export const DEFAULT_CACHE_ENTRIES = 16;
export const DEFAULT_CACHE_TOTAL_BYTES = 64 * 1024;
const DAY_MS = 86_400_000;

interface Held {
  value: string;
  expiresAt: number;
}

export class InstallCache {
  readonly #values = new Map<string, Held>();

  constructor(
    initial: Record<string, string> = {},
    readonly limits = { entries: DEFAULT_CACHE_ENTRIES, totalBytes: DEFAULT_CACHE_TOTAL_BYTES },
  ) {
    for (const [name, value] of Object.entries(initial)) this.#set(name, value, Date.now() + DAY_MS);
    this.#evict(Date.now());
  }

  /** The live entries handed to a call. */
  entries(now = Date.now()): CacheEntry[] {
    this.#expire(now);
    return [...this.#values].map(([name, held]) => ({
      name,
      value: held.value,
      expiresAt: new Date(held.expiresAt).toISOString(),
    }));
  }

  /** The live values by name. */
  values(now = Date.now()): Record<string, string> {
    return Object.fromEntries(this.entries(now).map((entry) => [entry.name, entry.value]));
  }

  apply(changes: readonly CacheChange[], now = Date.now()): void {
    this.#expire(now);
    // The platform's own rules (src/installs/cache/cache-rules.ts): the same net effect, the same eviction.
    const plan = planCacheChanges(
      new Map([...this.#values].map(([name, held]) => [name, held.value])),
      changes,
    );
    for (const name of plan.delete) this.#values.delete(name);
    for (const set of plan.set)
      this.#set(set.name, set.value, expiryOf(new Date(now), set.ttlSeconds).getTime());
    this.#evict(now);
  }

  #set(name: string, value: string, expiresAt: number): void {
    this.#values.delete(name);
    this.#values.set(name, { value, expiresAt });
  }

  #expire(now: number): void {
    for (const [name, held] of this.#values) if (held.expiresAt <= now) this.#values.delete(name);
  }

  #evict(now: number): void {
    this.#expire(now);
    // Each write moves its name last, so insertion order is write order.
    const weights = [...this.#values].map(([name, held], writeSeq) => ({
      name,
      sizeBytes: sizeOf(held.value),
      writeSeq,
    }));
    for (const name of evictionChoice(weights, this.limits)) this.#values.delete(name);
  }
}
