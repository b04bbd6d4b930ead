// Secrets in a URL and in what a vendor answers: a placeholder in the host, port or user info is refused
// without echoing anything; in the path or query the value goes out percent-encoded as one component;
// whatever the vendor echoes back reaches the module redacted, in any spelling.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EgressContext } from '../../../src/runner/egress/context.ts';
import { performHttpRequest } from '../../../src/runner/egress/http.ts';
import { AgentPool, context, fakeDns, startVendor, TAG, type Vendor } from './vendor.ts';

const ACCT = 'Acct Key/With Space?&#%';
const placeholder = (name: string) => `{{secret:${name}:${TAG}}}`;

let vendor: Vendor;
let agents: AgentPool;
let base: string;
const dns = fakeDns({ 'vendor.test': ['127.0.0.1'], 'acct-key.vendor.test': ['127.0.0.1'] });

const ctx = (secrets: Record<string, string> = { ACCT }): EgressContext =>
  context({
    agents,
    allowPrivateNetworks: true,
    approvedHosts: ['vendor.test', '*.vendor.test'],
    lookup: dns.lookup,
    secrets: new Map(Object.entries(secrets)),
  });

beforeAll(async () => {
  vendor = await startVendor();
  base = `http://vendor.test:${vendor.port}`;
  // Echoes the request in a header and in a page, as vendors' 404 pages do.
  vendor.route('/page', (request, response) => {
    response.writeHead(404, { 'content-type': 'text/html', 'x-echo': encodeURI(request.url) });
    response.end(`<p>No page at ${request.url} (${decodeURIComponent(request.url)})</p>`);
  });
  // Not UTF-8: a 0xff byte, then the header as it arrived (Latin-1) and the URL's query decoded (UTF-8).
  vendor.route('/binary', (request, response) => {
    const query = decodeURIComponent(request.url.split('?q=')[1] ?? '');
    const header = Buffer.from(String(request.headers['x-acct'] ?? ''), 'latin1');
    response.end(Buffer.concat([Buffer.from([0xff]), header, Buffer.from(` ${query}`, 'utf8')]));
  });
  vendor.route('/away', (request, response) => {
    const to = decodeURIComponent(request.url.split('?q=')[1] ?? '');
    response.writeHead(302, { location: `http://${to}.vendor.test:${vendor.port}/page` }).end();
  });
});

beforeEach(() => {
  agents = new AgentPool();
});

afterEach(async () => {
  await agents.close();
  vendor.requests.length = 0;
  vendor.connections = 0;
});

afterAll(async () => {
  await vendor.close();
});

describe('a placeholder in the URL', () => {
  it.each([
    ['host', `http://${placeholder('ACCT')}.vendor.test/x`],
    ['host, without a separator', `http://vendor.test${placeholder('ACCT')}`],
    ['port', `http://vendor.test:${placeholder('ACCT')}/x`],
    ['user info', `http://${placeholder('ACCT')}@vendor.test/x`],
    ['password', `http://user:${placeholder('ACCT')}@vendor.test/x`],
    ['scheme', `${placeholder('ACCT')}://vendor.test/x`],
  ])('is refused in the %s, naming no host', async (_where, url) => {
    const c = ctx({ ACCT: 'acct-key' });
    const answer = await performHttpRequest({ method: 'GET', url }, c);
    expect(answer).toEqual({
      error:
        'url: a secret may be filled into the path, query or fragment only, never the scheme, host, port or user info',
      refused: true,
    });
    expect(vendor.connections).toBe(0);
    expect(dns.calls).not.toContain('acct-key.vendor.test');
  });

  it('goes out percent-encoded as one component in the path and the query', async () => {
    const c = ctx();
    await performHttpRequest(
      {
        method: 'GET',
        url: `${base}/page/${placeholder('ACCT')}?q=${placeholder('ACCT')}&x=1#${placeholder('ACCT')}`,
      },
      c,
    );
    const sent = encodeURIComponent(ACCT).replace(
      /[!'()*]/g,
      (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
    );
    expect(vendor.requests.map((r) => r.url)).toEqual([`/page/${sent}?q=${sent}&x=1`]);
  });

  it('refuses a secret too short to be redacted, before anything is sent', async () => {
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/page?q=${placeholder('ACCT')}` },
      ctx({ ACCT: 'short' }),
    );
    expect(answer).toEqual({
      error:
        'url names secret ACCT, whose value is shorter than 8 characters and could not be redacted: store a longer one',
      refused: true,
    });
    expect(vendor.connections).toBe(0);
  });
});

describe('what the vendor answers', () => {
  it('reaches the module redacted: page, headers, every spelling', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/page?q=${placeholder('ACCT')}` },
      c,
    );
    expect(answer).toMatchObject({
      status: 404,
      headers: { 'x-echo': expect.stringContaining('[secret:ACCT]') },
    });
    const text = JSON.stringify(answer);
    expect(text).toContain('[secret:ACCT]');
    for (const spelling of [ACCT, ACCT.toLowerCase(), encodeURIComponent(ACCT), encodeURI(ACCT)]) {
      expect(text).not.toContain(spelling);
      expect(text.toLowerCase()).not.toContain(spelling.toLowerCase());
    }
  });

  it('reaches the module redacted when the body is not UTF-8', async () => {
    const secret = 'Kéy-Über-123';
    const answer = await performHttpRequest(
      {
        method: 'GET',
        url: `${base}/binary?q=${placeholder('ACCT')}`,
        headers: { 'x-acct': placeholder('ACCT') },
      },
      ctx({ ACCT: secret }),
    );
    const bytes = Buffer.from((answer as { bodyBase64: string }).bodyBase64, 'base64');
    expect(bytes.includes(Buffer.from(secret, 'latin1'))).toBe(false);
    expect(bytes.includes(Buffer.from(secret, 'utf8'))).toBe(false);
    expect(bytes.toString('latin1')).toBe('\u00ff[secret:ACCT] [secret:ACCT]');
  });

  it('cannot echo a secret through a redirect’s host into a refusal', async () => {
    const c = ctx({ ACCT: 'Acct-Key' });
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/away?q=${placeholder('ACCT')}` },
      { ...c, approvedHosts: ['vendor.test'] },
    );
    expect(answer).toEqual({
      error: `redirect refused: host [secret:ACCT].vendor.test is not approved for this install`,
      refused: true,
    });
  });
});
