// Warm instances: prepared ahead (start code run, every host function refusing), up to two per module
// and APP_RUNNER_WARM_PLUGINS in all; each is claimed by exactly one call. A module unused for
// APP_RUNNER_WARM_IDLE_MS has its warm instances discarded.
import type { LoadedModule } from './modules.ts';
import { Instance } from './sandbox.ts';

export const WARM_PER_MODULE = 2;

interface Entry {
  module: LoadedModule;
  ready: Instance[];
  preparing: number;
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

  /** A warm instance of the module when one is ready (then another is prepared), else a fresh one. */
  async claim(module: LoadedModule): Promise<{ instance: Instance; warm: boolean }> {
    const entry = this.#entry(module);
    entry.lastUsed = Date.now();
    const ready = entry.ready.shift();
    this.#refill(entry);
    if (ready) return { instance: ready, warm: true };
    return { instance: await Instance.prepare(module.sha256, module.module, module.maxPages), warm: false };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const all = [...this.#entries.values()].flatMap((e) => e.ready);
    this.#entries.clear();
    await Promise.all(all.map((i) => i.close()));
  }

  #entry(module: LoadedModule): Entry {
    let entry = this.#entries.get(module.sha256);
    if (!entry) {
      entry = { module, ready: [], preparing: 0, lastUsed: Date.now() };
      this.#entries.set(module.sha256, entry);
    }
    return entry;
  }

  #refill(entry: Entry): void {
    if (this.#closed || this.options.capacity === 0) return;
    while (entry.ready.length + entry.preparing < WARM_PER_MODULE) {
      if (this.size + this.#preparingTotal() >= this.options.capacity && !this.#evictOtherThan(entry)) return;
      entry.preparing += 1;
      Instance.prepare(entry.module.sha256, entry.module.module, entry.module.maxPages).then(
        (instance) => {
          entry.preparing -= 1;
          if (this.#closed || this.#entries.get(entry.module.sha256) !== entry) void instance.close();
          else entry.ready.push(instance);
        },
        (error: unknown) => {
          entry.preparing -= 1;
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
      if (entry.lastUsed >= cutoff) continue;
      this.#entries.delete(sha256);
      for (const instance of entry.ready) void instance.close();
    }
  }
}
