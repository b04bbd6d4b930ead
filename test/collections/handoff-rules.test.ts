// The hand-off's pure rules (src/collections/handoff-rules.ts), one row per sentence of each rule: which
// pages applicants are sent to, where they come back to, and which session they are handed off for.
import { describe, expect, it } from 'vitest';
import {
  HANDOFF_SESSIONS_READ,
  handoffCandidate,
  pageDecision,
  returnUrlOf,
  type SessionCandidate,
} from '../../src/collections/handoff-rules.ts';

const HOSTS = [
  'idv.example.com',
  'pages.idv.example:8443',
  '*.hosted.example',
  '203.0.113.7',
  'localhost:4010',
];

describe('pageDecision: the pages the platform sends applicants to', () => {
  // [page, allowPrivateNetworks, host audited (ok) or a fragment of the reason]
  const rows: [string, boolean, { host: string } | { refused: RegExp }][] = [
    // https on an approved host, at its port (the default port for a host approved without one)
    ['https://idv.example.com/s/1?t=abc', false, { host: 'idv.example.com' }],
    ['https://idv.example.com:443/s/1', false, { host: 'idv.example.com' }],
    ['https://pages.idv.example:8443/s/1', false, { host: 'pages.idv.example:8443' }],
    ['https://a.b.hosted.example/s', false, { host: 'a.b.hosted.example' }],
    ['https://IDV.Example.COM/s/1', false, { host: 'idv.example.com' }],
    // not https
    ['http://idv.example.com/s/1', false, { refused: /must use https/ }],
    ['ftp://idv.example.com/s/1', false, { refused: /must use https/ }],
    ['javascript:alert(1)', false, { refused: /must use https/ }],
    ['not-a-url', false, { refused: /not a valid absolute URL/ }],
    // not on an approved host, or not at its port
    ['https://evil.example.com/s/1', false, { refused: /host evil\.example\.com is not approved/ }],
    ['https://hosted.example/s', false, { refused: /host hosted\.example is not approved/ }],
    ['https://idv.example.com:8443/s/1', false, { refused: /port 8443 of host idv\.example\.com/ }],
    ['https://pages.idv.example/s/1', false, { refused: /port 443 of host pages\.idv\.example/ }],
    // named, not an IP address (even an approved one), not localhost
    ['https://203.0.113.7/s/1', false, { refused: /not an IP address/ }],
    ['https://[::1]/s/1', false, { refused: /IPv6/ }],
    ['https://localhost:4010/s/1', false, { refused: /localhost is local/ }],
    // without credentials
    ['https://user:pw@idv.example.com/s/1', false, { refused: /user name or password/ }],
    ['https://user@idv.example.com/s/1', false, { refused: /user name or password/ }],
    // a port browsers refuse, even where approved
    ['https://bad.idv.example:6000/s', false, { refused: /port 6000 is one browsers refuse/ }],
    // spaces and control characters: the URL parser drops or trims them, so the page answered would not
    // be the page checked (`\r\n` a header in a redirect)
    ['https://idv.example.com/x\r\nSet-Cookie: a=b', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/x\nSet-Cookie:a=b', true, { refused: /space or a control character/ }],
    ['https://idv.example.com/s\t1', false, { refused: /space or a control character/ }],
    ['https://idv.exa\tmple.com/s', false, { refused: /space or a control character/ }],
    [' https://idv.example.com/s', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/s\u0000', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/s\u007f', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/s\u0085', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/a b', false, { refused: /space or a control character/ }],
    ['https://idv.example.com/a%20b%0D%0A', false, { host: 'idv.example.com' }],
    // longer than 4000 characters
    [`https://idv.example.com/${'a'.repeat(4000)}`, false, { refused: /longer than 4000/ }],
    // a private-network stack: http, any port and IP addresses pass on the install's hostnames
    ['http://idv.example.com/s/1', true, { host: 'idv.example.com' }],
    ['http://idv.example.com:9000/s/1', true, { host: 'idv.example.com:9000' }],
    ['https://idv.example.com:8443/s/1', true, { host: 'idv.example.com:8443' }],
    ['http://203.0.113.7:8080/s/1', true, { host: '203.0.113.7:8080' }],
    ['http://localhost:4010/s', true, { host: 'localhost:4010' }],
    ['https://bad.idv.example:6000/s', true, { host: 'bad.idv.example:6000' }],
    // …and only there
    ['http://evil.example.com/s/1', true, { refused: /host evil\.example\.com is not approved/ }],
    ['http://198.51.100.1/s/1', true, { refused: /host 198\.51\.100\.1 is not approved/ }],
    ['http://user:pw@idv.example.com/s/1', true, { refused: /user name or password/ }],
    ['http://[::1]:4010/s', true, { refused: /IPv6/ }],
    ['ftp://idv.example.com/s/1', true, { refused: /must use https/ }],
  ];
  const hosts = [...HOSTS, 'bad.idv.example:6000'];

  it.each(rows)('%s (private networks %s)', (page, allowPrivate, expected) => {
    const decision = pageDecision(page, hosts, allowPrivate);
    if ('host' in expected) expect(decision).toEqual({ ok: true, host: expected.host });
    else {
      expect(decision.ok).toBe(false);
      if (!decision.ok) expect(decision.reason).toMatch(expected.refused);
    }
  });

  it('never names the page address in a reason (it may carry the vendor’s tokens)', () => {
    for (const [page, allowPrivate] of rows) {
      const decision = pageDecision(page, hosts, allowPrivate);
      if (!decision.ok && page.includes('?')) expect(decision.reason).not.toContain(page);
    }
    const refused = pageDecision('https://evil.example.com/s?token=SECRET', hosts, false);
    expect(JSON.stringify(refused)).not.toContain('SECRET');
  });

  it('refuses every page when the install has no approved host', () => {
    expect(pageDecision('https://idv.example.com/s', [], false).ok).toBe(false);
    expect(pageDecision('http://idv.example.com/s', [], true).ok).toBe(false);
  });
});

describe('returnUrlOf: where the vendor’s page sends the applicant back', () => {
  const id = '6f1c0b8e-3c1a-4e0e-9b1f-0a7d2d1e5c44';
  const rows: [string | null, string | null, string | RegExp][] = [
    // the tenant's flowUrl first
    [
      'https://collect.acme.example',
      'https://flow.platform.example',
      `https://collect.acme.example/flow/${id}`,
    ],
    // else the deployment's
    [null, 'https://flow.platform.example', `https://flow.platform.example/flow/${id}`],
    // after the base's own path, without doubled slashes, its query kept after the path, no fragment
    ['https://collect.acme.example/kyc/', null, `https://collect.acme.example/kyc/flow/${id}`],
    ['https://collect.acme.example/kyc//', null, `https://collect.acme.example/kyc/flow/${id}`],
    ['https://collect.acme.example/a?brand=x#top', null, `https://collect.acme.example/a/flow/${id}?brand=x`],
    ['http://127.0.0.1:5173', null, `http://127.0.0.1:5173/flow/${id}`],
    // neither set
    [null, null, /neither the tenant’s collection\.flowUrl nor COLLECTION_FLOW_URL is set/],
    // longer than a module takes
    [`https://collect.acme.example/${'p'.repeat(1990)}`, null, /longer than 2000 characters/],
    ['ftp://collect.acme.example', null, /http or https/],
  ];

  it.each(rows)('tenant %s, deployment %s', (tenant, deployment, expected) => {
    const answer = returnUrlOf({ tenant, deployment }, id);
    if (typeof expected === 'string') expect(answer).toEqual({ ok: true, url: expected });
    else {
      expect(answer.ok).toBe(false);
      if (!answer.ok) expect(answer.reason).toMatch(expected);
    }
  });
});

describe('handoffCandidate: the session the applicant is handed off for', () => {
  const candidate = (
    id: string,
    more: { handoff?: boolean; blocked?: boolean; install?: { enabled: boolean } | null } = {},
  ): SessionCandidate<string> => ({
    session: id,
    version: { manifest: { handles: { webhook: true, handoff: more.handoff ?? true } } },
    blocked: more.blocked ?? false,
    install: more.install === undefined ? { enabled: true } : more.install,
  });
  const chosen = (rows: SessionCandidate<string>[]) => handoffCandidate(rows)?.session ?? null;

  it('takes the newest eligible pending session', () => {
    expect(chosen([candidate('new'), candidate('old')])).toBe('new');
  });

  it('passes over a session whose version declares no hand-off', () => {
    expect(chosen([candidate('new', { handoff: false }), candidate('old')])).toBe('old');
  });

  it('passes over a session whose version is blocked', () => {
    expect(chosen([candidate('new', { blocked: true }), candidate('old')])).toBe('old');
  });

  it('passes over a session whose install is removed or disabled', () => {
    expect(chosen([candidate('gone', { install: null }), candidate('old')])).toBe('old');
    expect(chosen([candidate('off', { install: { enabled: false } }), candidate('old')])).toBe('old');
  });

  it('answers none when no session is eligible, or the run has none', () => {
    expect(chosen([candidate('a', { handoff: false }), candidate('b', { blocked: true })])).toBeNull();
    expect(chosen([])).toBeNull();
  });

  it('reads a manifest without handles as no hand-off', () => {
    const bare = { ...candidate('bare'), version: { manifest: {} as never } };
    expect(handoffCandidate([bare])).toBeNull();
  });

  it(`looks only at the ${HANDOFF_SESSIONS_READ} newest`, () => {
    const newer = Array.from({ length: HANDOFF_SESSIONS_READ }, (_, i) =>
      candidate(`n${i}`, { handoff: false }),
    );
    expect(chosen([...newer, candidate('21st')])).toBeNull();
    expect(chosen([...newer.slice(1), candidate('20th')])).toBe('20th');
  });
});
