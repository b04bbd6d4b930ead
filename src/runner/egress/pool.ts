// Kept-alive vendor connections, per tenant (for APP_RUNNER_KEEPALIVE_MS). The pool holds
// undici Clients, each one connection, rather than an Agent: a request then owns its connection for its
// whole exchange, so the pool knows exactly which socket it went out on (reused or new, and whether it
// may have reached the vendor at all), and each connection is made only to the addresses that request
// checked: the connector's lookup answers them, never DNS, so a name cannot be re-pointed between the
// check and the connect (DNS rebinding). Connections are never shared between tenants.
import type { Socket } from 'node:net';
import { buildConnector, Client, type Dispatcher } from 'undici';
import { type CheckedAddress, pinnedLookup } from '../../net/pinned-lookup.ts';

export const DEFAULT_KEEPALIVE_MS = 4000;
/** Idle connections kept per tenant and origin; more are closed when their request ends. */
export const DEFAULT_MAX_IDLE_PER_ORIGIN = 4;

export type { CheckedAddress };

export interface AgentPoolOptions {
  /** How long an idle connection stays open (APP_RUNNER_KEEPALIVE_MS); a server's shorter hint wins. */
  keepAliveMs?: number;
  maxIdlePerOrigin?: number;
}

/** One request's hold on one connection of the pool. */
export interface Lease {
  readonly dispatcher: Dispatcher;
  /** Whether a connection was open at some time during the lease: the request may have been sent. */
  mayHaveSent(): boolean;
  /** Whether the request went out on a connection an earlier request left open. */
  reused(): boolean;
  /** Hands the connection back (kept if still open and wanted) once the exchange is over. */
  release(): void;
}

/** What the connector saw of one client's connections. */
interface Link {
  socket: Socket | null;
  /** Connections made: a change during a lease means a new one was opened for its request. */
  connects: number;
}

interface Entry {
  client: Client;
  link: Link;
  busy: boolean;
  dropped: boolean;
}

const alive = (entry: Entry) => entry.link.socket !== null && !entry.link.socket.destroyed;

export class AgentPool {
  readonly #keepAliveMs: number;
  readonly #maxIdle: number;
  readonly #tenants = new Map<string, Map<string, Set<Entry>>>();
  #closed = false;

  constructor(options: AgentPoolOptions = {}) {
    // 0 keeps nothing: each connection is closed when its request ends.
    this.#keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEPALIVE_MS;
    this.#maxIdle = options.maxIdlePerOrigin ?? DEFAULT_MAX_IDLE_PER_ORIGIN;
  }

  /**
   * A connection to `origin` (scheme://host:port) for one request: an idle open one of this tenant
   * whose peer is among the checked addresses, else a new client that connects only to them.
   */
  acquire(tenantId: string, origin: string, addresses: readonly CheckedAddress[]): Lease {
    if (this.#closed) throw new Error('the connection pool is closed');
    let origins = this.#tenants.get(tenantId);
    if (!origins) {
      origins = new Map();
      this.#tenants.set(tenantId, origins);
    }
    let entries = origins.get(origin);
    if (!entries) {
      entries = new Set();
      origins.set(origin, entries);
    }
    const checked = new Set(addresses.map((a) => a.address));
    let entry: Entry | undefined;
    for (const candidate of entries) {
      if (!candidate.busy && alive(candidate) && checked.has(candidate.link.socket?.remoteAddress ?? '')) {
        entry = candidate;
        break;
      }
    }
    entry ??= this.#open(tenantId, origin, entries, addresses);
    entry.busy = true;
    return this.#lease(tenantId, origin, entry);
  }

  #open(tenantId: string, origin: string, entries: Set<Entry>, addresses: readonly CheckedAddress[]): Entry {
    const base = buildConnector({ lookup: pinnedLookup(addresses) } as buildConnector.BuildOptions);
    const link: Link = { socket: null, connects: 0 };
    const connect: buildConnector.connector = (options, callback) => {
      base(options, (...args) => {
        const socket = args[1];
        if (socket) {
          link.socket = socket;
          link.connects += 1;
        }
        callback(...args);
      });
    };
    const client = new Client(origin, {
      connect,
      keepAliveTimeout: Math.max(1, this.#keepAliveMs),
      keepAliveMaxTimeout: Math.max(1, this.#keepAliveMs),
      // The caller's own timer bounds every request (timeoutMs and the call's deadline).
      headersTimeout: 0,
      bodyTimeout: 0,
      pipelining: 1,
    });
    const entry: Entry = { client, link, busy: false, dropped: false };
    // A connection closed while idle (keep-alive expired, the vendor hung up) leaves nothing to reuse.
    client.on('disconnect', () => {
      if (!entry.busy) this.#drop(tenantId, origin, entry);
    });
    entries.add(entry);
    return entry;
  }

  #lease(tenantId: string, origin: string, entry: Entry): Lease {
    const openAtStart = alive(entry);
    const connectsAtStart = entry.link.connects;
    let released = false;
    return {
      dispatcher: entry.client,
      mayHaveSent: () => openAtStart || entry.link.connects !== connectsAtStart,
      reused: () => openAtStart && entry.link.connects === connectsAtStart,
      release: () => {
        if (released) return;
        released = true;
        entry.busy = false;
        const entries = this.#tenants.get(tenantId)?.get(origin);
        const idle = entries ? [...entries].filter((e) => !e.busy && alive(e)).length : 0;
        const keep = !this.#closed && this.#keepAliveMs > 0 && alive(entry) && idle <= this.#maxIdle;
        if (!keep) this.#drop(tenantId, origin, entry);
      },
    };
  }

  #drop(tenantId: string, origin: string, entry: Entry): void {
    if (entry.dropped) return;
    entry.dropped = true;
    const origins = this.#tenants.get(tenantId);
    const entries = origins?.get(origin);
    entries?.delete(entry);
    if (entries && entries.size === 0) origins?.delete(origin);
    if (origins && origins.size === 0) this.#tenants.delete(tenantId);
    entry.client.destroy().catch(() => {});
  }

  /** Open connections kept for a tenant (for health output and tests). */
  openConnections(tenantId: string): number {
    let count = 0;
    for (const entries of this.#tenants.get(tenantId)?.values() ?? []) {
      for (const entry of entries) if (alive(entry)) count += 1;
    }
    return count;
  }

  /** Destroys every connection; requests in flight fail, later acquires throw. */
  async close(): Promise<void> {
    this.#closed = true;
    const clients: Client[] = [];
    for (const origins of this.#tenants.values()) {
      for (const entries of origins.values()) for (const entry of entries) clients.push(entry.client);
    }
    this.#tenants.clear();
    await Promise.all(clients.map((client) => client.destroy().catch(() => {})));
  }
}
