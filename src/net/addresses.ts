// Which IP addresses an app may reach: only public unicast. Everything a runner could
// use to reach itself, its network or its cloud's metadata service is refused: loopback, private,
// link-local, shared (CGNAT), and the IPv6 forms that carry an IPv4 address a gateway would translate
// (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo). Pure: text in, class out.

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'nat64'
  | '6to4'
  | 'teredo'
  | 'invalid';

/** Classes never reached, even by a private-network (development) stack: no real server lives there. */
const NEVER_REACHED: ReadonlySet<AddressClass> = new Set([
  'unspecified',
  'multicast',
  'broadcast',
  'invalid',
]);

/** A dotted-quad IPv4 address as a 32-bit unsigned number; null unless canonical (no leading zeros). */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** An IPv6 address as eight 16-bit groups; accepts `::`, an IPv4 tail and a zone (`%eth0`, dropped). */
export function parseIPv6(text: string): number[] | null {
  let rest = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = rest.indexOf('%');
  if (zone !== -1) rest = rest.slice(0, zone);
  if (rest === '' || !/^[0-9a-fA-F:.]+$/.test(rest)) return null;

  let tail: number[] = [];
  const lastColon = rest.lastIndexOf(':');
  if (rest.includes('.')) {
    const v4 = parseIPv4(rest.slice(lastColon + 1));
    if (v4 === null || lastColon === -1) return null;
    tail = [Math.floor(v4 / 0x10000), v4 % 0x10000];
    rest = rest.slice(0, lastColon + 1);
    // "::1.2.3.4" leaves "::", "64:ff9b::1.2.3.4" leaves "64:ff9b::", "::ffff:1.2.3.4" leaves "::ffff:".
    if (rest.endsWith(':') && !rest.endsWith('::')) rest = rest.slice(0, -1);
  }

  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = groupsOf(halves[0] ?? '');
  if (head === null) return null;
  if (halves.length === 1) {
    const groups = [...head, ...tail];
    return groups.length === 8 ? groups : null;
  }
  const after = groupsOf(halves[1] ?? '');
  if (after === null) return null;
  const missing = 8 - head.length - after.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...after, ...tail];
}

/** Whether `value` lies in `base`/`bits` (IPv4, 32-bit numbers). */
function inV4(value: number, base: string, bits: number): boolean {
  const start = parseIPv4(base) as number;
  const size = 2 ** (32 - bits);
  return value >= start && value < start + size;
}

const V4_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ['0.0.0.0', 8, 'reserved'], // "this network": 0.0.0.0 itself is caught as unspecified first
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4'], // the deprecated 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255, caught as broadcast first
];

export function classifyIPv4(value: number): AddressClass {
  if (value === 0) return 'unspecified';
  if (value === 0xffffffff) return 'broadcast';
  for (const [base, bits, kind] of V4_RANGES) if (inV4(value, base, bits)) return kind;
  return 'public';
}

/** Whether the first `bits` bits of `groups` equal those of `prefix` (IPv6 groups). */
function inV6(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 16 < bits; i++) {
    const take = Math.min(16, bits - i * 16);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function embeddedV4(groups: readonly number[]): number {
  return (groups[6] ?? 0) * 0x10000 + (groups[7] ?? 0);
}

export function classifyIPv6(groups: readonly number[]): AddressClass {
  const first = groups[0] ?? 0;
  if (groups.every((g) => g === 0)) return 'unspecified';
  if (inV6(groups, [0, 0, 0, 0, 0, 0, 0, 1], 128)) return 'loopback';
  // ::ffff:a.b.c.d reaches a.b.c.d over IPv4: judge the IPv4 address.
  if (inV6(groups, [0, 0, 0, 0, 0, 0xffff], 96)) return classifyIPv4(embeddedV4(groups));
  // ::a.b.c.d (deprecated IPv4-compatible) and ::ffff:0:a.b.c.d (SIIT): a refused IPv4 keeps its class,
  // any other is still no address a vendor is reached at.
  if (inV6(groups, [0, 0, 0, 0, 0, 0], 96) || inV6(groups, [0, 0, 0, 0, 0xffff, 0], 96)) {
    const inner = classifyIPv4(embeddedV4(groups));
    return inner === 'public' ? 'reserved' : inner;
  }
  if (inV6(groups, [0x64, 0xff9b], 96) || inV6(groups, [0x64, 0xff9b, 1], 48)) return 'nat64';
  if (inV6(groups, [0xff00], 8)) return 'multicast';
  if (inV6(groups, [0xfe80], 10)) return 'link-local';
  if (inV6(groups, [0xfc00], 7)) return 'private'; // unique local
  if (inV6(groups, [0xfec0], 10)) return 'private'; // deprecated site-local
  // Only 2000::/3 is global unicast; everything else (100::/64 discard, 5f00::/16 SRv6, …) is reserved.
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  if (inV6(groups, [0x2001, 0], 32)) return 'teredo';
  if (inV6(groups, [0x2001, 0x0db8], 32)) return 'documentation';
  if (inV6(groups, [0x2001, 0x0002, 0], 48)) return 'benchmarking';
  if (inV6(groups, [0x2001, 0], 23)) return 'reserved'; // IETF protocol assignments (ORCHID, AMT, …)
  if (inV6(groups, [0x2002], 16)) return '6to4';
  if (inV6(groups, [0x3fff], 20)) return 'documentation';
  return 'public';
}

/** The class of an IPv4 or IPv6 address text; `invalid` when it is neither. */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIPv4(address);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  if (v6 !== null) return classifyIPv6(v6);
  return 'invalid';
}

/** Whether text is an IP address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(text: string): boolean {
  return parseIPv4(text) !== null || parseIPv6(text) !== null;
}

/**
 * Why an app may not reach this address, or null when it may. A private-network (development) stack
 * reaches every class except those no server can be at.
 */
export function addressRefusal(address: string, allowPrivateNetworks: boolean): AddressClass | null {
  const kind = classifyAddress(address);
  if (kind === 'public') return null;
  if (allowPrivateNetworks && !NEVER_REACHED.has(kind)) return null;
  return kind;
}
