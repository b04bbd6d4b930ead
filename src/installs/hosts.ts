// The hosts an install may call (at most 20; docs/installs.md): the manifest's hosts
// plus the exact host of each URL the config holds at a hostsFromConfig pointer. Pure: what the names
// resolve to is the runner's business at connection (src/net/addresses.ts), never judged here.

import { type HostString, type Manifest, parseHostString } from '../module/index.ts';
import { isIpLiteral, isLocalhostName } from '../runner/index.ts';
import { type ConfigIssue, valueAt } from './config-pointers.ts';

export const MAX_INSTALL_HOSTS = 20;

/**
 * The Fetch standard's bad ports (https://fetch.spec.whatwg.org/#port-blocking): ports browsers refuse to
 * fetch from, because the services on them (mail, shells, name servers, ...) can be confused by a request.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export interface HostRuleOptions {
  /** APP_RUNNER_ALLOW_PRIVATE_NETWORKS (development only): http, localhost and IPv4 pass; IPv6 never. */
  allowPrivateNetworks: boolean;
  /** The deployment's own hostnames (Config.ownHosts), lower-case: refused at any port. */
  ownHosts: readonly string[];
}

export type ConfigUrlHost = { ok: true; host: string } | { ok: false; message: string };

export type InstallHostsResult = { ok: true; hosts: string[] } | { ok: false; issues: ConfigIssue[] };

/** What of a manifest the host rules read. */
export type HostsManifest = Pick<Manifest, 'hosts' | 'hostsFromConfig'>;

const withoutTrailingDot = (name: string) => (name.endsWith('.') ? name.slice(0, -1) : name);

/**
 * The host string of one config URL (`name` or `name:port`, the scheme's default port never written), or
 * why the platform would not call it. Messages name the host at most, never the URL (it may carry
 * credentials).
 */
export function configUrlHost(value: unknown, options: HostRuleOptions): ConfigUrlHost {
  const refuse = (message: string): ConfigUrlHost => ({ ok: false, message });
  if (typeof value !== 'string') return refuse('expected a URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('is not a valid absolute URL');
  }
  const { allowPrivateNetworks } = options;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivateNetworks)) {
    return refuse(
      url.protocol === 'http:'
        ? 'must use https (http only on a private-network development stack)'
        : 'must use https',
    );
  }
  if (url.username !== '' || url.password !== '') return refuse('must not carry a user name or password');

  const hostname = url.hostname;
  // A host string cannot spell an IPv6 address, and a private-network stack takes IPv4 only.
  if (hostname.startsWith('[')) return refuse('must name a host, not an IPv6 address');
  if (hostname.includes('*')) return refuse('must name one host, not a wildcard');
  if (isIpLiteral(hostname) && !allowPrivateNetworks) return refuse('must name a host, not an IP address');
  if (isLocalhostName(hostname) && !allowPrivateNetworks) {
    return refuse(`must name a host on the internet, not ${hostname}`);
  }
  if (options.ownHosts.includes(withoutTrailingDot(hostname))) {
    return refuse(`must not name the platform's own host ${withoutTrailingDot(hostname)}`);
  }

  // URL drops the scheme's default port: '' here means 443 for https (80 for http).
  const port = url.port === '' ? null : Number(url.port);
  if (port !== null) {
    if (port < 1) return refuse(`port ${port} is not a port a request can go to`);
    const other = url.protocol === 'https:' ? 80 : 443;
    if (port === other) {
      return refuse(`port ${port} is the default port of ${url.protocol === 'https:' ? 'http' : 'https'}`);
    }
    if (BAD_PORTS.has(port)) return refuse(`port ${port} is one browsers refuse to fetch from`);
  }

  const host = port === null ? hostname : `${hostname}:${port}`;
  const parsed = parseHostString(host);
  if ('problem' in parsed) return refuse(`host ${hostname} cannot be approved: ${parsed.problem}`);
  return { ok: true, host };
}

/** Whether manifest host `approved` already lets an install call `host`: same name and port, or a wildcard
 * above the name at the same port. */
export function hostCovers(approved: string, host: string): boolean {
  const a = parseHostString(approved);
  const h = parseHostString(host);
  if ('problem' in a || 'problem' in h || h.wildcard) return false;
  return a.port === h.port && coversName(a, h.host);
}

function coversName(approved: HostString, name: string): boolean {
  if (!approved.wildcard) return approved.host === name;
  // "*.vendor.com" keeps its "*": what follows it is the suffix a name below vendor.com ends with.
  return name.endsWith(approved.host.slice(1));
}

/**
 * The install's approved hosts under `config`, or the issues that refuse the save, each at the
 * hostsFromConfig pointer whose URL breaks a rule. A null or absent value adds no host.
 */
export function installHosts(
  manifest: HostsManifest,
  config: unknown,
  options: HostRuleOptions,
): InstallHostsResult {
  const hosts = [...manifest.hosts];
  const issues: ConfigIssue[] = [];
  for (const pointer of manifest.hostsFromConfig) {
    const value = valueAt(config, pointer);
    if (value === undefined || value === null) continue;
    const found = configUrlHost(value, options);
    if (!found.ok) {
      issues.push({ path: pointer, message: `URL ${found.message}` });
      continue;
    }
    if (hosts.includes(found.host) || manifest.hosts.some((approved) => hostCovers(approved, found.host))) {
      continue;
    }
    if (hosts.length >= MAX_INSTALL_HOSTS) {
      issues.push({
        path: pointer,
        message: `host ${found.host} would be one too many: an install calls at most ${MAX_INSTALL_HOSTS} hosts`,
      });
      continue;
    }
    hosts.push(found.host);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, hosts };
}

/** Hosts in `after` that `before` lacks, in the order of `after`, each once. */
export function addedHosts(before: readonly string[], after: readonly string[]): string[] {
  return [...new Set(after)].filter((host) => !before.includes(host));
}

/** Hosts in `before` that `after` lacks, in the order of `before`, each once. */
export function removedHosts(before: readonly string[], after: readonly string[]): string[] {
  return addedHosts(after, before);
}
