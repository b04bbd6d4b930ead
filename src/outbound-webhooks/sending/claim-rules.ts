// Which due deliveries a sender takes (docs/outbound-webhooks.md "Fair sending"). A send to an endpoint
// that hangs holds its slot until its timeout, so a window shared first-come would let one tenant's slow
// endpoints hold every slot while others' deliveries wait. Each tenant and each endpoint may hold only a
// share of the window, and free slots are dealt round-robin: tenants in turn (the one due longest first),
// and within a tenant its endpoints in turn. Pure.

export interface SenderLimits {
  /** Sends in flight at most (the window). */
  window: number;
  /** Of those, to one tenant's endpoints. */
  perTenant: number;
  /** Of those, to one endpoint. */
  perEndpoint: number;
}

export const DEFAULT_SENDER_LIMITS: SenderLimits = { window: 64, perTenant: 16, perEndpoint: 8 };

export interface Candidate {
  id: string;
  endpointId: string;
  tenantId: string;
  dueAt: Date;
}

/** What a sender has in flight: in all, by tenant and by endpoint. */
export interface InFlight {
  total: number;
  byTenant: ReadonlyMap<string, number>;
  byEndpoint: ReadonlyMap<string, number>;
}

interface Queue<T> {
  key: string;
  items: T[];
  room: number;
}

/** Groups items by key, each group in the input's order; groups ordered by their first item. */
function queues<T>(items: readonly T[], keyOf: (item: T) => string, roomOf: (key: string) => number) {
  const byKey = new Map<string, Queue<T>>();
  for (const item of items) {
    const key = keyOf(item);
    let queue = byKey.get(key);
    if (!queue) {
      queue = { key, items: [], room: roomOf(key) };
      byKey.set(key, queue);
    }
    queue.items.push(item);
  }
  return [...byKey.values()].filter((q) => q.room > 0);
}

/** The ids to claim, in the order dealt: round-robin over tenants, and within each over its endpoints. */
export function fairPicks(
  candidates: readonly Candidate[],
  inFlight: InFlight,
  limits: SenderLimits,
): string[] {
  let room = limits.window - inFlight.total;
  if (room <= 0) return [];
  const oldestFirst = [...candidates].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
  const tenants = queues(
    oldestFirst,
    (c) => c.tenantId,
    (tenantId) => limits.perTenant - (inFlight.byTenant.get(tenantId) ?? 0),
  ).map((tenant) => ({
    ...tenant,
    endpoints: queues(
      tenant.items,
      (c) => c.endpointId,
      (endpointId) => limits.perEndpoint - (inFlight.byEndpoint.get(endpointId) ?? 0),
    ),
    next: 0,
  }));
  const picks: string[] = [];
  let active = tenants.filter((t) => t.endpoints.length > 0);
  while (room > 0 && active.length > 0) {
    for (const tenant of active) {
      if (room === 0) break;
      const endpoint = tenant.endpoints[tenant.next % tenant.endpoints.length];
      const pick = endpoint?.items.shift();
      if (!endpoint || !pick) continue;
      picks.push(pick.id);
      room -= 1;
      tenant.room -= 1;
      endpoint.room -= 1;
      if (endpoint.room === 0 || endpoint.items.length === 0)
        tenant.endpoints.splice(tenant.next % tenant.endpoints.length, 1);
      else tenant.next += 1;
    }
    active = active.filter((t) => t.room > 0 && t.endpoints.length > 0);
  }
  return picks;
}
