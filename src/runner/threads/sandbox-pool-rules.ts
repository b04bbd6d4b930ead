// The sandbox pool's choices as pure functions over what it sees: which idle thread a call takes, which
// idle thread prepares a warm instance, which module is warmed next (and what gives way for it), and
// when a preparation gives its thread up to a call. sandbox-pool.ts applies them.

/** Warm instances of one module the pool keeps at most. */
export const WARM_PER_MODULE = 2;

/** A thread as the rules see it. */
export interface ThreadView {
  idle: boolean;
  /** Loaded: a task sent now starts at once, not after the thread's own start. */
  ready: boolean;
  /**
   * Its last task ran long: it may still be freeing what that task left, or still run below the others
   * (an unprivileged runner cannot raise a thread's priority back).
   */
  low: boolean;
  /** Warm instances it holds, by module. */
  warm: ReadonlyMap<string, number>;
}

/**
 * The idle thread a call of the module takes: one holding a warm instance of it; else the idle thread
 * holding fewest warm instances, loaded threads before threads still starting (a call sent to one of
 * those waits for its start) and threads whose last task ran long after the others. -1: none is idle.
 */
export function threadForCall(threads: readonly ThreadView[], sha256: string): number {
  let best = -1;
  let bestRank: number[] = [];
  for (const [i, thread] of threads.entries()) {
    if (!thread.idle) continue;
    if (thread.warm.get(sha256)) return i;
    const rank = [thread.ready ? 0 : 1, thread.low ? 1 : 0, thread.warm.size];
    if (best < 0 || before(rank, bestRank)) [best, bestRank] = [i, rank];
  }
  return best;
}

/** Whether rank a comes strictly before rank b, the first differing place deciding. */
function before(a: number[], b: number[]): boolean {
  for (const [i, value] of a.entries()) if (value !== b[i]) return value < (b[i] as number);
  return false;
}

/** The idle thread for a new warm instance of the module: one holding none of it yet, if any. -1: none. */
export function threadForWarmUp(threads: readonly ThreadView[], sha256: string): number {
  let fallback = -1;
  for (const [i, thread] of threads.entries()) {
    if (!thread.idle) continue;
    if (!thread.warm.get(sha256)) return i;
    if (fallback < 0) fallback = i;
  }
  return fallback;
}

/**
 * Whether the pool may warm a module:
 * - unproven: no instance of it has started in this process yet (a module whose start code never ends
 *   would otherwise hold threads beside its own calls);
 * - warmable;
 * - paused: its start code trapped while warming, until an instance of it starts in a call again;
 * - barred: its start code ran past its limit, or held a thread calls were waiting for; never again.
 */
export type WarmState = 'unproven' | 'warmable' | 'paused' | 'barred';

/** A module calls asked for lately, as the rules see it. */
export interface DemandView {
  sha256: string;
  /** The tenant of the last call that asked for it: its warm-ups count against that tenant. */
  tenantId: string | null;
  lastUsed: number;
  state: WarmState;
  /** Warm instances held by the threads, and being prepared. */
  held: number;
  preparing: number;
}

export interface PoolLoad {
  /** Calls waiting for a thread: while any does, nothing is warmed. */
  waiting: number;
  /** The tenant's calls on the pool's threads (or waiting for one) and preparations counted against it. */
  tenantBusy(tenantId: string): number;
  tenantConcurrency: number;
  /** Warm instances held and being prepared, in all, and how many the pool may hold. */
  warmTotal: number;
  warmCapacity: number;
}

export type WarmUpStep =
  /** Prepare one warm instance of this module (after freeing one of `evict`'s when it is set). */
  { prepare: string; evict: string | null };

/**
 * The next warm instance to prepare: the most recently used module first (demands are ordered least
 * recently used first), each up to WARM_PER_MODULE, within the pool's capacity (a less recently used
 * module's warm instance gives way) and within its tenant's concurrency. null: nothing to do.
 */
export function nextWarmUp(demands: readonly DemandView[], load: PoolLoad): WarmUpStep | null {
  if (load.waiting > 0 || load.warmCapacity === 0) return null;
  for (let i = demands.length - 1; i >= 0; i--) {
    const demand = demands[i] as DemandView;
    if (demand.state !== 'warmable' || demand.held + demand.preparing >= WARM_PER_MODULE) continue;
    if (demand.tenantId !== null && load.tenantBusy(demand.tenantId) >= load.tenantConcurrency) continue;
    if (load.warmTotal < load.warmCapacity) return { prepare: demand.sha256, evict: null };
    // Full: a less recently used module (not this one) with a warm instance gives way, else nothing.
    const giving = demands.find((other, j) => j < i && other.held > 0);
    return giving ? { prepare: demand.sha256, evict: giving.sha256 } : null;
  }
  return null;
}

/**
 * How long a preparation may keep its thread once a call waits for one, when its CPU time does not show
 * it long first: start code that sleeps (poll_oneoff) uses no CPU. An ordinary start takes well under a
 * millisecond of CPU, though on a loaded machine tens of milliseconds of wall time: wall time alone must
 * not bar a healthy module (it did at 50 ms, and the echo module lost its warm pool under load).
 */
export const PREPARATION_YIELDS_AFTER_MS = 1_000;

/** A preparation in progress, as the rules see it. */
export interface PreparationView {
  startedAt: number;
  /** Its start code has used LONG_TASK_CPU_MS of CPU (thread-priority.ts). */
  long: boolean;
}

/**
 * The preparation to end for a waiting call: one whose start code has run long in CPU, else the one
 * running longest once it has run PREPARATION_YIELDS_AFTER_MS. Its module is barred from warming. null:
 * none is running; `retryInMs` says when one would qualify by its time (its CPU is watched apart).
 */
export function preparationToEnd(
  preparations: readonly PreparationView[],
  now: number,
): { index: number } | { retryInMs: number } | null {
  if (preparations.length === 0) return null;
  const long = preparations.findIndex((preparation) => preparation.long);
  if (long >= 0) return { index: long };
  let oldest = 0;
  for (const [i, { startedAt }] of preparations.entries())
    if (startedAt < (preparations[oldest] as PreparationView).startedAt) oldest = i;
  const ranFor = now - (preparations[oldest] as PreparationView).startedAt;
  return ranFor >= PREPARATION_YIELDS_AFTER_MS
    ? { index: oldest }
    : { retryInMs: PREPARATION_YIELDS_AFTER_MS - ranFor };
}
