// The runner's sandbox threads: APP_RUNNER_CONCURRENCY long-lived threads, each running one call at a
// time on an instance made for that call, or on a warm instance prepared ahead in that thread (start
// code run with every host function refusing) and claimed by that call alone. Up to two warm instances
// per module and APP_RUNNER_WARM_PLUGINS in all; a module unused for APP_RUNNER_WARM_IDLE_MS loses its
// warm instances; when the pool is full the least recently used module gives way. Warm instances are
// prepared only on threads no call is waiting for.
import type { HostBinding } from '../host/refusal.ts';
import type { ThreadModule } from './protocol.ts';
import { type ExportResult, SandboxThread } from './sandbox-thread.ts';

export const WARM_PER_MODULE = 2;

export interface SandboxPoolOptions {
  threads: number;
  /** Warm instances in all; 0: every call makes its instance. */
  warmCapacity: number;
  warmIdleMs: number;
  onError?: (error: unknown) => void;
}

export interface SandboxCall {
  exportName: string;
  input: string;
  deadlineMs: number;
  binding: HostBinding;
  /** The module is run for this call only, never kept nor warmed (an upload's inspection). */
  transient?: boolean;
}

/** A module calls have asked for lately: what the pool keeps warm. */
interface Demand {
  module: ThreadModule;
  lastUsed: number;
  preparing: number;
  /** Its start code failed while warming: no more warming until the next call asks for it. */
  warmingFailed: boolean;
}

type Waiter = (thread: SandboxThread | null) => void;

export class SandboxPool {
  readonly #threads = new Set<SandboxThread>();
  readonly #waiting: Waiter[] = [];
  readonly #demand = new Map<string, Demand>();
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;
  #replaced = 0;

  constructor(private readonly options: SandboxPoolOptions) {
    for (let i = 0; i < options.threads; i++) this.#spawn();
    this.#sweeper = setInterval(() => this.#sweepIdle(), Math.min(options.warmIdleMs, 10_000));
    this.#sweeper.unref();
  }

  get threadCount(): number {
    return this.#threads.size;
  }

  /** Threads replaced since the pool started: each ended at a deadline or a start limit, or died. */
  get replaced(): number {
    return this.#replaced;
  }

  get warmCount(): number {
    let count = 0;
    for (const thread of this.#threads) for (const n of thread.warm.values()) count += n;
    return count;
  }

  /** Runs one export on a thread of its own; `warm` says whether a warm instance was ready for it. */
  async run(module: ThreadModule, call: SandboxCall): Promise<{ result: ExportResult; warm: boolean }> {
    const asked = Date.now();
    if (!call.transient) this.#used(module);
    const thread =
      this.#idleThread(module.sha256) ??
      (await new Promise<SandboxThread | null>((resolve) => this.#waiting.push(resolve)));
    if (!thread) throw new Error('the runner is closing');
    const deadlineMs = call.deadlineMs - (Date.now() - asked);
    if (deadlineMs <= 0) {
      // It waited out its deadline for a thread (others were starting instances): the thread stays whole.
      this.#onIdle(thread);
      return { result: { kind: 'timeout' }, warm: false };
    }
    const warm = !call.transient && thread.warmOf(module.sha256) > 0;
    const result = await thread.call(module, { ...call, deadlineMs, warm });
    return { result, warm };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const waiter of this.#waiting.splice(0)) waiter(null);
    const threads = [...this.#threads];
    this.#threads.clear();
    await Promise.all(threads.map((thread) => thread.terminate()));
  }

  #spawn(): SandboxThread {
    const thread = new SandboxThread({
      idle: (t) => this.#onIdle(t),
      ended: (t) => this.#onEnded(t),
      error: this.options.onError,
    });
    this.#threads.add(thread);
    return thread;
  }

  /**
   * An idle thread holding a warm instance of the module; else the loaded idle thread holding fewest
   * (a replacement still starting comes last: a call sent to it waits for the thread's start).
   */
  #idleThread(sha256: string): SandboxThread | null {
    let best: SandboxThread | null = null;
    let bestRank = Number.POSITIVE_INFINITY;
    for (const thread of this.#threads) {
      if (!thread.idle) continue;
      if (thread.warmOf(sha256) > 0) return thread;
      const rank = (thread.ready ? 0 : 1_000) + thread.warm.size;
      if (rank < bestRank) [best, bestRank] = [thread, rank];
    }
    return best;
  }

  #used(module: ThreadModule): void {
    const demand = this.#demand.get(module.sha256);
    if (demand) {
      demand.lastUsed = Date.now();
      demand.warmingFailed = false;
      // Most recently used last, so warming serves the newest demand first.
      this.#demand.delete(module.sha256);
      this.#demand.set(module.sha256, demand);
    } else {
      this.#demand.set(module.sha256, { module, lastUsed: Date.now(), preparing: 0, warmingFailed: false });
    }
  }

  #onIdle(thread: SandboxThread): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter(thread);
    else this.#topUp();
  }

  #onEnded(thread: SandboxThread): void {
    this.#threads.delete(thread);
    if (this.#closed) return;
    this.#replaced += 1;
    // The new thread is idle at once (its messages wait until it has started).
    this.#onIdle(this.#spawn());
  }

  #warmOf(sha256: string): number {
    let count = 0;
    for (const thread of this.#threads) count += thread.warmOf(sha256);
    return count;
  }

  #preparingTotal(): number {
    let count = 0;
    for (const demand of this.#demand.values()) count += demand.preparing;
    return count;
  }

  /** Prepares warm instances on idle threads, newest demand first, within both limits. */
  #topUp(): void {
    if (this.#closed || this.options.warmCapacity === 0) return;
    for (const demand of [...this.#demand.values()].reverse()) {
      if (demand.warmingFailed) continue;
      while (this.#warmOf(demand.module.sha256) + demand.preparing < WARM_PER_MODULE) {
        if (
          this.warmCount + this.#preparingTotal() >= this.options.warmCapacity &&
          !this.#evictOtherThan(demand)
        )
          return;
        const thread = this.#threadToWarm(demand.module.sha256);
        if (!thread) return;
        demand.preparing += 1;
        thread.prepare(demand.module, (ok) => {
          demand.preparing -= 1;
          if (!ok) demand.warmingFailed = true;
        });
      }
    }
  }

  /** An idle thread for a new warm instance: one holding none of that module's, if any. */
  #threadToWarm(sha256: string): SandboxThread | null {
    let fallback: SandboxThread | null = null;
    for (const thread of this.#threads) {
      if (!thread.idle) continue;
      if (thread.warmOf(sha256) === 0) return thread;
      fallback ??= thread;
    }
    return fallback;
  }

  /** Frees one warm instance of the least recently used other module; false when there is none. */
  #evictOtherThan(keep: Demand): boolean {
    for (const [sha256, demand] of this.#demand) {
      if (demand === keep || demand.lastUsed > keep.lastUsed) continue;
      const holder = [...this.#threads].find((thread) => thread.warmOf(sha256) > 0);
      if (holder) {
        holder.discard(sha256, 1);
        return true;
      }
    }
    return false;
  }

  #sweepIdle(): void {
    const cutoff = Date.now() - this.options.warmIdleMs;
    for (const [sha256, demand] of this.#demand) {
      if (demand.lastUsed >= cutoff || demand.preparing > 0) continue;
      this.#demand.delete(sha256);
      for (const thread of this.#threads) thread.discard(sha256, Number.POSITIVE_INFINITY);
    }
  }
}

export type { ExportResult };

/** A pool for one piece of work (a command's check, a test loader): started, used, closed. */
export async function withSandbox<T>(
  work: (sandbox: SandboxPool) => Promise<T>,
  options: Partial<SandboxPoolOptions> = {},
): Promise<T> {
  const sandbox = new SandboxPool({ threads: 1, warmCapacity: 0, warmIdleMs: 60_000, ...options });
  try {
    return await work(sandbox);
  } finally {
    await sandbox.close();
  }
}
