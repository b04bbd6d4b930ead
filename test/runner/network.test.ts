// http_request through the real runner and a module (the echo fixture relaying the request), against a
// vendor double on loopback that counts every connection: what a runner without private networks
// refuses before any byte leaves, what the call's tag may and may not do, and a private-network
// (development) stack reaching the double with a secret filled in.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture } from '../support/assemblyscript.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';
import { fakeDns, startVendor, type Vendor } from './egress/vendor.ts';

const SECRET_VALUE = 'sk-live-network-0123456789';
let platform: TestPlatform;
let guarded: TestRunner;
let open: TestRunner;
let vendor: Vendor;
let echo: string;
const dns = fakeDns({ 'vendor.test': ['127.0.0.1'] });

beforeAll(async () => {
  vendor = await startVendor();
  vendor.route('/echo', (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request));
  });
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  // APP_RUNNER_ALLOW_PRIVATE_NETWORKS off (the default); vendor.test resolves to loopback.
  guarded = await startTestRunner(platform, {}, { lookup: dns.lookup });
  open = await startTestRunner(platform, { APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
  const bytes = await buildFixture('echo');
  echo = await guarded.store(bytes);
}, 120_000);
afterEach(() => {
  vendor.connections = 0;
  vendor.requests.length = 0;
  dns.calls.length = 0;
});
afterAll(async () => {
  await guarded?.close();
  await open?.close();
  await platform?.close();
  await vendor?.close();
});

/** Has the module send one http_request; `__TAG__` in it becomes the call's secretTag inside the module. */
async function send(
  runner: TestRunner,
  request: Record<string, unknown>,
  hosts: string[],
  tenantId: string = randomUUID(),
) {
  const response = await runner.post('/v1/invoke', {
    module: { sha256: echo },
    call: { id: randomUUID(), tenantId },
    action: 'echo',
    config: { auth: '{{secret:API_KEY}}' },
    secrets: { API_KEY: SECRET_VALUE },
    hosts,
    input: { hostCall: { fn: 'http_request', request } },
    timeoutMs: 10_000,
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe('without private networks', () => {
  it.each([
    ['http to 127.0.0.1', 'http://127.0.0.1:PORT/echo', ['127.0.0.1:PORT'], 'must use https'],
    ['https to 127.0.0.1', 'https://127.0.0.1:PORT/echo', ['127.0.0.1:PORT'], 'a loopback address'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/', ['169.254.169.254'], 'link-local'],
    ['[::1]', 'https://[::1]:PORT/echo', ['[::1]:PORT', '::1'], 'IPv6 address literals'],
  ])('refuses %s before any connection', async (_name, url, hosts, why) => {
    const port = (text: string) => text.replace('PORT', String(vendor.port));
    const body = await send(guarded, { method: 'GET', url: port(url) }, hosts.map(port));
    expect(body.answer.output.answer).toEqual({ error: expect.stringContaining(why), refused: true });
    expect(body.usage.httpRequests).toBe(0);
    expect(vendor.connections).toBe(0);
  });

  it('refuses an approved name that resolves to a private address, after resolving it', async () => {
    const body = await send(guarded, { method: 'GET', url: `https://vendor.test:${vendor.port}/echo` }, [
      `vendor.test:${vendor.port}`,
    ]);
    expect(body.answer.output.answer).toEqual({
      error: expect.stringContaining('127.0.0.1, a loopback address'),
      refused: true,
    });
    expect(dns.calls).toEqual(['vendor.test']);
    expect(body.usage.httpRequests).toBe(0);
    expect(vendor.connections).toBe(0);
  });

  it("refuses a request carrying the call's tag where no placeholder is filled, before resolving", async () => {
    const url = `https://vendor.test:${vendor.port}/echo`;
    const hosts = [`vendor.test:${vendor.port}`];
    for (const leak of ['{{secret:UNDECLARED:__TAG__}}', '{{secret:API_KEY:__TAG__}', 'tag=__TAG__']) {
      const body = await send(guarded, { method: 'GET', url, headers: { 'x-leak': leak } }, hosts);
      expect(body.answer.output.answer, leak).toEqual({
        error: expect.stringContaining('header x-leak'),
        refused: true,
      });
    }
    expect(dns.calls).toEqual([]);
    expect(vendor.connections).toBe(0);
  });
});

describe('with private networks (development)', () => {
  const hosts = () => [`127.0.0.1:${vendor.port}`];
  const url = () => `http://127.0.0.1:${vendor.port}/echo`;

  it('refuses the tag outside a placeholder where the same request without it goes out', async () => {
    const refused = await send(
      open,
      { method: 'GET', url: url(), headers: { 'x-leak': '{{secret:UNDECLARED:__TAG__}}' } },
      hosts(),
    );
    expect(refused.answer.output.answer).toEqual({
      error: expect.stringContaining('UNDECLARED, which is not a required secret'),
      refused: true,
    });
    expect(vendor.connections).toBe(0);
    const sent = await send(open, { method: 'GET', url: url(), headers: { 'x-ok': 'plain' } }, hosts());
    expect(sent.answer.output.answer.status).toBe(200);
    expect(vendor.requests).toHaveLength(1);
  });

  it('fills the secret for the vendor and shows the module only its redaction', async () => {
    const body = await send(
      open,
      { method: 'GET', url: url(), headers: { authorization: 'Bearer {{secret:API_KEY:__TAG__}}' } },
      hosts(),
    );
    expect(vendor.requests).toHaveLength(1);
    expect(vendor.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET_VALUE}`);
    const answer = body.answer.output.answer;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).headers.authorization).toBe('Bearer [secret:API_KEY]');
    expect(JSON.stringify(body)).not.toContain(SECRET_VALUE);
    expect(body.usage).toMatchObject({ httpRequests: 1, reusedConnections: 0 });
  });

  it("reuses a tenant's kept-alive connection on its next call", async () => {
    const tenantId = randomUUID();
    const first = await send(open, { method: 'GET', url: url() }, hosts(), tenantId);
    const second = await send(open, { method: 'GET', url: url() }, hosts(), tenantId);
    expect(first.usage).toMatchObject({ httpRequests: 1, reusedConnections: 0 });
    expect(second.usage).toMatchObject({ httpRequests: 1, reusedConnections: 1 });
    expect(vendor.requests).toHaveLength(2);
    expect(vendor.connections).toBe(1);
    // Another tenant never gets that connection.
    const other = await send(open, { method: 'GET', url: url() }, hosts());
    expect(other.usage).toMatchObject({ httpRequests: 1, reusedConnections: 0 });
    expect(vendor.connections).toBe(2);
  });
});
