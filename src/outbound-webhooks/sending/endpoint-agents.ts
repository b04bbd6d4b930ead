// One connection pool per endpoint (docs/outbound-webhooks.md "Fair sending"). A pool shared by origin
// lets one endpoint's hanging requests hold every connection to a host that other endpoints, of other
// tenants too, also use (one vendor's hook host serves many tenants): each endpoint's are its own. A pool
// unused for a while is closed, so endpoints that stopped receiving hold nothing.
import type { Agent } from 'undici';

const IDLE_MS = 60_000;

interface Held {
  agent: Agent;
  active: number;
  lastUsed: number;
}

export class EndpointAgents {
  readonly #agents = new Map<string, Held>();
  readonly #make: () => Agent;
  readonly #idleMs: number;
  #swept = Date.now();

  constructor(make: () => Agent, idleMs = IDLE_MS) {
    this.#make = make;
    this.#idleMs = idleMs;
  }

  /** Runs `use` with the endpoint's pool, made on first use. */
  async with<T>(endpointId: string, use: (agent: Agent) => Promise<T>): Promise<T> {
    this.#sweep();
    let held = this.#agents.get(endpointId);
    if (!held) {
      held = { agent: this.#make(), active: 0, lastUsed: Date.now() };
      this.#agents.set(endpointId, held);
    }
    held.active += 1;
    try {
      return await use(held.agent);
    } finally {
      held.active -= 1;
      held.lastUsed = Date.now();
    }
  }

  /** Closes the pools idle for longer than the idle time, at most once per idle time. */
  #sweep() {
    const now = Date.now();
    if (now - this.#swept < this.#idleMs) return;
    this.#swept = now;
    for (const [id, held] of this.#agents) {
      if (held.active > 0 || now - held.lastUsed < this.#idleMs) continue;
      this.#agents.delete(id);
      held.agent.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()].map((held) => held.agent);
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }
}
