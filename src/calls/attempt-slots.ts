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

/** Places held now: free ones, and those each tenant holds. */
export interface Places {
  free: number;
  held: ReadonlyMap<string, number>;
  perTenant: number;
}

/** Whether one more attempt of the tenant may take a place now. Pure. */
export const hasRoom = (places: Places, tenantId: string): boolean =>
  places.free > 0 && (places.held.get(tenantId) ?? 0) < places.perTenant;

/**
 * Which waiters (their tenants, in the order they came) take the free places: each in turn whose tenant
 * still has room once those before it took theirs; a tenant at its bound is passed over, never waited
 * for. Answers their positions, ascending. Pure.
 */
export function admitted(places: Places, waiting: readonly string[]): number[] {
  let free = places.free;
  const held = new Map(places.held);
  const positions: number[] = [];
  for (let i = 0; i < waiting.length && free > 0; i++) {
    const tenantId = waiting[i] as string;
    if (!hasRoom({ free, held, perTenant: places.perTenant }, tenantId)) continue;
    held.set(tenantId, (held.get(tenantId) ?? 0) + 1);
    free--;
    positions.push(i);
  }
  return positions;
}

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

  get #places(): Places {
    return { free: this.#free, held: this.#held, perTenant: this.perTenant };
  }

  #take(tenantId: string): void {
    this.#free--;
    this.#held.set(tenantId, this.heldBy(tenantId) + 1);
  }

  // Every waiter that could take a place was given one when a place was last freed, so a newcomer whose
  // tenant has room passes no waiter that could have gone first.
  #enter(tenantId: string): Promise<void> {
    if (hasRoom(this.#places, tenantId)) {
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
    const entering = admitted(
      this.#places,
      this.#waiting.map((waiter) => waiter.tenantId),
    ).map((i) => this.#waiting[i] as Waiter);
    for (const waiter of entering) {
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      this.#take(waiter.tenantId);
      waiter.enter();
    }
  }
}
