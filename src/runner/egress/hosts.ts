// Whether a URL names a host an install may call (its approved hosts, docs/installs.md): https only,
// no credentials in the URL, an approved host at its own port. A private-network (development) stack
// also takes http and any port of an approved hostname. Pure: the addresses behind a name are judged
// after resolving it (addresses.ts), never here.
import { parseIPv4 } from '../../net/addresses.ts';
import { isLocalhostName } from '../../net/names.ts';

export { isLocalhostName };

/** One approved host string: `api.vendor.com`, `api.vendor.com:8443`, `*.vendor.com`, `127.0.0.1:9000`. */
export interface ApprovedHost {
  hostname: string;
  /** `*.vendor.com`: any name below vendor.com (at any depth), never vendor.com itself. */
  wildcard: boolean;
  /** null: the default port of the URL's scheme. */
  port: number | null;
}

export type TargetDecision =
  | { ok: true; url: URL; hostname: string; port: number }
  | { ok: false; reason: string };

const LABELS = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

export function defaultPort(protocol: string): number {
  return protocol === 'http:' ? 80 : 443;
}

/** Parses one approved host string; null for a string no URL can match (it then approves nothing). */
export function parseApprovedHost(text: string): ApprovedHost | null {
  let rest = text.trim().toLowerCase();
  let port: number | null = null;
  const match = /^(.*):([0-9]{1,5})$/.exec(rest);
  if (match) {
    port = Number(match[2]);
    if (port < 1 || port > 65535) return null;
    rest = match[1] ?? '';
  }
  const wildcard = rest.startsWith('*.');
  if (wildcard) rest = rest.slice(2);
  if (!LABELS.test(rest)) return null;
  // A wildcard over address digits (`*.0.0.1`) would approve addresses, not names.
  if (wildcard && /^[0-9.]+$/.test(rest)) return null;
  return { hostname: rest, wildcard, port };
}

function nameMatches(approved: ApprovedHost, hostname: string): boolean {
  if (!approved.wildcard) return hostname === approved.hostname;
  return hostname.endsWith(`.${approved.hostname}`) && parseIPv4(hostname) === null;
}

/**
 * Decides whether `target` may be requested by an install with these approved hosts. The answer's URL
 * has no fragment (a fragment is never sent).
 */
export function checkTarget(
  target: string | URL,
  approvedHosts: readonly string[],
  allowPrivateNetworks: boolean,
): TargetDecision {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, reason: 'url is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivateNetworks)) {
    return {
      ok: false,
      reason:
        url.protocol === 'http:'
          ? 'url must use https (http is allowed only with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true, for development)'
          : 'url must use https',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'url must not carry a user name or password' };
  }
  const hostname = url.hostname;
  // Host strings cannot name an IPv6 address, and a private-network stack takes IPv4 only, IPv6 never.
  if (hostname.startsWith('[')) return { ok: false, reason: 'IPv6 address literals are never reached' };
  if (!allowPrivateNetworks && isLocalhostName(hostname)) {
    return { ok: false, reason: `host ${hostname} is local` };
  }
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);

  let nameApproved = false;
  for (const text of approvedHosts) {
    const approved = parseApprovedHost(text);
    if (!approved || !nameMatches(approved, hostname)) continue;
    nameApproved = true;
    if (allowPrivateNetworks || (approved.port ?? defaultPort(url.protocol)) === port) {
      url.hash = '';
      return { ok: true, url, hostname, port };
    }
  }
  return {
    ok: false,
    reason: nameApproved
      ? `port ${port} of host ${hostname} is not approved for this install`
      : `host ${hostname} is not approved for this install`,
  };
}
