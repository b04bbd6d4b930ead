// http_request on the wire, over http on loopback as a private-network (development) stack allows: the
// names vendor.test and other.test exist only in the test's resolver, so reaching the server proves the
// connection went to the address that was checked. Placeholders, redirects, limits, failures.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EgressContext } from '../../../src/runner/egress/context.ts';
import { performHttpRequest } from '../../../src/runner/egress/http.ts';
import { AgentPool, type ContextOptions, context, fakeDns, startVendor, TAG, type Vendor } from './vendor.ts';

let vendor: Vendor;
let agents: AgentPool;
let base: string;
let other: string;
const dns = fakeDns({
  'vendor.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  'evil.test': ['127.0.0.1'],
});

const ctx = (options: Partial<ContextOptions> = {}): EgressContext =>
  context({
    agents,
    allowPrivateNetworks: true,
    approvedHosts: ['vendor.test', 'other.test'],
    lookup: dns.lookup,
    ...options,
  });

beforeAll(async () => {
  vendor = await startVendor();
  base = `http://vendor.test:${vendor.port}`;
  other = `http://other.test:${vendor.port}`;
  vendor.route('/echo', (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
    response.end(JSON.stringify(request));
  });
  vendor.route('/away', (_request, response) => {
    response.writeHead(302, { location: `http://evil.test:${vendor.port}/echo` }).end();
  });
  vendor.route('/to-other', (_request, response) => {
    response.writeHead(307, { location: `${other}/echo?from=vendor` }).end();
  });
  vendor.route('/see-other', (_request, response) => response.writeHead(303, { location: '/echo' }).end());
  vendor.route('/loop', (request, response) => {
    const n = Number(new URL(request.url, base).searchParams.get('n') ?? 0);
    response.writeHead(301, { location: `/loop?n=${n + 1}` }).end();
  });
  vendor.route('/big', (_request, response) => response.end('x'.repeat(2048)));
  vendor.route('/big-chunked', (_request, response) => {
    response.write('x'.repeat(600));
    setTimeout(() => response.end('y'.repeat(600)), 10);
  });
  vendor.route('/binary', (_request, response) => response.end(Buffer.from([0xff, 0xfe, 0x00, 0x41])));
  vendor.route('/silent', () => {}); // never answers
});

beforeEach(() => {
  agents = new AgentPool();
});

afterEach(async () => {
  await agents.close();
  // Every connection of the test gone before the next one counts closes.
  await vendor.closedAtLeast(vendor.connections);
  vendor.connections = 0;
  vendor.closed = 0;
  vendor.requests.length = 0;
  dns.calls.length = 0;
});

afterAll(async () => {
  await vendor.close();
});

type Echo = { method: string; url: string; headers: Record<string, string>; body: string };
function echoed(answer: unknown): Echo {
  expect(answer).toMatchObject({ status: 200 });
  return JSON.parse((answer as { body: string }).body) as Echo;
}

describe('the checked address', () => {
  it('is the one connected to: a name only the test resolver knows reaches the loopback server', async () => {
    const c = ctx();
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/echo` }, c);
    const request = echoed(answer);
    expect(request.headers.host).toBe(`vendor.test:${vendor.port}`);
    expect(request.headers['user-agent']).toMatch(/^apps-platform\//);
    expect(dns.calls).toEqual(['vendor.test']);
    expect(c.usage).toEqual({ httpRequests: 1, reusedConnections: 0 });
  });

  it('answers headers lower-cased, repeated ones joined', async () => {
    const answer = await performHttpRequest({ method: 'get', url: `${base}/echo` }, ctx());
    expect(answer).toMatchObject({ headers: { 'content-type': 'application/json', 'x-multi': 'a, b' } });
  });

  it('answers bytes that are not UTF-8 as bodyBase64', async () => {
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/binary` }, ctx());
    expect(answer).toMatchObject({
      status: 200,
      bodyBase64: Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString('base64'),
    });
    expect(answer).not.toHaveProperty('body');
  });
});

describe('placeholders', () => {
  it('fills them in url, headers, body and registers the values for redaction', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      {
        method: 'POST',
        url: `${base}/echo?key={{secret:API_KEY:${TAG}}}`,
        headers: {
          'X-Api-Key': `{{secret:API_KEY:${TAG}}}`,
          'x-literal': '{{secret:API_KEY}}',
          'content-type': 'text/plain',
        },
        body: `password={{secret:PASSWORD:${TAG}}}`,
      },
      c,
    );
    // The vendor got the values; its echo reaches the module redacted.
    expect(JSON.stringify(echoed(answer))).not.toMatch(/sk-live|correct horse/);
    const request = vendor.requests[0] as (typeof vendor.requests)[0];
    expect(request.url).toBe('/echo?key=sk-live-0123456789');
    expect(request.headers['x-api-key']).toBe('sk-live-0123456789');
    expect(request.headers['x-literal']).toBe('{{secret:API_KEY}}');
    expect(request.body).toBe('password=correct horse battery');
    expect(JSON.stringify(request)).not.toContain(TAG);
    expect(c.redactor.apply('sk-live-0123456789')).toBe('[secret:API_KEY]');
  });

  it('refuses the tag where nothing is filled, before anything is sent', async () => {
    for (const request of [
      { method: 'GET', url: `${base}/echo`, headers: { 'x-echo': TAG } },
      { method: 'GET', url: `${base}/echo?t=${TAG}` },
      { method: 'POST', url: `${base}/echo`, body: `{"input":"${TAG}"}` },
      { method: 'POST', url: `${base}/echo`, bodyBase64: Buffer.from(`..${TAG}..`).toString('base64') },
      { method: 'GET', url: `${base}/echo`, headers: { [`x-${TAG}`]: 'v' } },
      { method: 'GET', url: `${base}/echo`, auth: { type: 'bearer', token: `${TAG}` } },
      { method: 'GET', url: `${base}/echo`, headers: { 'x-a': `{{secret:API_KEY:${TAG}}}${TAG}` } },
    ]) {
      const answer = await performHttpRequest(request, ctx());
      expect(answer, JSON.stringify(request)).toMatchObject({
        error: expect.stringContaining("carries the call's secret tag"),
        refused: true,
      });
    }
    expect(vendor.connections).toBe(0);
  });

  it('refuses a secret the install does not require', async () => {
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/echo`, headers: { 'x-key': `{{secret:OTHER:${TAG}}}` } },
      ctx(),
    );
    expect(answer).toEqual({
      error: 'header x-key names secret OTHER, which is not a required secret of this install',
      refused: true,
    });
    expect(vendor.connections).toBe(0);
  });

  it('refuses a secret value that cannot travel in a header', async () => {
    const c = ctx({ secrets: new Map([['API_KEY', 'line\r\nx-injected: 1']]) });
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/echo`, headers: { 'x-key': `{{secret:API_KEY:${TAG}}}` } },
      c,
    );
    expect(answer).toEqual({ error: 'header x-key holds a character that cannot be sent', refused: true });
    expect(vendor.connections).toBe(0);
  });
});

describe('redirects', () => {
  it('refuses a redirect to a host not approved, after the first request only', async () => {
    const c = ctx();
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/away` }, c);
    expect(answer).toEqual({
      error: 'redirect refused: host evil.test is not approved for this install',
      refused: true,
    });
    expect(vendor.requests.map((r) => r.url)).toEqual(['/away']);
    expect(c.usage.httpRequests).toBe(1);
  });

  it('follows one to an approved host, counted, without credentials or secret headers', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      {
        method: 'PUT',
        url: `${base}/to-other`,
        headers: { 'x-key': `{{secret:API_KEY:${TAG}}}`, 'x-plain': 'kept', cookie: 'a=b' },
        body: 'payload',
        auth: { type: 'bearer', token: `{{secret:API_KEY:${TAG}}}` },
      },
      c,
    );
    const request = echoed(answer);
    expect(request).toMatchObject({ method: 'PUT', url: '/echo?from=vendor', body: 'payload' });
    expect(request.headers.host).toBe(`other.test:${vendor.port}`);
    expect(request.headers['x-plain']).toBe('kept');
    expect(request.headers).not.toHaveProperty('x-key');
    expect(request.headers).not.toHaveProperty('authorization');
    expect(request.headers).not.toHaveProperty('cookie');
    expect(vendor.requests[0]?.headers.authorization).toBe('Bearer sk-live-0123456789');
    expect(c.usage.httpRequests).toBe(2);
  });

  it('refuses to carry a body holding a secret to another origin', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'POST', url: `${base}/to-other`, body: `{"key":"{{secret:API_KEY:${TAG}}}"}` },
      c,
    );
    expect(answer).toEqual({
      error: 'redirect refused: the body carries a secret and would leave the first origin',
      refused: true,
    });
    expect(vendor.requests.map((r) => r.url)).toEqual(['/to-other']);
  });

  it('continues a POST as GET without body after 303', async () => {
    const answer = await performHttpRequest(
      {
        method: 'POST',
        url: `${base}/see-other`,
        body: '{}',
        headers: { 'content-type': 'application/json' },
      },
      ctx(),
    );
    const request = echoed(answer);
    expect(request).toMatchObject({ method: 'GET', url: '/echo', body: '' });
    expect(request.headers).not.toHaveProperty('content-type');
  });

  it('follows at most five', async () => {
    const c = ctx();
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/loop` }, c);
    expect(answer).toEqual({ error: 'more than 5 redirects', refused: true });
    expect(vendor.requests).toHaveLength(6);
    expect(c.usage.httpRequests).toBe(6);
  });
});

describe('limits', () => {
  it('sends 25 requests a call and refuses the 26th', async () => {
    const c = ctx();
    for (let i = 0; i < 25; i++) {
      expect(await performHttpRequest({ method: 'GET', url: `${base}/echo` }, c)).toMatchObject({
        status: 200,
      });
    }
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/echo` }, c);
    expect(answer).toEqual({ error: 'at most 25 HTTP requests may be sent in one call', refused: true });
    expect(vendor.requests).toHaveLength(25);
    expect(c.usage.httpRequests).toBe(25);
  });

  it('counts redirects against the cap', async () => {
    const c = ctx({ maxRequests: 3 });
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/loop` }, c);
    expect(answer).toEqual({ error: 'at most 3 HTTP requests may be sent in one call', refused: true });
    expect(vendor.requests).toHaveLength(3);
  });

  it('refuses a response over the cap, declared or streamed', async () => {
    const c = ctx({ maxResponseBytes: 1000 });
    expect(await performHttpRequest({ method: 'GET', url: `${base}/big` }, c)).toEqual({
      error: 'the response of vendor.test is larger than 1000 bytes',
      refused: true,
    });
    expect(await performHttpRequest({ method: 'GET', url: `${base}/big-chunked` }, c)).toEqual({
      error: 'the response of vendor.test is larger than 1000 bytes',
      refused: true,
    });
    expect(
      await performHttpRequest({ method: 'GET', url: `${base}/big` }, ctx({ maxResponseBytes: 2048 })),
    ).toMatchObject({ status: 200 });
  });

  it('times out a silent vendor as network unknown', async () => {
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/silent`, timeoutMs: 200 }, ctx());
    expect(answer).toEqual({
      error: 'request to vendor.test failed: timed out after 200 ms',
      network: 'unknown',
    });
    expect(vendor.requests).toHaveLength(1);
    // The request was abandoned, not left waiting: its connection closes though the vendor never answers.
    await vendor.closedAtLeast(1);
  });

  it('never runs past the call deadline', async () => {
    const c = ctx({ deadline: Date.now() + 150 });
    const answer = await performHttpRequest({ method: 'GET', url: `${base}/silent`, timeoutMs: 30_000 }, c);
    expect(answer).toEqual({
      error: "request to vendor.test failed: the call's deadline was reached",
      network: 'unknown',
    });
    const late = await performHttpRequest({ method: 'GET', url: `${base}/echo` }, c);
    expect(late).toEqual({ error: "the call's deadline has passed", refused: true });
    expect(c.usage.httpRequests).toBe(1);
  });
});

describe('transport failures', () => {
  it('answers not_sent when the connection is refused', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'POST', url: `http://vendor.test:${closed}/`, body: 'x' },
      c,
    );
    expect(answer).toMatchObject({ error: expect.stringContaining('ECONNREFUSED'), network: 'not_sent' });
    expect(c.usage.httpRequests).toBe(1);
  });

  it('answers not_sent when the name does not resolve, or not in time', async () => {
    expect(
      await performHttpRequest(
        { method: 'GET', url: 'http://other.test:1/' },
        ctx({ lookup: fakeDns({}).lookup }),
      ),
    ).toEqual({
      error: 'could not resolve other.test: ENOTFOUND: getaddrinfo ENOTFOUND other.test',
      network: 'not_sent',
    });
    const hanging = () => new Promise<never>(() => {});
    const c = ctx({ lookup: hanging });
    expect(await performHttpRequest({ method: 'GET', url: `${base}/echo`, timeoutMs: 100 }, c)).toEqual({
      error: 'could not resolve vendor.test: timed out after 100 ms',
      network: 'not_sent',
    });
    expect(c.usage.httpRequests).toBe(0);
  });
});
