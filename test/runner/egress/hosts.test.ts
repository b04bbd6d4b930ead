// Approved hosts at their port (docs/installs.md): scheme, credentials, wildcards, ports, and what a
// private-network (development) stack admits besides.
import { describe, expect, it } from 'vitest';
import { checkTarget, isLocalhostName, parseApprovedHost } from '../../../src/runner/egress/hosts.ts';

const APPROVED = ['api.vendor.com', 'files.vendor.com:8443', '*.eu.vendor.com', '93.184.216.34'];

const reason = (url: string, hosts = APPROVED, allowPrivate = false) => {
  const decision = checkTarget(url, hosts, allowPrivate);
  return decision.ok ? null : decision.reason;
};

describe('parseApprovedHost', () => {
  it('reads names, wildcards, IPv4 and ports', () => {
    expect(parseApprovedHost('api.vendor.com')).toEqual({
      hostname: 'api.vendor.com',
      wildcard: false,
      port: null,
    });
    expect(parseApprovedHost('API.Vendor.com:8443')).toEqual({
      hostname: 'api.vendor.com',
      wildcard: false,
      port: 8443,
    });
    expect(parseApprovedHost('*.vendor.com')).toEqual({ hostname: 'vendor.com', wildcard: true, port: null });
    expect(parseApprovedHost('127.0.0.1:9000')).toEqual({
      hostname: '127.0.0.1',
      wildcard: false,
      port: 9000,
    });
    expect(parseApprovedHost('localhost:8080')).toEqual({
      hostname: 'localhost',
      wildcard: false,
      port: 8080,
    });
  });

  it('approves nothing for strings no URL can match', () => {
    for (const text of [
      '',
      '*',
      '*.',
      'a..b',
      'host:0',
      'host:70000',
      '[::1]:80',
      'https://api.vendor.com',
      '*.0.0.1',
      'a/b',
    ]) {
      expect(parseApprovedHost(text), text).toBeNull();
    }
  });
});

describe('checkTarget', () => {
  it('admits an approved host at the default https port', () => {
    const decision = checkTarget('https://api.vendor.com/v1/things?id=1#frag', APPROVED, false);
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    expect(decision.hostname).toBe('api.vendor.com');
    expect(decision.port).toBe(443);
    expect(decision.url.href).toBe('https://api.vendor.com/v1/things?id=1');
    expect(reason('https://API.VENDOR.COM:443/')).toBeNull();
  });

  it('admits a host approved with a port at that port only', () => {
    expect(reason('https://files.vendor.com:8443/x')).toBeNull();
    expect(reason('https://files.vendor.com/x')).toBe(
      'port 443 of host files.vendor.com is not approved for this install',
    );
    expect(reason('https://api.vendor.com:8443/')).toBe(
      'port 8443 of host api.vendor.com is not approved for this install',
    );
  });

  it('matches wildcards below the name, never the name itself', () => {
    expect(reason('https://fra.eu.vendor.com/')).toBeNull();
    expect(reason('https://a.b.eu.vendor.com/')).toBeNull();
    expect(reason('https://eu.vendor.com/')).toBe('host eu.vendor.com is not approved for this install');
    expect(reason('https://evil-eu.vendor.com/')).not.toBeNull();
    expect(reason('https://fra.eu.vendor.com.evil.com/')).not.toBeNull();
  });

  it('refuses hosts not approved, look-alikes included', () => {
    expect(reason('https://evil.com/')).toBe('host evil.com is not approved for this install');
    expect(reason('https://api.vendor.com.evil.com/')).not.toBeNull();
    expect(reason('https://xapi.vendor.com/')).not.toBeNull();
    expect(reason('https://api.vendor.com./')).not.toBeNull();
    expect(reason('https://api.vendor.com/', [])).not.toBeNull();
  });

  it('takes https only, unless private networks are allowed', () => {
    expect(reason('http://api.vendor.com/')).toBe(
      'url must use https (http is allowed only with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true, for development)',
    );
    expect(reason('http://api.vendor.com/', APPROVED, true)).toBeNull();
    expect(reason('ftp://api.vendor.com/')).toBe('url must use https');
    expect(reason('ftp://api.vendor.com/', APPROVED, true)).toBe('url must use https');
    expect(reason('file:///etc/passwd', APPROVED, true)).toBe('url must use https');
    expect(reason('not a url')).toBe('url is not a valid absolute URL');
    expect(reason('/relative')).toBe('url is not a valid absolute URL');
  });

  it('refuses a user name or password in the URL', () => {
    expect(reason('https://user:pass@api.vendor.com/')).toBe('url must not carry a user name or password');
    expect(reason('https://user@api.vendor.com/')).toBe('url must not carry a user name or password');
  });

  it('never reaches IPv6 literals, whatever is approved', () => {
    expect(reason('https://[::1]/', ['[::1]', '::1'], true)).toBe('IPv6 address literals are never reached');
    expect(reason('https://[2606:4700::1111]/', APPROVED)).toBe('IPv6 address literals are never reached');
  });

  it('matches IPv4 literals exactly, in the URL parser’s canonical form', () => {
    expect(reason('https://93.184.216.34/')).toBeNull();
    // 0x5d.184.216.34 is 93.184.216.34 to a URL parser: the canonical form is what is matched.
    expect(reason('https://0x5d.184.216.34/')).toBeNull();
    expect(reason('https://127.0.0.1/')).toBe('host 127.0.0.1 is not approved for this install');
  });

  it('refuses localhost names while private networks are off, even when approved', () => {
    expect(reason('https://localhost:8080/', ['localhost:8080'])).toBe('host localhost is local');
    expect(reason('https://app.localhost/', ['app.localhost'])).toBe('host app.localhost is local');
    expect(isLocalhostName('localhost.')).toBe(true);
    expect(isLocalhostName('localhost.vendor.com')).toBe(false);
  });

  it('admits any port of an approved hostname on a private-network stack', () => {
    expect(reason('http://localhost:8080/', ['localhost:8080'], true)).toBeNull();
    expect(reason('http://localhost:3000/', ['localhost:8080'], true)).toBeNull();
    expect(reason('http://127.0.0.1:9001/', ['127.0.0.1:9000'], true)).toBeNull();
    expect(reason('https://api.vendor.com:8443/', APPROVED, true)).toBeNull();
    expect(reason('http://other.local:8080/', ['localhost:8080'], true)).toBe(
      'host other.local is not approved for this install',
    );
  });
});
