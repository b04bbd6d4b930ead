// Calls in flight: APP_RUNNER_CONCURRENCY per process and APP_RUNNER_TENANT_CONCURRENCY per tenant;
// beyond either the runner answers busy instead of queueing (the caller retries elsewhere or later).
export class Gate {
  #inFlight = 0;
  readonly #perTenant = new Map<string, number>();

  constructor(
    readonly concurrency: number,
    readonly tenantConcurrency: number,
  ) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  get full(): boolean {
    return this.#inFlight >= this.concurrency;
  }

  /** Takes a place for the tenant, or answers false when the process or the tenant is at its limit. */
  tryEnter(tenantId: string): boolean {
    const tenant = this.#perTenant.get(tenantId) ?? 0;
    if (this.full || tenant >= this.tenantConcurrency) return false;
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
}
