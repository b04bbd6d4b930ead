// Warm instances: prepared ahead (start code run, every host function refusing), up to two per module
// and APP_RUNNER_WARM_PLUGINS in all; each is claimed by exactly one call. A module unused for
// APP_RUNNER_WARM_IDLE_MS has its warm instances discarded.
//
// Timing matters on a small machine, where preparing an instance (a worker thread) costs tens of
// milliseconds of CPU: a short call is not made to share the CPU with the preparation of its
// replacement (that made a warm call two to three times slower), so the pool is topped up once the call
// has its answer, or REFILL_DELAY_MS into a call still running. A call that finds no instance ready takes
// the next one being prepared rather than preparing yet another beside it.
import type { LoadedModule } from './modules.ts';
import { Instance } from './sandbox.ts';

export const WARM_PER_MODULE = 2;
/** A call still running after this long is not a short one: its replacement is prepared meanwhile. */
export const REFILL_DELAY_MS = 10;
/** After a call, its replacement is prepared this much later (see replenish). */
const REPLENISH_DELAY_MS = 2;

/** A call waiting for an instance being prepared; null when that preparation failed or the pool closed. */
type Waiter = (instance: Instance | null) => void;

interface Entry {
  module: LoadedModule;
  ready: Instance[];
  preparing: number;
  /** Calls that found no instance ready, each promised one of those being prepared. */
  waiting: Waiter[];
  /** The refill a claim scheduled, unless the call ends first (replenish). */
  refillTimer: NodeJS.Timeout | null;
  lastUsed: number;
}

export interface WarmPoolOptions {
  capacity: number;
  idleMs: number;
  onError?: (error: unknown) => void;
}

export class WarmPool {
  readonly #entries = new Map<string, Entry>();
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(private readonly options: WarmPoolOptions) {
    this.#sweeper = setInterval(() => this.#sweepIdle(), Math.min(options.idleMs, 10_000));
    this.#sweeper.unref();
  }

  get size(): number {
    let n = 0;
    for (const entry of this.#entries.values()) n += entry.ready.length;
    return n;
  }

  /**
   * A warm instance of the module when one is ready; else the next one being prepared, when one is not
   * yet promised to another call; else a fresh one. `warm` says whether one was ready when the call came.
   */
  async claim(module: LoadedModule): Promise<{ instance: Instance; warm: boolean }> {
    const entry = this.#entry(module);
    entry.lastUsed = Date.now();
    if (!entry.refillTimer && this.options.capacity > 0) {
      entry.refillTimer = setTimeout(() => {
        entry.refillTimer = null;
        this.#refill(entry);
      }, REFILL_DELAY_MS);
      entry.refillTimer.unref();
    }
    const ready = entry.ready.shift();
    if (ready) return { instance: ready, warm: true };
    if (entry.preparing > entry.waiting.length) {
      const next = await new Promise<Instance | null>((resolve) => entry.waiting.push(resolve));
      if (next) return { instance: next, warm: false };
    }
    return { instance: await Instance.prepare(module.sha256, module.module, module.maxPages), warm: false };
  }

  /**
   * Tops the module's warm instances up again; called once a call is over. The preparation starts
   * REPLENISH_DELAY_MS later, after the call's answer has been written (and, where the caller shares the
   * process, read: starting a worker thread holds the event loop for a fraction of a millisecond).
   */
  replenish(module: LoadedModule): void {
    const entry = this.#entries.get(module.sha256);
    if (!entry || this.#closed || this.options.capacity === 0) return;
    if (entry.refillTimer) clearTimeout(entry.refillTimer);
    entry.refillTimer = null;
    setTimeout(() => this.#refill(entry), REPLENISH_DELAY_MS).unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) {
      if (entry.refillTimer) clearTimeout(entry.refillTimer);
      for (const waiter of entry.waiting.splice(0)) waiter(null);
    }
    await Promise.all(entries.flatMap((e) => e.ready).map((i) => i.close()));
  }

  #entry(module: LoadedModule): Entry {
    let entry = this.#entries.get(module.sha256);
    if (!entry) {
      entry = { module, ready: [], preparing: 0, waiting: [], refillTimer: null, lastUsed: Date.now() };
      this.#entries.set(module.sha256, entry);
    }
    return entry;
  }

  #refill(entry: Entry): void {
    if (this.#closed || this.options.capacity === 0 || this.#entries.get(entry.module.sha256) !== entry)
      return;
    while (entry.ready.length + entry.preparing < WARM_PER_MODULE) {
      if (this.size + this.#preparingTotal() >= this.options.capacity && !this.#evictOtherThan(entry)) return;
      entry.preparing += 1;
      Instance.prepare(entry.module.sha256, entry.module.module, entry.module.maxPages).then(
        (instance) => {
          entry.preparing -= 1;
          const waiter = entry.waiting.shift();
          if (this.#closed) {
            waiter?.(null);
            void instance.close();
          } else if (waiter) waiter(instance);
          else if (this.#entries.get(entry.module.sha256) !== entry) void instance.close();
          else entry.ready.push(instance);
        },
        (error: unknown) => {
          entry.preparing -= 1;
          entry.waiting.shift()?.(null);
          this.options.onError?.(error);
        },
      );
    }
  }

  #preparingTotal(): number {
    let n = 0;
    for (const entry of this.#entries.values()) n += entry.preparing;
    return n;
  }

  /** Frees one warm instance of the least recently used other module; false when there is none. */
  #evictOtherThan(keep: Entry): boolean {
    const victims = [...this.#entries.values()].filter((e) => e !== keep && e.ready.length > 0);
    victims.sort((a, b) => a.lastUsed - b.lastUsed);
    const instance = victims[0]?.ready.pop();
    if (!instance) return false;
    void instance.close();
    return true;
  }

  #sweepIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const [sha256, entry] of this.#entries) {
      if (entry.lastUsed >= cutoff || entry.waiting.length > 0) continue;
      this.#entries.delete(sha256);
      if (entry.refillTimer) clearTimeout(entry.refillTimer);
      for (const instance of entry.ready) void instance.close();
    }
  }
}
