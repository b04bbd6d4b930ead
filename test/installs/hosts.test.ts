import { describe, expect, it } from 'vitest';
import {
  addedHosts,
  BAD_PORTS,
  configUrlHost,
  type HostRuleOptions,
  type HostsManifest,
  hostCovers,
  installHosts,
  MAX_INSTALL_HOSTS,
  removedHosts,
} from '../../src/installs/hosts.ts';

const PUBLIC: HostRuleOptions = { allowPrivateNetworks: false, ownHosts: [] };
const PRIVATE: HostRuleOptions = { allowPrivateNetworks: true, ownHosts: [] };

const host = (url: unknown, options = PUBLIC) => configUrlHost(url, options);
const accepted = (url: string, options = PUBLIC) => {
  const found = host(url, options);
  if (!found.ok) throw new Error(`${url} refused: ${found.message}`);
  return found.host;
};
const refusal = (url: unknown, options = PUBLIC) => {
  const found = host(url, options);
  if (found.ok) throw new Error(`${String(url)} accepted as ${found.host}`);
  return found.message;
};

const manifest = (hosts: string[], hostsFromConfig: string[] = ['/baseUrl']): HostsManifest => ({
  hosts,
  hostsFromConfig,
});

describe('the host of a config URL', () => {
  it('is the exact lower-case hostname, with the port only when it is not the default', () => {
    expect(accepted('https://api.vendor.com/v1?x=1#frag')).toBe('api.vendor.com');
    expect(accepted('https://API.Vendor.COM/v1')).toBe('api.vendor.com');
    expect(accepted('https://api.vendor.com:443/v1')).toBe('api.vendor.com');
    expect(accepted('https://api.vendor.com:8443/v1')).toBe('api.vendor.com:8443');
    expect(accepted('https://api.vendor.com:65535')).toBe('api.vendor.com:65535');
    expect(accepted('https://bücher.example')).toBe('xn--bcher-kva.example');
    expect(accepted('https://vendor')).toBe('vendor');
  });

  it('is refused when not a URL', () => {
    for (const value of ['api.vendor.com', '/v1/things', '', 'https://', 'https://exa mple.com']) {
      expect(refusal(value), value).toBe('is not a valid absolute URL');
    }
    for (const value of [42, true, {}, ['https://api.vendor.com']]) {
      expect(refusal(value)).toBe('expected a URL');
    }
  });

  it('must use https; http passes only on a private-network stack; no other scheme ever', () => {
    expect(refusal('http://api.vendor.com')).toBe(
      'must use https (http only on a private-network development stack)',
    );
    expect(accepted('http://api.vendor.com', PRIVATE)).toBe('api.vendor.com');
    expect(accepted('http://api.vendor.com:8080', PRIVATE)).toBe('api.vendor.com:8080');
    for (const url of ['ftp://api.vendor.com', 'wss://api.vendor.com', 'file:///etc/passwd']) {
      expect(refusal(url), url).toBe('must use https');
      expect(refusal(url, PRIVATE), url).toBe('must use https');
    }
  });

  it('carries no user name or password, and never echoes them', () => {
    for (const url of [
      'https://user@api.vendor.com',
      'https://user:hunter2@api.vendor.com',
      'https://:hunter2@api.vendor.com',
    ]) {
      const message = refusal(url);
      expect(message).toBe('must not carry a user name or password');
      expect(message).not.toContain('hunter2');
      expect(refusal(url, PRIVATE)).toBe('must not carry a user name or password');
    }
  });

  it.each([...BAD_PORTS])('refuses bad port %i', (port) => {
    expect(refusal(`https://api.vendor.com:${port}`)).toBe(
      `port ${port} is one browsers refuse to fetch from`,
    );
    expect(refusal(`http://api.vendor.com:${port}`, PRIVATE)).toMatch(`port ${port}`);
  });

  it('holds exactly the Fetch standard bad ports', () => {
    // https://fetch.spec.whatwg.org/#bad-port, as undici (Node's fetch) also blocks them.
    expect([...BAD_PORTS].sort((a, b) => a - b)).toEqual([
      1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
      109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
      526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
      3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
    ]);
    for (const port of [0, 2, 80, 443, 8080, 8443, 3000, 5432, 6379, 9000, 10081]) {
      expect(BAD_PORTS.has(port), String(port)).toBe(false);
    }
    for (const port of [6665, 6666, 6667, 6668, 6669, 4190, 6679, 6697, 10080]) {
      expect(BAD_PORTS.has(port), String(port)).toBe(true);
    }
  });

  it("refuses the other scheme's default port: 80 on https, 443 on http", () => {
    expect(refusal('https://api.vendor.com:80')).toBe('port 80 is the default port of http');
    expect(refusal('https://api.vendor.com:80', PRIVATE)).toBe('port 80 is the default port of http');
    expect(refusal('http://api.vendor.com:443', PRIVATE)).toBe('port 443 is the default port of https');
    expect(accepted('http://api.vendor.com:80', PRIVATE)).toBe('api.vendor.com');
  });

  it('refuses port 0', () => {
    expect(refusal('https://api.vendor.com:0')).toBe('port 0 is not a port a request can go to');
  });

  it('names one host: no wildcard', () => {
    expect(refusal('https://*.vendor.com/v1')).toBe('must name one host, not a wildcard');
    expect(refusal('https://*.vendor.com/v1', PRIVATE)).toBe('must name one host, not a wildcard');
  });

  it('names no IP address; a private-network stack takes IPv4 but never IPv6', () => {
    for (const url of [
      'https://203.0.113.7',
      'https://127.0.0.1:9000',
      'https://10.0.0.1',
      'https://127.1',
    ]) {
      expect(refusal(url), url).toBe('must name a host, not an IP address');
    }
    expect(accepted('http://127.0.0.1:9000', PRIVATE)).toBe('127.0.0.1:9000');
    expect(accepted('https://192.168.1.20', PRIVATE)).toBe('192.168.1.20');
    // The URL parser spells IPv4 addresses canonically.
    expect(accepted('http://127.1:9000', PRIVATE)).toBe('127.0.0.1:9000');
    for (const url of ['https://[2001:db8::1]', 'https://[::1]:9000', 'https://[::ffff:127.0.0.1]/']) {
      expect(refusal(url), url).toBe('must name a host, not an IPv6 address');
      expect(refusal(url, PRIVATE), url).toBe('must name a host, not an IPv6 address');
    }
    expect(refusal('http://[::1]:9000', PRIVATE)).toBe('must name a host, not an IPv6 address');
  });

  it('names no localhost nor .localhost name, except on a private-network stack', () => {
    expect(refusal('https://localhost:3000')).toBe('must name a host on the internet, not localhost');
    expect(refusal('https://api.localhost')).toBe('must name a host on the internet, not api.localhost');
    expect(refusal('https://LOCALHOST.')).toMatch(/not localhost\.$/);
    expect(accepted('http://localhost:3000', PRIVATE)).toBe('localhost:3000');
    expect(accepted('http://vendor.localhost:3000', PRIVATE)).toBe('vendor.localhost:3000');
    // localhost is no suffix of other names.
    expect(accepted('https://notlocalhost.com')).toBe('notlocalhost.com');
    expect(accepted('https://localhost.vendor.com')).toBe('localhost.vendor.com');
  });

  it("names none of the deployment's own hosts, at any port, private networks or not", () => {
    const own: HostRuleOptions = {
      allowPrivateNetworks: false,
      ownHosts: ['platform.example.com', 'idp.io'],
    };
    for (const url of [
      'https://platform.example.com',
      'https://platform.example.com:8443/x',
      'https://PLATFORM.example.com./',
      'https://idp.io:9999',
    ]) {
      expect(refusal(url, own), url).toMatch(
        /^must not name the platform's own host (platform\.example\.com|idp\.io)$/,
      );
    }
    expect(refusal('http://localhost:3000', { allowPrivateNetworks: true, ownHosts: ['localhost'] })).toBe(
      "must not name the platform's own host localhost",
    );
    // A name below an own host, or above it, is another host.
    expect(accepted('https://api.platform.example.com', own)).toBe('api.platform.example.com');
    expect(accepted('https://example.com', own)).toBe('example.com');
  });

  it('is refused when the name cannot be spelled as a host string', () => {
    expect(refusal('https://api.vendor.com./v1')).toMatch(/^host api\.vendor\.com\. cannot be approved: /);
    expect(refusal('https://my_host.vendor.com')).toMatch(/^host my_host\.vendor\.com cannot be approved: /);
    expect(refusal(`https://${'a'.repeat(64)}.com`)).toMatch(/cannot be approved/);
  });
});

describe('hostCovers', () => {
  it('covers the same name at the same port', () => {
    expect(hostCovers('api.vendor.com', 'api.vendor.com')).toBe(true);
    expect(hostCovers('api.vendor.com:8443', 'api.vendor.com:8443')).toBe(true);
    expect(hostCovers('api.vendor.com', 'api.vendor.com:8443')).toBe(false);
    expect(hostCovers('api.vendor.com:8443', 'api.vendor.com')).toBe(false);
    expect(hostCovers('api.vendor.com', 'www.vendor.com')).toBe(false);
  });

  it('lets a wildcard cover the names below it, at any depth, at its own port only', () => {
    expect(hostCovers('*.vendor.com', 'api.vendor.com')).toBe(true);
    expect(hostCovers('*.vendor.com', 'a.b.vendor.com')).toBe(true);
    expect(hostCovers('*.vendor.com', 'vendor.com')).toBe(false);
    expect(hostCovers('*.vendor.com', 'evilvendor.com')).toBe(false);
    expect(hostCovers('*.vendor.com', 'api.vendor.com:8443')).toBe(false);
    expect(hostCovers('*.vendor.com:8443', 'api.vendor.com:8443')).toBe(true);
    expect(hostCovers('*.vendor.com:8443', 'api.vendor.com')).toBe(false);
  });

  it('covers nothing with or for a string that is no host string', () => {
    expect(hostCovers('api.vendor.com:443', 'api.vendor.com')).toBe(false);
    expect(hostCovers('api.vendor.com', '*.vendor.com')).toBe(false);
  });
});

describe('installHosts', () => {
  it("is the manifest's hosts plus the exact host of each config URL", () => {
    const result = installHosts(
      manifest(['auth.vendor.com'], ['/baseUrl', '/webhook/url']),
      { baseUrl: 'https://api.vendor.com/v1', webhook: { url: 'https://files.other.com:8443/in' } },
      PUBLIC,
    );
    expect(result).toEqual({
      ok: true,
      hosts: ['auth.vendor.com', 'api.vendor.com', 'files.other.com:8443'],
    });
  });

  it('adds nothing for a null or absent value, or a config that is no object', () => {
    const m = manifest(['auth.vendor.com'], ['/baseUrl', '/webhook/url']);
    expect(installHosts(m, { baseUrl: null }, PUBLIC)).toEqual({ ok: true, hosts: ['auth.vendor.com'] });
    expect(installHosts(m, {}, PUBLIC)).toEqual({ ok: true, hosts: ['auth.vendor.com'] });
    expect(installHosts(m, { webhook: 'x' }, PUBLIC)).toEqual({ ok: true, hosts: ['auth.vendor.com'] });
    expect(installHosts(m, null, PUBLIC)).toEqual({ ok: true, hosts: ['auth.vendor.com'] });
  });

  it('adds nothing a manifest host already covers, hostname and port alike', () => {
    const m = manifest(['api.vendor.com', '*.cdn.com:8443'], ['/a', '/b', '/c', '/d']);
    const config = {
      a: 'https://api.vendor.com/v2',
      b: 'https://img.cdn.com:8443/x',
      c: 'https://img.cdn.com/x',
      d: 'https://api.vendor.com:8443',
    };
    expect(installHosts(m, config, PUBLIC)).toEqual({
      ok: true,
      hosts: ['api.vendor.com', '*.cdn.com:8443', 'img.cdn.com', 'api.vendor.com:8443'],
    });
  });

  it('adds a host two URLs give only once', () => {
    const m = manifest([], ['/a', '/b']);
    const config = { a: 'https://api.vendor.com/v1', b: 'https://API.vendor.com:443/v2' };
    expect(installHosts(m, config, PUBLIC)).toEqual({ ok: true, hosts: ['api.vendor.com'] });
  });

  it('refuses a breaking URL at its pointer, each breaking URL once', () => {
    const m = manifest([], ['/baseUrl', '/nested/0/url', '/ok', '/a~1b']);
    const config = {
      baseUrl: 'http://api.vendor.com',
      nested: [{ url: 'https://u:p@api.vendor.com' }],
      ok: 'https://fine.vendor.com',
      'a/b': 'https://api.vendor.com:25',
    };
    expect(installHosts(m, config, PUBLIC)).toEqual({
      ok: false,
      issues: [
        {
          path: '/baseUrl',
          message: 'URL must use https (http only on a private-network development stack)',
        },
        { path: '/nested/0/url', message: 'URL must not carry a user name or password' },
        { path: '/a~1b', message: 'URL port 25 is one browsers refuse to fetch from' },
      ],
    });
  });

  it('checks a URL even when a manifest host covers it', () => {
    const options: HostRuleOptions = { allowPrivateNetworks: false, ownHosts: ['hooks.vendor.com'] };
    const result = installHosts(manifest(['*.vendor.com']), { baseUrl: 'https://hooks.vendor.com' }, options);
    expect(result).toEqual({
      ok: false,
      issues: [{ path: '/baseUrl', message: "URL must not name the platform's own host hooks.vendor.com" }],
    });
  });

  it(`takes at most ${MAX_INSTALL_HOSTS} hosts: the 21st is refused at its pointer`, () => {
    const nineteen = Array.from({ length: 19 }, (_, i) => `h${i}.vendor.com`);
    const m = manifest(nineteen, ['/a', '/b', '/c']);
    const twenty = installHosts(m, { a: 'https://one.more.com' }, PUBLIC);
    expect(twenty.ok && twenty.hosts.length).toBe(20);
    expect(installHosts(m, { a: 'https://one.more.com', b: 'https://h3.vendor.com' }, PUBLIC)).toMatchObject({
      ok: true,
    });
    expect(
      installHosts(
        m,
        { a: 'https://one.more.com', b: 'https://two.more.com', c: 'https://one.more.com' },
        PUBLIC,
      ),
    ).toEqual({
      ok: false,
      issues: [
        { path: '/b', message: 'host two.more.com would be one too many: an install calls at most 20 hosts' },
      ],
    });
  });

  it('relaxes for a private-network stack: http, localhost and IPv4, never IPv6', () => {
    const m = manifest([], ['/a', '/b', '/c']);
    const config = { a: 'http://127.0.0.1:9000/v1', b: 'http://localhost:4000', c: 'http://[::1]:9000' };
    expect(installHosts(m, { a: config.a, b: config.b }, PRIVATE)).toEqual({
      ok: true,
      hosts: ['127.0.0.1:9000', 'localhost:4000'],
    });
    expect(installHosts(m, config, PRIVATE)).toEqual({
      ok: false,
      issues: [{ path: '/c', message: 'URL must name a host, not an IPv6 address' }],
    });
    expect(installHosts(m, config, PUBLIC)).toMatchObject({
      ok: false,
      issues: [{ path: '/a' }, { path: '/b' }, { path: '/c' }],
    });
  });
});

describe('addedHosts and removedHosts', () => {
  it('name the hosts one list has and the other lacks, each once, in order', () => {
    const before = ['a.com', 'b.com', 'c.com:8443'];
    const after = ['b.com', 'd.com', 'c.com', 'd.com'];
    expect(addedHosts(before, after)).toEqual(['d.com', 'c.com']);
    expect(removedHosts(before, after)).toEqual(['a.com', 'c.com:8443']);
    expect(addedHosts([], [])).toEqual([]);
    expect(addedHosts(before, before)).toEqual([]);
    expect(removedHosts(before, [])).toEqual(before);
  });
});
