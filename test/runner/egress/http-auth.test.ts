// Credentials derived from secrets: Basic, Digest (the challenge round trip counted) and Bearer against
// a loopback vendor that checks them itself, and their redaction as [auth:TYPE].
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EgressContext } from '../../../src/runner/egress/context.ts';
import { performHttpRequest } from '../../../src/runner/egress/http.ts';
import {
  AgentPool,
  type ContextOptions,
  context,
  fakeDns,
  type Received,
  startVendor,
  TAG,
  type Vendor,
} from './vendor.ts';

const USER = 'admin';
const PASSWORD = 'correct horse battery';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

let vendor: Vendor;
let agents: AgentPool;
let base: string;
const dns = fakeDns({ 'vendor.test': ['127.0.0.1'] });

const ctx = (options: Partial<ContextOptions> = {}): EgressContext =>
  context({
    agents,
    allowPrivateNetworks: true,
    approvedHosts: ['vendor.test'],
    lookup: dns.lookup,
    ...options,
  });

/** A Digest server written from RFC 7616 alone, sharing no code with the host. */
function digestRoute(algorithms: string[]) {
  const realm = 'vendor@test';
  const nonce = randomBytes(16).toString('base64');
  return (request: Received, response: import('node:http').ServerResponse) => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Digest ')) {
      const challenges = algorithms.map(
        (algorithm) =>
          `Digest realm="${realm}", qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="xyz"`,
      );
      response.writeHead(401, { 'www-authenticate': challenges }).end('who are you?');
      return;
    }
    const fields: Record<string, string> = {};
    for (const m of header.matchAll(/(\w+)=(?:"([^"]*)"|([^\s,]+))/g))
      fields[m[1] as string] = m[2] ?? m[3] ?? '';
    const hashName = fields.algorithm === 'SHA-256' ? 'sha256' : 'md5';
    const h = (text: string) => createHash(hashName).update(text).digest('hex');
    const ha1 = h(`${USER}:${realm}:${PASSWORD}`);
    const ha2 = h(`${request.method}:${fields.uri}`);
    const expected = h(`${ha1}:${nonce}:${fields.nc}:${fields.cnonce}:${fields.qop}:${ha2}`);
    const ok =
      fields.username === USER &&
      fields.uri === request.url &&
      fields.opaque === 'xyz' &&
      fields.response === expected;
    response.writeHead(ok ? 200 : 401).end(ok ? `welcome via ${fields.algorithm}` : 'bad digest');
  };
}

beforeAll(async () => {
  vendor = await startVendor();
  base = `http://vendor.test:${vendor.port}`;
  vendor.route('/basic', (request, response) => {
    const ok = request.headers.authorization === `Basic ${BASIC}`;
    response.writeHead(ok ? 200 : 401).end(ok ? `hello ${request.headers.authorization}` : 'no');
  });
  vendor.route('/bearer', (request, response) => {
    response.end(`seen ${request.headers.authorization}`);
  });
  vendor.route('/digest', digestRoute(['MD5']));
  vendor.route('/digest-both', digestRoute(['MD5', 'SHA-256']));
  vendor.route('/open', (_request, response) => response.end('open'));
});

beforeEach(() => {
  agents = new AgentPool();
});

afterEach(async () => {
  await agents.close();
  vendor.requests.length = 0;
});

afterAll(async () => {
  await vendor.close();
});

describe('basic', () => {
  it('sends the credential and redacts it and its header as [auth:basic]', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      {
        method: 'GET',
        url: `${base}/basic`,
        auth: { type: 'basic', username: USER, password: `{{secret:PASSWORD:${TAG}}}` },
      },
      c,
    );
    // The vendor echoed the header: the module reads it redacted.
    expect(answer).toMatchObject({ status: 200, body: 'hello [auth:basic]' });
    expect(c.redactor.apply(`hello Basic ${BASIC}`)).toBe('hello [auth:basic]');
    expect(c.redactor.apply(`token=${BASIC}`)).toBe('token=[auth:basic]');
    expect(c.redactor.apply(PASSWORD)).toBe('[secret:PASSWORD]');
  });

  it('does not register a credential no secret went into', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/basic`, auth: { type: 'basic', username: USER, password: PASSWORD } },
      c,
    );
    expect(answer).toMatchObject({ status: 200 });
    expect(c.redactor.apply(BASIC)).toBe(BASIC);
  });
});

describe('digest', () => {
  it('answers the challenge, counting both requests, and redacts the answer as [auth:digest]', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      {
        method: 'GET',
        url: `${base}/digest?x=1`,
        auth: { type: 'digest', username: USER, password: `{{secret:PASSWORD:${TAG}}}` },
      },
      c,
    );
    expect(answer).toMatchObject({ status: 200, body: 'welcome via MD5' });
    expect(c.usage.httpRequests).toBe(2);
    expect(vendor.requests).toHaveLength(2);
    expect(vendor.requests[0]?.headers.authorization).toBeUndefined();
    const sent = vendor.requests[1]?.headers.authorization as string;
    expect(sent).toMatch(/^Digest /);
    expect(c.redactor.apply(`echo: ${sent}`)).toBe('echo: [auth:digest]');
    const response = /response="([0-9a-f]+)"/.exec(sent)?.[1] as string;
    expect(c.redactor.apply(response)).toBe('[auth:digest]');
  });

  it('prefers SHA-256 when offered', async () => {
    const answer = await performHttpRequest(
      {
        method: 'GET',
        url: `${base}/digest-both`,
        auth: { type: 'digest', username: USER, password: PASSWORD },
      },
      ctx(),
    );
    expect(answer).toMatchObject({ status: 200, body: 'welcome via SHA-256' });
  });

  it('answers the second 401 as it is, without trying again', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/digest`, auth: { type: 'digest', username: USER, password: 'wrong' } },
      c,
    );
    expect(answer).toMatchObject({ status: 401, body: 'bad digest' });
    expect(c.usage.httpRequests).toBe(2);
  });

  it('leaves the challenge unanswered when the request limit is reached', async () => {
    const c = ctx({ maxRequests: 1 });
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/digest`, auth: { type: 'digest', username: USER, password: PASSWORD } },
      c,
    );
    expect(answer).toEqual({ error: 'at most 1 HTTP requests may be sent in one call', refused: true });
    expect(vendor.requests).toHaveLength(1);
  });

  it('sends no Authorization where no challenge asks for one', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/open`, auth: { type: 'digest', username: USER, password: PASSWORD } },
      c,
    );
    expect(answer).toMatchObject({ status: 200, body: 'open' });
    expect(c.usage.httpRequests).toBe(1);
  });
});

describe('bearer', () => {
  it('sends the token and redacts the header as [auth:bearer]', async () => {
    const c = ctx();
    const answer = await performHttpRequest(
      { method: 'GET', url: `${base}/bearer`, auth: { type: 'bearer', token: `{{secret:API_KEY:${TAG}}}` } },
      c,
    );
    expect(answer).toMatchObject({ status: 200, body: 'seen [auth:bearer]' });
    expect(c.redactor.apply('seen Bearer sk-live-0123456789')).toBe('seen [auth:bearer]');
    expect(c.redactor.apply('sk-live-0123456789')).toBe('[secret:API_KEY]');
  });
});
