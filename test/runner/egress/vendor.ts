// A vendor double for http_request tests: a real HTTP server on loopback that records every connection
// and request it receives, so a test can show that nothing reached it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EgressContext } from '../../../src/runner/egress/context.ts';
import { AgentPool } from '../../../src/runner/egress/pool.ts';
import { Redactor } from '../../../src/runner/redaction.ts';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Route = (request: Received, response: http.ServerResponse) => void;

export interface Vendor {
  port: number;
  connections: number;
  /** Connections closed so far (by either side). */
  closed: number;
  /** Resolves once `count` connections have closed: a test waits on that state, not on a clock. */
  closedAtLeast(count: number): Promise<void>;
  requests: Received[];
  route(path: string, handler: Route): void;
  close(): Promise<void>;
}

export async function startVendor(host = '127.0.0.1'): Promise<Vendor> {
  const routes = new Map<string, Route>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const vendor: Vendor = {
    port: 0,
    connections: 0,
    closed: 0,
    closedAtLeast: (count) =>
      new Promise<void>((resolve) => {
        if (vendor.closed >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    requests: [],
    route: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      vendor.requests.push(received);
      const path = received.url.split('?')[0] ?? '';
      const handler = routes.get(path);
      if (handler) handler(received, res);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('no route');
    });
  });
  server.on('connection', (socket) => {
    vendor.connections += 1;
    socket.on('close', () => {
      vendor.closed += 1;
      for (const waiter of waiters.filter((w) => vendor.closed >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  vendor.port = (server.address() as AddressInfo).port;
  return vendor;
}

export const TAG = 'Q2hhbmdlVGhpc1RhZ0FhQQ';

export interface ContextOptions extends Partial<EgressContext> {
  agents: AgentPool;
}

/** A call's context with the defaults these tests share; each test overrides what it is about. */
export function context(options: ContextOptions): EgressContext {
  return {
    tenantId: 'tenant-a',
    secretTag: TAG,
    secrets: new Map([
      ['API_KEY', 'sk-live-0123456789'],
      ['PASSWORD', 'correct horse battery'],
    ]),
    approvedHosts: [],
    allowPrivateNetworks: false,
    redactor: new Redactor(),
    usage: { httpRequests: 0, reusedConnections: 0 },
    ...options,
  };
}

/** A resolver standing for DNS: each name maps to the addresses given, anything else is not found. */
export function fakeDns(names: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = names[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

export { AgentPool };
