// The runner's sandbox threads: up to APP_RUNNER_CONCURRENCY long-lived threads, each running one call at
// a time on an instance made for that call, or on a warm instance prepared ahead in that thread (start
// code run with every host function refusing) and claimed by that call alone. As many threads as the
// machine has cores start with the pool, the others when a call finds none idle: each costs about 100 ms
// of CPU to start, and those beyond the cores serve calls waiting on their host requests. The choices
// (which thread, whom to warm, what gives way) are sandbox-pool-rules.ts's; here they are applied.
//
// Sharing between tenants: a warm-up counts against the tenant whose call last asked for the module,
// so a tenant at its concurrency gets none on top of its calls; nothing is warmed while a call waits
// for a thread, and a preparation still running 50 ms after a call began to wait ends for it. A task
// that has used 50 ms of CPU has its thread lowered to nice 19 until it ends (thread-priority.ts), so
// loops and heavy start code yield the CPU to everyone's short calls; such a call is reported long.
import { availableParallelism } from 'node:os';
import { START_LIMIT_MS } from '../../config/start-limit.ts';
import type { ThreadModule } from './protocol.ts';
import {
  type DemandView,
  nextWarmUp,
  preparationToEnd,
  type ThreadView,
  threadForCall,
  threadForWarmUp,
  WARM_PER_MODULE,
  type WarmState,
} from './sandbox-pool-rules.ts';
import { type CallTask, type ExportResult, SandboxThread } from './sandbox-thread.ts';
import { renice, SANDBOX_NICENESS, TaskWatch, withTaskId } from './thread-priority.ts';

export { WARM_PER_MODULE };

/** Modules barred from warming that the pool remembers; the oldest is forgotten beyond. */
const BARRED_REMEMBERED = 4096;

/** The threads a pool of at most `most` starts with: one per core, the others when calls need them. */
export const threadsAtStart = (most: number): number => Math.min(most, availableParallelism());

export interface SandboxPoolOptions {
  /** Threads at most, one per call in flight; threadsAtStart(threads) start with the pool. */
  threads: number;
  /** Warm instances in all; 0: every call makes its instance. */
  warmCapacity: number;
  warmIdleMs: number;
  /** How long start code may run; START_LIMIT_MS when unset (APP_RUNNER_START_LIMIT_MS may lower it). */
  startLimitMs?: number;
  /** A tenant's calls and warm-ups at once (APP_RUNNER_TENANT_CONCURRENCY); unset: no bound. */
  tenantConcurrency?: number;
  onError?: (error: unknown) => void;
  /** A task of the tenant (a call, or a warm-up counted against it) ended its thread. */
  threadEnded?: (tenantId: string) => void;
  /** A call of the tenant has used 50 ms of CPU (+1), and that long call has ended (-1). */
  longCall?: (tenantId: string, delta: 1 | -1) => void;
}

export interface SandboxCall
  extends Pick<CallTask, 'exportName' | 'input' | 'binding' | 'reading' | 'redactor' | 'usage'> {
  deadlineMs: number;
  /** The tenant the call runs for; the warm-ups its call asks for count against it. */
  tenantId?: string;
  /** The module is run for this call only, never kept nor warmed (an upload's inspection). */
  transient?: boolean;
}

/** A module calls have asked for lately: what the pool keeps warm. */
interface Demand {
  module: ThreadModule;
  tenantId: string | null;
  lastUsed: number;
  preparing: number;
  state: WarmState;
}

/** What the pool keeps of each thread besides the thread itself. */
interface Slot {
  thread: SandboxThread;
  /** Its OS task id, when known: what its nice value is set by. */
  tid: number | null;
  /** Its last task ran long (chosen after the others; see ThreadView). */
  low: boolean;
  task: { kind: 'call' | 'prepare'; tenantId: string | null; watch: TaskWatch } | null;
}

type Waiter = (thread: SandboxThread | null) => void;
type Ran = { result: ExportResult; warm: boolean };

export class SandboxPool {
  readonly #slots = new Map<SandboxThread, Slot>();
  readonly #waiting: Waiter[] = [];
  readonly #demand = new Map<string, Demand>();
  readonly #barred = new Set<string>();
  readonly #tenantBusy = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;
  #yieldCheck: NodeJS.Timeout | null = null;
  #closed = false;
  #replaced = 0;
  /** How long a module's start code may run on these threads (an inspection's manifest export too). */
  readonly startLimitMs: number;

  constructor(private readonly options: SandboxPoolOptions) {
    this.startLimitMs = options.startLimitMs ?? START_LIMIT_MS;
    for (let i = 0; i < threadsAtStart(options.threads); i++) this.#spawn();
    this.#sweeper = setInterval(() => this.#sweepIdle(), Math.min(options.warmIdleMs, 10_000));
    this.#sweeper.unref();
  }

  get threadCount(): number {
    return this.#slots.size;
  }

  /** Threads replaced since the pool started: each ended at a deadline or a start limit, or died. */
  get replaced(): number {
    return this.#replaced;
  }

  get warmCount(): number {
    let count = 0;
    for (const thread of this.#slots.keys()) for (const n of thread.warm.values()) count += n;
    return count;
  }

  /** Warm instances being prepared now. */
  get preparing(): number {
    let count = 0;
    for (const slot of this.#slots.values()) if (slot.task?.kind === 'prepare') count += 1;
    return count;
  }

  /** Modules never warmed again: their start code ran past its limit, or held a thread calls waited for. */
  get barredCount(): number {
    return this.#barred.size;
  }

  /** Runs one export on a thread of its own; `warm` says whether a warm instance was ready for it. */
  async run(module: ThreadModule, call: SandboxCall): Promise<Ran> {
    const asked = Date.now();
    const tenantId = call.tenantId ?? null;
    if (!call.transient) this.#used(module, tenantId);
    this.#countBusy(tenantId, 1);
    try {
      const idle = this.#idleThread(module.sha256) ?? this.#grow();
      if (idle) return await this.#dispatch(idle, module, call, asked);
      // A thread handed over starts the call at once, before anything else (a warm-up) could take it.
      const running = await new Promise<Promise<Ran>>((resolve, reject) => {
        this.#waiting.push((thread) =>
          thread
            ? resolve(this.#dispatch(thread, module, call, asked))
            : reject(new Error('the runner is closing')),
        );
        this.#yieldForWaiting();
      });
      return await running;
    } finally {
      this.#countBusy(tenantId, -1);
      // The tenant may be below its concurrency again: warm-ups held back for it can start.
      if (this.#waiting.length === 0) this.#topUp();
    }
  }

  /** Starts the call on the (idle) thread; the thread is claimed before this first awaits. */
  async #dispatch(
    thread: SandboxThread,
    module: ThreadModule,
    call: SandboxCall,
    asked: number,
  ): Promise<Ran> {
    const tenantId = call.tenantId ?? null;
    const deadlineMs = call.deadlineMs - (Date.now() - asked);
    if (deadlineMs <= 0) {
      // It waited out its deadline for a thread (others were starting instances): the thread stays whole.
      this.#onIdle(thread);
      return { result: { kind: 'timeout' }, warm: false };
    }
    const warm = !call.transient && thread.warmOf(module.sha256) > 0;
    this.#started(thread, 'call', tenantId);
    const result = await thread.call(module, { ...call, deadlineMs, warm });
    if (thread.ended && tenantId !== null) this.options.threadEnded?.(tenantId);
    if (!call.transient && !warm) this.#learnFromCall(module.sha256, result, thread.ended);
    return { result, warm };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    if (this.#yieldCheck) clearTimeout(this.#yieldCheck);
    for (const waiter of this.#waiting.splice(0)) waiter(null);
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    for (const slot of slots) slot.task?.watch.end(false);
    await Promise.all(slots.map((slot) => slot.thread.terminate()));
  }

  #spawn(): SandboxThread {
    const { value: thread, tid } = withTaskId(
      () =>
        new SandboxThread(
          {
            idle: (t) => this.#onIdle(t),
            ended: (t) => this.#onEnded(t),
            error: this.options.onError,
          },
          this.startLimitMs,
        ),
    );
    // At once, not once the thread has loaded: its start (tens of ms of CPU) yields to the main thread.
    renice(tid, SANDBOX_NICENESS);
    this.#slots.set(thread, { thread, tid, low: false, task: null });
    return thread;
  }

  /** A new thread for a call that found none idle, while the pool has fewer than its most; else null. */
  #grow(): SandboxThread | null {
    return this.#closed || this.#slots.size >= this.options.threads ? null : this.#spawn();
  }

  #views(): { threads: SandboxThread[]; views: ThreadView[] } {
    const threads: SandboxThread[] = [];
    const views: ThreadView[] = [];
    for (const slot of this.#slots.values()) {
      threads.push(slot.thread);
      views.push({ idle: slot.thread.idle, ready: slot.thread.ready, low: slot.low, warm: slot.thread.warm });
    }
    return { threads, views };
  }

  #idleThread(sha256: string): SandboxThread | null {
    const { threads, views } = this.#views();
    return threads[threadForCall(views, sha256)] ?? null;
  }

  #countBusy(tenantId: string | null, delta: number): void {
    if (tenantId === null) return;
    const count = (this.#tenantBusy.get(tenantId) ?? 0) + delta;
    if (count > 0) this.#tenantBusy.set(tenantId, count);
    else this.#tenantBusy.delete(tenantId);
  }

  #used(module: ThreadModule, tenantId: string | null): void {
    const demand = this.#demand.get(module.sha256);
    if (demand) {
      demand.lastUsed = Date.now();
      demand.tenantId = tenantId;
      // Most recently used last, so warming serves the newest demand first.
      this.#demand.delete(module.sha256);
      this.#demand.set(module.sha256, demand);
    } else {
      const state = this.#barred.has(module.sha256) ? 'barred' : 'unproven';
      this.#demand.set(module.sha256, { module, tenantId, lastUsed: Date.now(), preparing: 0, state });
    }
  }

  /** What a call on a fresh instance tells of the module's start code. */
  #learnFromCall(sha256: string, result: ExportResult, threadEnded: boolean): void {
    const demand = this.#demand.get(sha256);
    if (!demand || demand.state === 'barred') return;
    if (result.kind === 'answered' || result.kind === 'trapped') demand.state = 'warmable';
    else if (result.kind === 'start_failed') {
      // Ended by the start limit (the thread went with it), or its start code trapped.
      if (threadEnded) this.#bar(sha256);
      else demand.state = 'paused';
    }
  }

  #bar(sha256: string): void {
    this.#barred.delete(sha256);
    this.#barred.add(sha256);
    for (const oldest of this.#barred) {
      if (this.#barred.size <= BARRED_REMEMBERED) break;
      this.#barred.delete(oldest);
    }
    const demand = this.#demand.get(sha256);
    if (demand) demand.state = 'barred';
  }

  /** A task starts on the thread, watched: once it has used 50 ms of CPU it runs below the others. */
  #started(thread: SandboxThread, kind: 'call' | 'prepare', tenantId: string | null): void {
    const slot = this.#slots.get(thread);
    if (!slot) return;
    const onLong = () => {
      if (kind === 'call' && tenantId !== null) this.options.longCall?.(tenantId, 1);
      // Start code past 50 ms of CPU gives its thread up to a waiting call at once.
      if (kind === 'prepare') this.#yieldForWaiting(true);
    };
    const watched = {
      tid: slot.tid,
      get ready() {
        return thread.ready;
      },
    };
    slot.task = { kind, tenantId, watch: new TaskWatch(watched, onLong) };
  }

  /** The thread's task ended (the thread lives on, or not): raised back when it was lowered. */
  #taskEnded(slot: Slot, threadLives: boolean): void {
    const task = slot.task;
    if (!task) return;
    slot.task = null;
    const { raised } = task.watch.end(threadLives);
    slot.low = task.watch.long || !raised;
    if (task.watch.long && task.kind === 'call' && task.tenantId !== null)
      this.options.longCall?.(task.tenantId, -1);
  }

  #onIdle(thread: SandboxThread): void {
    const slot = this.#slots.get(thread);
    if (slot) this.#taskEnded(slot, true);
    const waiter = this.#waiting.shift();
    if (waiter) waiter(thread);
    else this.#topUp();
  }

  #onEnded(thread: SandboxThread): void {
    const slot = this.#slots.get(thread);
    if (slot) this.#taskEnded(slot, false);
    this.#slots.delete(thread);
    if (this.#closed) return;
    this.#replaced += 1;
    // The new thread is idle at once (its messages wait until it has started).
    this.#onIdle(this.#spawn());
  }

  /**
   * A call waits for a thread: a preparation that has run long gives its thread up (it is replaced).
   * `now`: look again at once, whatever check is already set (a preparation's CPU has just run long).
   */
  #yieldForWaiting(now = false): void {
    if (now && this.#yieldCheck) {
      clearTimeout(this.#yieldCheck);
      this.#yieldCheck = null;
    }
    if (this.#yieldCheck || this.#waiting.length === 0) return;
    const preparing = [...this.#slots.values()].filter((slot) => slot.task?.kind === 'prepare');
    const step = preparationToEnd(
      preparing.map((slot) => ({
        startedAt: slot.task?.watch.since ?? 0,
        long: slot.task?.watch.long ?? false,
      })),
      Date.now(),
    );
    if (!step) return;
    if ('index' in step) {
      void preparing[step.index]?.thread.terminate();
      return;
    }
    this.#yieldCheck = setTimeout(() => {
      this.#yieldCheck = null;
      this.#yieldForWaiting();
    }, step.retryInMs);
  }

  /** Prepares warm instances on idle threads, as the rules choose, until they choose nothing. */
  #topUp(): void {
    if (this.#closed || this.options.warmCapacity === 0) return;
    for (;;) {
      const { threads, views } = this.#views();
      const step = nextWarmUp(this.#demandViews(), {
        waiting: this.#waiting.length,
        tenantBusy: (tenantId) => this.#tenantBusy.get(tenantId) ?? 0,
        tenantConcurrency: this.options.tenantConcurrency ?? Number.POSITIVE_INFINITY,
        warmTotal: this.warmCount + this.preparing,
        warmCapacity: this.options.warmCapacity,
      });
      if (!step) return;
      const thread = threads[threadForWarmUp(views, step.prepare)];
      const demand = this.#demand.get(step.prepare);
      if (!thread || !demand) return;
      if (step.evict) {
        const holder = threads.find((t) => t.warmOf(step.evict as string) > 0);
        holder?.discard(step.evict, 1);
      }
      this.#prepare(thread, demand);
    }
  }

  #prepare(thread: SandboxThread, demand: Demand): void {
    const { tenantId } = demand;
    demand.preparing += 1;
    this.#countBusy(tenantId, 1);
    this.#started(thread, 'prepare', tenantId);
    thread.prepare(demand.module, (ok) => {
      demand.preparing -= 1;
      this.#countBusy(tenantId, -1);
      if (ok) return;
      // Past its limit, or ended for a waiting call: the thread went with it. Else its start code trapped.
      if (thread.ended) {
        this.#bar(demand.module.sha256);
        if (tenantId !== null) this.options.threadEnded?.(tenantId);
      } else if (demand.state !== 'barred') demand.state = 'paused';
    });
  }

  #demandViews(): DemandView[] {
    const held = new Map<string, number>();
    for (const thread of this.#slots.keys())
      for (const [sha256, n] of thread.warm) held.set(sha256, (held.get(sha256) ?? 0) + n);
    return [...this.#demand.values()].map((demand) => ({
      sha256: demand.module.sha256,
      tenantId: demand.tenantId,
      lastUsed: demand.lastUsed,
      state: demand.state,
      held: held.get(demand.module.sha256) ?? 0,
      preparing: demand.preparing,
    }));
  }

  #sweepIdle(): void {
    const cutoff = Date.now() - this.options.warmIdleMs;
    for (const [sha256, demand] of this.#demand) {
      if (demand.lastUsed >= cutoff || demand.preparing > 0) continue;
      this.#demand.delete(sha256);
      for (const thread of this.#slots.keys()) thread.discard(sha256, Number.POSITIVE_INFINITY);
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
