// Kept-alive connections per tenant: a tenant's second request goes out on the connection its first left
// open and is counted as reused; another tenant never gets it; an idle connection closes after the
// keep-alive time; a kept connection is taken only when its peer is among the addresses just checked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EgressContext } from '../../../src/runner/egress/context.ts';
import { performHttpRequest } from '../../../src/runner/egress/http.ts';
import type { AgentPoolOptions } from '../../../src/runner/egress/pool.ts';
import { AgentPool, type ContextOptions, context, fakeDns, startVendor, type Vendor } from './vendor.ts';

let vendor: Vendor;
let base: string;
const pools: AgentPool[] = [];
const dns = fakeDns({ 'vendor.test': ['127.0.0.1'] });

function pool(options: AgentPoolOptions = {}): AgentPool {
  const agents = new AgentPool(options);
  pools.push(agents);
  return agents;
}

const ctx = (options: ContextOptions): EgressContext =>
  context({ allowPrivateNetworks: true, approvedHosts: ['vendor.test'], lookup: dns.lookup, ...options });

const get = (c: EgressContext, path = '/hello') =>
  performHttpRequest({ method: 'GET', url: `${base}${path}` }, c);

beforeAll(async () => {
  vendor = await startVendor();
  base = `http://vendor.test:${vendor.port}`;
  vendor.route('/hello', (_request, response) => response.end('hello'));
  vendor.route('/slow', (_request, response) => {
    setTimeout(() => response.end('slow'), 100);
  });
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  // Every connection of the test gone before the next one counts closes.
  await vendor.closedAtLeast(vendor.connections);
  vendor.connections = 0;
  vendor.closed = 0;
});

afterAll(async () => {
  await vendor.close();
});

describe('AgentPool', () => {
  it('reuses a tenant’s connection for its next request and counts it', async () => {
    const agents = pool();
    const c = ctx({ agents });
    expect(await get(c)).toMatchObject({ status: 200, body: 'hello' });
    expect(await get(c)).toMatchObject({ status: 200, body: 'hello' });
    expect(c.usage).toEqual({ httpRequests: 2, reusedConnections: 1 });
    expect(vendor.connections).toBe(1);
    expect(agents.openConnections('tenant-a')).toBe(1);

    // A later call of the same tenant finds the connection too.
    const next = ctx({ agents });
    await get(next);
    expect(next.usage).toEqual({ httpRequests: 1, reusedConnections: 1 });
    expect(vendor.connections).toBe(1);
  });

  it('never shares a connection between tenants', async () => {
    const agents = pool();
    const a = ctx({ agents, tenantId: 'tenant-a' });
    const b = ctx({ agents, tenantId: 'tenant-b' });
    await get(a);
    await get(b);
    await get(b);
    expect(a.usage.reusedConnections).toBe(0);
    expect(b.usage).toEqual({ httpRequests: 2, reusedConnections: 1 });
    expect(vendor.connections).toBe(2);
    expect(agents.openConnections('tenant-a')).toBe(1);
    expect(agents.openConnections('tenant-b')).toBe(1);
  });

  it('gives each request in flight its own connection', async () => {
    const agents = pool();
    const c = ctx({ agents });
    await Promise.all([get(c, '/slow'), get(c, '/slow')]);
    expect(c.usage).toEqual({ httpRequests: 2, reusedConnections: 0 });
    expect(vendor.connections).toBe(2);
    await get(c);
    expect(c.usage.reusedConnections).toBe(1);
    expect(vendor.connections).toBe(2);
  });

  it('keeps at most maxIdlePerOrigin idle connections', async () => {
    const agents = pool({ maxIdlePerOrigin: 1 });
    const c = ctx({ agents });
    await Promise.all([get(c, '/slow'), get(c, '/slow'), get(c, '/slow')]);
    expect(vendor.connections).toBe(3);
    expect(agents.openConnections('tenant-a')).toBe(1);
  });

  it('closes an idle connection after the keep-alive time', async () => {
    const agents = pool({ keepAliveMs: 100 });
    const c = ctx({ agents });
    await get(c);
    // The vendor keeps connections for 5 s: the close it sees is the pool's keep-alive running out.
    await vendor.closedAtLeast(1);
    expect(agents.openConnections('tenant-a')).toBe(0);
    await get(c);
    expect(c.usage.reusedConnections).toBe(0);
    expect(vendor.connections).toBe(2);
  });

  it('keeps nothing with a keep-alive time of 0', async () => {
    const agents = pool({ keepAliveMs: 0 });
    const c = ctx({ agents });
    await get(c);
    await get(c);
    expect(c.usage.reusedConnections).toBe(0);
    expect(vendor.connections).toBe(2);
  });

  it('takes a kept connection only when its peer is among the addresses just checked', async () => {
    const agents = pool();
    let address = '127.0.0.1';
    const lookup = async () => [{ address, family: 4 }];
    const c = ctx({ agents, lookup });
    expect(await get(c)).toMatchObject({ status: 200 });
    // The name now resolves elsewhere (nothing listens on 127.0.0.2): the open connection to
    // 127.0.0.1 is not taken, and the new one goes to the address checked now.
    address = '127.0.0.2';
    const answer = await get(c);
    expect(answer).toMatchObject({ error: expect.stringContaining('ECONNREFUSED'), network: 'not_sent' });
    expect(c.usage.reusedConnections).toBe(0);
    expect(vendor.connections).toBe(1);
  });

  it('refuses work once closed', async () => {
    const agents = pool();
    await agents.close();
    expect(() => agents.acquire('tenant-a', base, [{ address: '127.0.0.1', family: 4 }])).toThrow(
      'the connection pool is closed',
    );
  });
});
