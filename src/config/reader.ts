// Reading settings one at a time from an env object: each reader checks its value's shape and, when it
// is wrong, notes a problem naming the setting (never echoing a secret value) and answers a fallback, so
// every problem of a deployment's settings is reported at once (ConfigError).
import net from 'node:net';

export type Env = Record<string, string | undefined>;

/** TRUST_PROXY as Fastify takes it: off, on, a hop count, or the proxies' addresses and ranges. */
export type TrustProxy = boolean | number | string[];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
}

export const POSTGRES_SCHEMES = ['postgres', 'postgresql'] as const;
export const HTTP_SCHEMES = ['http', 'https'] as const;

export class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  text(name: string): string | null {
    const value = this.env[name]?.trim();
    return value ? value : null;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.text(name);
    if (raw === null) return fallback;
    // Decimal digits only: Number() alone would also take "0x50", "1e3" or "0b1" for a port or a day count.
    const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  optionalPort(name: string): number | null {
    return this.text(name) === null ? null : this.int(name, 0, 0, 65535);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.text(name);
    if (raw === null) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name}: expected one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  /**
   * An absolute URL with one of the given schemes. The scheme is checked because `new URL` alone takes
   * anything shaped `word:rest`, so `DATABASE_URL=db.internal:5432/platform` would pass as a URL.
   */
  url(name: string, schemes: readonly string[]): string | null {
    const raw = this.text(name);
    if (raw === null) return null;
    let protocol: string | null = null;
    try {
      protocol = new URL(raw).protocol.slice(0, -1);
    } catch {}
    if (protocol === null || !schemes.includes(protocol)) {
      this.problems.push(`${name}: expected a ${schemes.map((s) => `${s}://`).join(' or ')} URL`);
      return null;
    }
    return raw;
  }

  /** A comma list of http(s) origins (no path, query, fragment or credentials), each spelled as URL.origin. */
  origins(name: string): string[] {
    const raw = this.text(name);
    if (raw === null) return [];
    const origins: string[] = [];
    for (const item of raw.split(',').map((part) => part.trim())) {
      if (item === '') continue;
      let url: URL | null = null;
      try {
        url = new URL(item);
      } catch {}
      const isOrigin =
        url !== null &&
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        url.username === '' &&
        url.password === '' &&
        url.pathname === '/' &&
        url.search === '' &&
        url.hash === '' &&
        !/[?#]$/.test(item);
      if (!isOrigin || url === null) {
        this.problems.push(`${name}: expected a comma list of http:// or https:// origins, got "${item}"`);
        continue;
      }
      if (!origins.includes(url.origin)) origins.push(url.origin);
    }
    return origins;
  }

  /**
   * TRUST_PROXY: `false` (default), `true`, a hop count (1 to 10), or a comma list of proxy addresses and
   * CIDR ranges (and proxy-addr's names loopback, linklocal, uniquelocal).
   */
  trustProxy(name: string): TrustProxy {
    const raw = this.text(name);
    if (raw === null || raw === 'false') return false;
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return this.int(name, 0, 1, 10);
    const items = raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    const bad = items.filter((item) => !isProxyAddress(item));
    if (items.length === 0 || bad.length > 0) {
      this.problems.push(
        `${name}: expected true, false, a hop count from 1 to 10, or a comma list of proxy addresses or CIDR ranges, got "${bad[0] ?? raw}"`,
      );
      return false;
    }
    return items;
  }

  /** A 32-byte key written as 64 hex characters or as base64. */
  key(name: string): Buffer | null {
    const raw = this.text(name);
    if (raw === null) return null;
    const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (bytes.length !== 32) {
      this.problems.push(`${name}: expected 32 bytes as 64 hex characters or base64`);
      return null;
    }
    return bytes;
  }
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address, a CIDR range of one, or one of proxy-addr's named ranges. */
function isProxyAddress(item: string): boolean {
  if (PROXY_NAMES.includes(item)) return true;
  const [address = '', prefix, ...rest] = item.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  return bits >= 0 && bits <= (family === 4 ? 32 : 128);
}
