// Calls in flight: APP_RUNNER_CONCURRENCY per process and APP_RUNNER_TENANT_CONCURRENCY per tenant;
// beyond either the runner answers busy instead of queueing (the caller retries elsewhere or later).
//
// Two more bounds hold back a tenant whose calls cost everyone else:
// - A long call (one that has used 50 ms of CPU: a loop, memory growing to its cap, heavy start code)
//   counts twice against its tenant's concurrency until it ends: at the default of 4, two at a time.
//   Lowering its thread's priority keeps its CPU from others, not the kernel work its memory costs.
// - Each ended sandbox thread (a deadline, start code past its limit) costs the runner a new one (tens
//   of milliseconds of CPU). Each tenant has an allowance of ended threads, twice its concurrency (all
//   its calls timing out together, twice), given back one a second; with none left its calls are busy.

/** How often a tenant's allowance of ended threads gets one back. */
export const ENDED_THREAD_REFILL_MS = 1_000;

/** A tenant's allowance of ended threads: `left` as of `at` (epoch ms). */
export interface Allowance {
  left: number;
  at: number;
}

/** The allowance at `now`, given back at one per ENDED_THREAD_REFILL_MS up to `full`. */
export function allowanceAt(allowance: Allowance, now: number, full: number): number {
  return Math.min(full, allowance.left + Math.max(0, now - allowance.at) / ENDED_THREAD_REFILL_MS);
}

/**
 * One more ended thread: the allowance goes down by one, to no less than -full / 2 (a tenant that ended
 * many threads at once waits longer, though not for ever).
 */
export function afterEnded(allowance: Allowance, now: number, full: number): Allowance {
  return { left: Math.max(-full / 2, allowanceAt(allowance, now, full) - 1), at: now };
}

export class Gate {
  #inFlight = 0;
  readonly #perTenant = new Map<string, number>();
  readonly #allowances = new Map<string, Allowance>();
  readonly #long = new Map<string, number>();

  constructor(
    readonly concurrency: number,
    readonly tenantConcurrency: number,
    private readonly now: () => number = Date.now,
  ) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  get #fullAllowance(): number {
    return 2 * this.tenantConcurrency;
  }

  get full(): boolean {
    return this.#inFlight >= this.concurrency;
  }

  /** Whether the tenant has no ended thread left in its allowance: its calls are busy until one is back. */
  restricted(tenantId: string): boolean {
    const allowance = this.#allowances.get(tenantId);
    if (!allowance) return false;
    const left = allowanceAt(allowance, this.now(), this.#fullAllowance);
    if (left >= this.#fullAllowance) this.#allowances.delete(tenantId);
    return left < 1;
  }

  /** Takes a place for the tenant, or answers false when the process or the tenant is at its limit. */
  tryEnter(tenantId: string): boolean {
    const tenant = this.#perTenant.get(tenantId) ?? 0;
    const long = this.#long.get(tenantId) ?? 0;
    if (this.full || tenant + long >= this.tenantConcurrency || this.restricted(tenantId)) return false;
    this.#inFlight += 1;
    this.#perTenant.set(tenantId, tenant + 1);
    return true;
  }

  leave(tenantId: string): void {
    this.#inFlight -= 1;
    const tenant = (this.#perTenant.get(tenantId) ?? 1) - 1;
    if (tenant <= 0) this.#perTenant.delete(tenantId);
    else this.#perTenant.set(tenantId, tenant);
  }

  /** A call of the tenant became long (+1), or a long call of it ended (-1). */
  longCall(tenantId: string, delta: 1 | -1): void {
    const long = (this.#long.get(tenantId) ?? 0) + delta;
    if (long > 0) this.#long.set(tenantId, long);
    else this.#long.delete(tenantId);
  }

  /** Long calls in flight, every tenant's. */
  get longCalls(): number {
    let count = 0;
    for (const n of this.#long.values()) count += n;
    return count;
  }

  /** A call (or a warm-up) of the tenant ended its sandbox thread. */
  threadEnded(tenantId: string): void {
    const now = this.now();
    const allowance = this.#allowances.get(tenantId) ?? { left: this.#fullAllowance, at: now };
    this.#allowances.set(tenantId, afterEnded(allowance, now, this.#fullAllowance));
  }
}
