// Host strings: where an app may send requests, each at its port (a manifest's hosts, an install's). Pure.

export const MAX_HOST_STRING_LENGTH = 259;

export interface HostString {
  /** The name or address without the port; a wildcard keeps its leading "*.". */
  host: string;
  /** null when none is written: the scheme's own (443 for https, 80 for http). */
  port: number | null;
  wildcard: boolean;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const OCTET = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const PORT = /^[1-9]\d{0,4}$/;

/**
 * A lower-case domain name (letters, digits and hyphens in labels of 1 to 63 characters, 253 at most).
 * A name whose last label is all digits is an IPv4 address or nothing: 1.2.3.999 is no domain.
 */
function domainProblem(name: string): string | null {
  if (name.length > 253) return 'a domain name has at most 253 characters';
  const labels = name.split('.');
  if (!labels.every((label) => LABEL.test(label))) {
    return 'expected a lower-case domain name, localhost or a dotted IPv4 address';
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return 'not a dotted IPv4 address';
  return null;
}

const isIpv4 = (text: string) => {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => OCTET.test(part));
};

/** Reads a host string, or says what is wrong with it. */
export function parseHostString(value: string): HostString | { problem: string } {
  if (value.length === 0) return { problem: 'a host string is not empty' };
  if (value.length > MAX_HOST_STRING_LENGTH) {
    return { problem: `a host string has at most ${MAX_HOST_STRING_LENGTH} characters` };
  }
  const colon = value.lastIndexOf(':');
  const host = colon === -1 ? value : value.slice(0, colon);
  let port: number | null = null;
  if (colon !== -1) {
    const written = value.slice(colon + 1);
    port = PORT.test(written) ? Number(written) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) return { problem: 'the port is an integer from 1 to 65535' };
    // The scheme's own port is implied; writing it would make two spellings of one host.
    if (port === 443 || port === 80) return { problem: `port ${port} is not written out` };
  }
  if (host === 'localhost' || isIpv4(host)) return { host, port, wildcard: false };
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host;
  // A wildcard over a top-level domain (*.com) would approve a whole registry.
  if (wildcard && !name.includes('.')) return { problem: 'a wildcard covers a domain of two labels or more' };
  const problem = domainProblem(name);
  return problem ? { problem } : { host, port, wildcard };
}

export function hostStringProblem(value: string): string | null {
  const parsed = parseHostString(value);
  return 'problem' in parsed ? parsed.problem : null;
}
