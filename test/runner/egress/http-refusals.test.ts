// http_request with private networks off, as in production: loopback, link-local, IPv6 loopback, local
// names and names resolving to private addresses are refused before any byte is sent. A real server on
// loopback stands ready at the port every request names, and counts the connections it never gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performHttpRequest } from '../../../src/runner/egress/http.ts';
import { AgentPool, context, fakeDns, startVendor, type Vendor } from './vendor.ts';

let vendor: Vendor;
let vendor6: Vendor | null = null;
const agents = new AgentPool();

beforeAll(async () => {
  vendor = await startVendor('127.0.0.1');
  vendor.route('/', (_request, response) => response.end('reached'));
  try {
    vendor6 = await startVendor('::1');
  } catch {
    vendor6 = null; // no IPv6 loopback here: the refusal is still checked, the counter is not
  }
});

afterAll(async () => {
  await agents.close();
  await vendor.close();
  await vendor6?.close();
});

function refusedWithoutContact(answer: unknown, ctx: { usage: { httpRequests: number } }) {
  expect(answer).toMatchObject({ refused: true });
  expect(ctx.usage.httpRequests).toBe(0);
  expect(vendor.connections).toBe(0);
  expect(vendor.requests).toEqual([]);
  if (vendor6) expect(vendor6.connections).toBe(0);
}

describe('addresses refused while private networks are off', () => {
  it('refuses 127.0.0.1 even when approved', async () => {
    const dns = fakeDns({});
    const ctx = context({ agents, approvedHosts: [`127.0.0.1:${vendor.port}`], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: `https://127.0.0.1:${vendor.port}/` }, ctx);
    expect(answer).toEqual({
      error:
        'host 127.0.0.1 resolves to 127.0.0.1, a loopback address, which apps may not reach (a development stack may reach it with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true)',
      refused: true,
    });
    expect(dns.calls).toEqual([]);
    refusedWithoutContact(answer, ctx);
  });

  it('refuses the metadata address 169.254.169.254', async () => {
    const ctx = context({ agents, approvedHosts: ['169.254.169.254'] });
    const answer = await performHttpRequest(
      { method: 'GET', url: 'https://169.254.169.254/latest/meta-data/iam/security-credentials/' },
      ctx,
    );
    expect(answer).toMatchObject({ error: expect.stringContaining('link-local'), refused: true });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses [::1]', async () => {
    const port = vendor6?.port ?? vendor.port;
    const ctx = context({ agents, approvedHosts: [`[::1]:${port}`, '::1'] });
    const answer = await performHttpRequest({ method: 'GET', url: `https://[::1]:${port}/` }, ctx);
    expect(answer).toEqual({ error: 'IPv6 address literals are never reached', refused: true });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses a name that resolves to a private address', async () => {
    const dns = fakeDns({ 'vendor.test': ['10.0.0.5'] });
    const ctx = context({ agents, approvedHosts: ['vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'https://vendor.test/' }, ctx);
    expect(answer).toEqual({
      error:
        'host vendor.test resolves to 10.0.0.5, a private address, which apps may not reach (a development stack may reach it with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true)',
      refused: true,
    });
    expect(dns.calls).toEqual(['vendor.test']);
    refusedWithoutContact(answer, ctx);
  });

  it('refuses a name that resolves to loopback, where a server is listening at the port asked', async () => {
    const dns = fakeDns({ 'vendor.test': ['127.0.0.1'] });
    const ctx = context({ agents, approvedHosts: [`vendor.test:${vendor.port}`], lookup: dns.lookup });
    const answer = await performHttpRequest(
      { method: 'GET', url: `https://vendor.test:${vendor.port}/` },
      ctx,
    );
    expect(answer).toMatchObject({ error: expect.stringContaining('loopback'), refused: true });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses a name when any one of its addresses is refused', async () => {
    for (const addresses of [
      ['93.184.216.34', '127.0.0.1'],
      ['2606:4700:4700::1111', '::1'],
      ['93.184.216.34', '64:ff9b::7f00:1'],
      ['2002:7f00:1::1'],
      ['::ffff:127.0.0.1'],
      ['100.64.0.1'],
    ]) {
      const dns = fakeDns({ 'vendor.test': addresses });
      const ctx = context({ agents, approvedHosts: [`vendor.test:${vendor.port}`], lookup: dns.lookup });
      const answer = await performHttpRequest(
        { method: 'GET', url: `https://vendor.test:${vendor.port}/` },
        ctx,
      );
      expect(answer, addresses.join(' ')).toMatchObject({ refused: true });
      refusedWithoutContact(answer, ctx);
    }
  });

  it('refuses localhost by its name, without asking a resolver', async () => {
    const dns = fakeDns({ localhost: ['93.184.216.34'] });
    const ctx = context({ agents, approvedHosts: [`localhost:${vendor.port}`], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: `https://localhost:${vendor.port}/` }, ctx);
    expect(answer).toEqual({ error: 'host localhost is local', refused: true });
    expect(dns.calls).toEqual([]);
    refusedWithoutContact(answer, ctx);
  });
});

describe('hosts and schemes refused while private networks are off', () => {
  const dns = fakeDns({ 'api.vendor.test': ['93.184.216.34'] });

  it('refuses http', async () => {
    const ctx = context({ agents, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'http://api.vendor.test/' }, ctx);
    expect(answer).toEqual({
      error:
        'url must use https (http is allowed only with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true, for development)',
      refused: true,
    });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses a host not approved', async () => {
    const ctx = context({ agents, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'https://evil.test/' }, ctx);
    expect(answer).toEqual({ error: 'host evil.test is not approved for this install', refused: true });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses an approved host at another port', async () => {
    const ctx = context({ agents, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'https://api.vendor.test:8443/' }, ctx);
    expect(answer).toEqual({
      error: 'port 8443 of host api.vendor.test is not approved for this install',
      refused: true,
    });
    refusedWithoutContact(answer, ctx);
  });

  it('refuses credentials in the URL', async () => {
    const ctx = context({ agents, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'https://u:p@api.vendor.test/' }, ctx);
    expect(answer).toEqual({ error: 'url must not carry a user name or password', refused: true });
  });

  it('never lets the Host header name another site behind an approved address', async () => {
    const ctx = context({ agents, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest(
      { method: 'GET', url: 'https://api.vendor.test/', headers: { Host: 'evil.test' } },
      ctx,
    );
    expect(answer).toEqual({ error: 'header host is set by the host and may not be given', refused: true });
  });
});

describe('the request shape', () => {
  const ctx = () => context({ agents, approvedHosts: ['api.vendor.test'] });
  const cases: Array<[unknown, string]> = [
    [null, 'the request must be a JSON object'],
    [[], 'the request must be a JSON object'],
    [{ method: 'GET', url: 'https://api.vendor.test/', follow: true }, 'follow is not a request field'],
    [{ url: 'https://api.vendor.test/' }, 'method must be a string'],
    [
      { method: 'TRACE', url: 'https://api.vendor.test/' },
      'method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ],
    [{ method: 'GET' }, 'url must be a non-empty string'],
    [
      { method: 'GET', url: 'https://api.vendor.test/', timeoutMs: 30_001 },
      'timeoutMs must be an integer from 1 to 30000',
    ],
    [
      { method: 'GET', url: 'https://api.vendor.test/', timeoutMs: 1.5 },
      'timeoutMs must be an integer from 1 to 30000',
    ],
    [{ method: 'GET', url: 'https://api.vendor.test/', headers: { a: 1 } }, 'header a must be a string'],
    [
      { method: 'GET', url: 'https://api.vendor.test/', headers: { 'a b': 'x' } },
      'header name "a b" is not valid',
    ],
    [
      { method: 'GET', url: 'https://api.vendor.test/', headers: { A: 'x', a: 'y' } },
      'header a is given twice',
    ],
    [
      { method: 'GET', url: 'https://api.vendor.test/', headers: { 'Content-Length': '5' } },
      'header content-length is set by the host and may not be given',
    ],
    [
      { method: 'POST', url: 'https://api.vendor.test/', body: 'a', bodyBase64: 'YQ==' },
      'give either body or bodyBase64',
    ],
    [
      { method: 'POST', url: 'https://api.vendor.test/', bodyBase64: 'not base64!' },
      'bodyBase64 must be base64 text',
    ],
    [{ method: 'HEAD', url: 'https://api.vendor.test/', body: 'a' }, 'a HEAD request has no body'],
    [
      { method: 'GET', url: 'https://api.vendor.test/', auth: { type: 'ntlm' } },
      'auth.type must be basic, digest or bearer',
    ],
    [
      { method: 'GET', url: 'https://api.vendor.test/', auth: { type: 'basic', username: 'u' } },
      'auth.password must be a string',
    ],
    [
      { method: 'GET', url: 'https://api.vendor.test/', auth: { type: 'bearer', token: 't', username: 'u' } },
      'auth.username is not a field of bearer auth',
    ],
    [
      {
        method: 'GET',
        url: 'https://api.vendor.test/',
        auth: { type: 'bearer', token: 't' },
        headers: { Authorization: 'x' },
      },
      'give either auth or an authorization header, not both',
    ],
  ];
  it.each(cases)('refuses %j', async (request, error) => {
    expect(await performHttpRequest(request, ctx())).toEqual({ error, refused: true });
  });
});

describe('a closed pool', () => {
  it('answers not_sent', async () => {
    const closed = new AgentPool();
    await closed.close();
    const dns = fakeDns({ 'api.vendor.test': ['93.184.216.34'] });
    const ctx = context({ agents: closed, approvedHosts: ['api.vendor.test'], lookup: dns.lookup });
    const answer = await performHttpRequest({ method: 'GET', url: 'https://api.vendor.test/' }, ctx);
    expect(answer).toEqual({ error: 'the connection pool is closed', network: 'not_sent' });
  });
});
