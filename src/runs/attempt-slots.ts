// Attempts in flight in one worker process (docs/runs.md "Where a call_app step runs"): at most
// `perProcess` at once, and at most `perTenant` of one tenant — the runner's own bounds
// (APP_RUNNER_CONCURRENCY, APP_RUNNER_TENANT_CONCURRENCY), so a burst of one tenant's runs waits here for
// a place instead of being refused `busy` by the runner. Waiters are served in the order they came,
// except that one whose tenant is at its bound lets those of other tenants pass (no tenant holds up
// another). A holder waiting for the runner's capacity gives its place up meanwhile (Slot.pause).

/** A place held by one attempt. */
export interface Slot {
  /** Gives the place up for `ms` (a wait for the runner), then waits for a place again. */
  pause(ms: number): Promise<void>;
}

interface Waiter {
  tenantId: string;
  enter: () => void;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class AttemptSlots {
  #free: number;
  readonly #held = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(
    readonly perProcess: number,
    readonly perTenant: number,
    private readonly wait: (ms: number) => Promise<void> = timer,
  ) {
    this.#free = perProcess;
  }

  /** Places the tenant holds now. */
  heldBy(tenantId: string): number {
    return this.#held.get(tenantId) ?? 0;
  }

  /** Attempts waiting for a place now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` once the tenant has a place, and gives the place back when it ends. */
  async run<T>(tenantId: string, fn: (slot: Slot) => Promise<T>): Promise<T> {
    await this.#enter(tenantId);
    let holding = true;
    const slot: Slot = {
      pause: async (ms) => {
        this.#leave(tenantId);
        holding = false;
        await this.wait(ms);
        await this.#enter(tenantId);
        holding = true;
      },
    };
    try {
      return await fn(slot);
    } finally {
      if (holding) this.#leave(tenantId);
    }
  }

  #hasRoom(tenantId: string): boolean {
    return this.#free > 0 && this.heldBy(tenantId) < this.perTenant;
  }

  #take(tenantId: string): void {
    this.#free--;
    this.#held.set(tenantId, this.heldBy(tenantId) + 1);
  }

  // Every waiter that could take a place was given one when a place was last freed, so a newcomer whose
  // tenant has room passes no waiter that could have gone first.
  #enter(tenantId: string): Promise<void> {
    if (this.#hasRoom(tenantId)) {
      this.#take(tenantId);
      return Promise.resolve();
    }
    return new Promise((enter) => this.#waiting.push({ tenantId, enter }));
  }

  #leave(tenantId: string): void {
    this.#free++;
    const held = this.heldBy(tenantId) - 1;
    if (held > 0) this.#held.set(tenantId, held);
    else this.#held.delete(tenantId);
    for (let i = 0; i < this.#waiting.length && this.#free > 0; ) {
      const waiter = this.#waiting[i] as Waiter;
      if (!this.#hasRoom(waiter.tenantId)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      this.#take(waiter.tenantId);
      waiter.enter();
    }
  }
}
