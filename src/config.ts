// Every deployment setting, parsed and validated once. Pure: reads the env object it is given.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or installed package) root: the release catalogue is built under it. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type Role = 'api' | 'worker' | 'runner' | 'all';

export interface AuthSettings {
  jwksUrl: string | null;
  issuer: string | null;
  audience: string | null;
}

/**
 * Where the api keeps module bytes (under their sha256): the filesystem under DATA_DIR/modules by
 * default, an S3-compatible bucket when STORAGE_ENDPOINT is set, or none (MODULE_STORAGE=off: /apps
 * answers 503 apps_unavailable).
 */
export type StorageSettings =
  | { kind: 'filesystem'; dir: string }
  | {
      kind: 's3';
      endpoint: string;
      bucket: string;
      region: string;
      /** Both null: the AWS SDK's default credential chain (AWS_* variables, shared files, instance roles). */
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
      /** Prepended to `<sha256>.wasm`: empty, or ends with `/`. */
      prefix: string;
    }
  | { kind: 'off' };

export interface Config {
  /** embedded: no DATABASE_URL, so the platform starts PostgreSQL itself and generates its keys. */
  mode: 'embedded' | 'production';
  nodeEnv: string;
  logLevel: string;
  dataDir: string;
  databaseUrl: string | null;
  /** EMBEDDED_POSTGRES_PORT; null (unset): the port DATA_DIR recorded, 54329, or any free one. */
  embeddedPostgresPort: number | null;
  host: string;
  port: number;
  internalHost: string;
  internalPort: number;
  runnerPort: number;
  /** Null when APP_RUNNER_URL is `off`: the deployment has no runner and /apps answers 503 apps_unavailable. */
  runnerUrl: string | null;
  apiInternalUrl: string;
  workerHealthPort: number | null;
  /**
   * WORKER_EXECUTOR_ID: the worker's stable executor id (DBOS recovers on launch the runs its id left
   * unfinished); by default `<host>-worker`, one worker per host.
   */
  workerExecutorId: string;
  runnerCacheDir: string;
  runnerConcurrency: number;
  runnerTenantConcurrency: number;
  runnerWarmPlugins: number;
  runnerWarmIdleMs: number;
  runnerKeepAliveMs: number;
  allowPrivateNetworks: boolean;
  appRunnerToken: string | null;
  appCallTokenSecret: string | null;
  secretStoreKey: Buffer | null;
  auth: AuthSettings;
  rateLimitPerMinute: number;
  /** The api's HTTP listeners: how long a request may take to arrive, idle sockets, refused tokens. */
  http: HttpSettings;
  /**
   * The deployment's install circuit defaults (spec part 1 §4.8 "Circuit counting", part 2 §8.2):
   * APP_CIRCUIT_FAILURE_THRESHOLD (outages in a row that open it, 1 to 100, default 5) and
   * APP_CIRCUIT_OPEN_SECONDS (how long it stays open, 5 to 3600, default 30). An install's own settings
   * override them.
   */
  circuit: { failureThreshold: number; openSeconds: number };
  /**
   * The budget of each install's cached values (spec part 2 §8.1): APP_CACHE_ENTRIES values (default 16,
   * 1 to 64) and APP_CACHE_TOTAL_BYTES (default 64 KiB, 8 KiB to 512 KiB); the oldest written leave first.
   */
  cacheBudget: { entries: number; totalBytes: number };
  retention: { appCallbackDays: number; submissionEventDays: number; intervalMinutes: number };
  appReviewDefault: 'off' | 'required';
  appSignatures: 'off' | 'optional' | 'required';
  /** The release catalogue's index, written by the apps build (RELEASE_INDEX). */
  releaseIndex: string;
  /** Module storage (MODULE_STORAGE, STORAGE_*). */
  storage: StorageSettings;
  /** WEBHOOK_PUBLIC_URL: the public base URL vendors send webhooks to; null when unset. */
  webhookPublicUrl: string | null;
  /** COLLECTION_FLOW_URL: the deployment's collection flow; null when unset. */
  collectionFlowUrl: string | null;
  /** SIGNUP_CONSOLE_URL: the deployment's sign-up console; null when unset. */
  signupConsoleUrl: string | null;
  /** STORAGE_CORS_ORIGINS: origins (scheme, host, port) browsers may reach the object store from. */
  storageCorsOrigins: string[];
  /** STORAGE_PUBLIC_ENDPOINT: the object store as browsers reach it; null when unset. */
  storagePublicEndpoint: string | null;
  /**
   * The deployment's own hostnames, lower-case, each once: those of WEBHOOK_PUBLIC_URL, AUTH_ISSUER (when a
   * URL), COLLECTION_FLOW_URL, SIGNUP_CONSOLE_URL, STORAGE_CORS_ORIGINS, STORAGE_ENDPOINT and
   * STORAGE_PUBLIC_ENDPOINT. An install's config URL may name none of them, at any port (spec part 1 §4.8).
   */
  ownHosts: string[];
}

export interface HttpSettings {
  /** HTTP_REQUEST_TIMEOUT_MS: headers and body must have arrived within it, else 408 and the socket closes. */
  requestTimeoutMs: number;
  /** HTTP_CONNECTION_TIMEOUT_MS: a socket silent this long is closed (longer than any route takes to answer). */
  connectionTimeoutMs: number;
  /** API_AUTH_FAILURE_LIMIT_PER_MINUTE: refused tokens per client address per minute; 0 off. */
  authFailuresPerMinute: number;
  /**
   * TRUST_PROXY: which proxies' X-Forwarded-For names the client address (Fastify's trustProxy): false
   * (none: the connection's peer is the client), true (every hop), a hop count, or proxy addresses/CIDRs.
   */
  trustProxy: TrustProxy;
}

export type TrustProxy = boolean | number | string[];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
}

type Env = Record<string, string | undefined>;

const POSTGRES_SCHEMES = ['postgres', 'postgresql'] as const;
const HTTP_SCHEMES = ['http', 'https'] as const;

class Reader {
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

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const read = new Reader(env);
  const databaseUrl = read.url('DATABASE_URL', POSTGRES_SCHEMES);
  const mode = databaseUrl ? 'production' : 'embedded';
  const port = read.int('PORT', 3000, 0, 65535);
  const internalPort = read.int('API_INTERNAL_PORT', 3001, 0, 65535);
  const runnerPort = read.int('RUNNER_PORT', 3002, 0, 65535);
  const dataDir = path.resolve(cwd, read.text('DATA_DIR') ?? '.data');
  const config: Config = {
    mode,
    nodeEnv: read.text('NODE_ENV') ?? 'development',
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    dataDir,
    databaseUrl,
    embeddedPostgresPort:
      read.text('EMBEDDED_POSTGRES_PORT') === null ? null : read.int('EMBEDDED_POSTGRES_PORT', 0, 1, 65535),
    host: read.text('HOST') ?? (mode === 'embedded' ? '127.0.0.1' : '0.0.0.0'),
    port,
    internalHost: read.text('API_INTERNAL_HOST') ?? '127.0.0.1',
    internalPort,
    runnerPort,
    runnerUrl:
      read.text('APP_RUNNER_URL') === 'off'
        ? null
        : (read.url('APP_RUNNER_URL', HTTP_SCHEMES) ?? `http://127.0.0.1:${runnerPort}`),
    apiInternalUrl: read.url('API_INTERNAL_URL', HTTP_SCHEMES) ?? `http://127.0.0.1:${internalPort}`,
    workerHealthPort: read.optionalPort('WORKER_HEALTH_PORT'),
    workerExecutorId: read.text('WORKER_EXECUTOR_ID') ?? `${os.hostname()}-worker`,
    runnerCacheDir: path.resolve(
      cwd,
      read.text('APP_RUNNER_CACHE_DIR') ?? path.join(dataDir, 'module-cache'),
    ),
    runnerConcurrency: read.int('APP_RUNNER_CONCURRENCY', 8, 1, 256),
    runnerTenantConcurrency: read.int('APP_RUNNER_TENANT_CONCURRENCY', 4, 1, 256),
    runnerWarmPlugins: read.int('APP_RUNNER_WARM_PLUGINS', 8, 0, 256),
    runnerWarmIdleMs: read.int('APP_RUNNER_WARM_IDLE_MS', 60_000, 1_000, 86_400_000),
    runnerKeepAliveMs: read.int('APP_RUNNER_KEEPALIVE_MS', 4_000, 0, 600_000),
    allowPrivateNetworks:
      read.oneOf('APP_RUNNER_ALLOW_PRIVATE_NETWORKS', ['true', 'false'], 'false') === 'true',
    appRunnerToken: read.text('APP_RUNNER_TOKEN'),
    appCallTokenSecret: read.text('APP_CALL_TOKEN_SECRET'),
    secretStoreKey: read.key('SECRET_STORE_KEY'),
    auth: {
      jwksUrl: read.url('AUTH_JWKS_URL', HTTP_SCHEMES),
      issuer: read.text('AUTH_ISSUER'),
      audience: read.text('AUTH_AUDIENCE'),
    },
    rateLimitPerMinute: read.int('API_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    http: {
      requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
      connectionTimeoutMs: read.int('HTTP_CONNECTION_TIMEOUT_MS', 180_000, 100, 3_600_000),
      authFailuresPerMinute: read.int('API_AUTH_FAILURE_LIMIT_PER_MINUTE', 60, 0, 1_000_000),
      trustProxy: read.trustProxy('TRUST_PROXY'),
    },
    circuit: {
      failureThreshold: read.int('APP_CIRCUIT_FAILURE_THRESHOLD', 5, 1, 100),
      openSeconds: read.int('APP_CIRCUIT_OPEN_SECONDS', 30, 5, 3600),
    },
    cacheBudget: {
      entries: read.int('APP_CACHE_ENTRIES', 16, 1, 64),
      totalBytes: read.int('APP_CACHE_TOTAL_BYTES', 64 * 1024, 8 * 1024, 512 * 1024),
    },
    retention: {
      appCallbackDays: read.int('RETENTION_APP_CALLBACK_DAYS', 90, 0, 36500),
      submissionEventDays: read.int('RETENTION_SUBMISSION_EVENT_DAYS', 90, 0, 36500),
      intervalMinutes: read.int('RETENTION_INTERVAL_MINUTES', 60, 1, 10080),
    },
    appReviewDefault: read.oneOf('APP_REVIEW_DEFAULT', ['off', 'required'], 'off'),
    appSignatures: read.oneOf('APP_SIGNATURES', ['off', 'optional', 'required'], 'off'),
    releaseIndex: path.resolve(
      cwd,
      read.text('RELEASE_INDEX') ?? path.join(PACKAGE_ROOT, 'apps', 'build', 'release.json'),
    ),
    storage: readStorage(read, dataDir),
    webhookPublicUrl: read.url('WEBHOOK_PUBLIC_URL', HTTP_SCHEMES),
    collectionFlowUrl: read.url('COLLECTION_FLOW_URL', HTTP_SCHEMES),
    signupConsoleUrl: read.url('SIGNUP_CONSOLE_URL', HTTP_SCHEMES),
    storageCorsOrigins: read.origins('STORAGE_CORS_ORIGINS'),
    storagePublicEndpoint: read.url('STORAGE_PUBLIC_ENDPOINT', HTTP_SCHEMES),
    ownHosts: [],
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  config.ownHosts = ownHostsOf([
    config.webhookPublicUrl,
    config.auth.issuer,
    config.collectionFlowUrl,
    config.signupConsoleUrl,
    ...config.storageCorsOrigins,
    read.text('STORAGE_ENDPOINT'),
    config.storagePublicEndpoint,
  ]);
  return config;
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

/**
 * The lower-case hostnames of the deployment's own URLs, each once, without a trailing dot. A value that
 * is no http(s) URL (an issuer need not be one) names no host.
 */
function ownHostsOf(urls: readonly (string | null)[]): string[] {
  const hosts: string[] = [];
  for (const text of urls) {
    if (text === null) continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    if (host !== '' && !hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

const STORAGE_KINDS = ['filesystem', 's3', 'off'] as const;
/** The S3 settings that mean nothing without STORAGE_ENDPOINT. */
const S3_ONLY = [
  'STORAGE_BUCKET',
  'STORAGE_REGION',
  'STORAGE_ACCESS_KEY_ID',
  'STORAGE_SECRET_ACCESS_KEY',
  'STORAGE_FORCE_PATH_STYLE',
  'STORAGE_PREFIX',
] as const;
/** Bucket names as S3 and its look-alikes take them (legacy names included); no scheme, slash or space. */
const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/;
const REGION = /^[A-Za-z0-9_-]{1,64}$/;
/** Path segments of S3's safe key characters; `.` and `..` segments are refused. */
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/**
 * MODULE_STORAGE (filesystem, s3 or off) and the STORAGE_* settings. Unset, the kind follows
 * STORAGE_ENDPOINT: s3 when it is set, else filesystem. An S3 setting given without STORAGE_ENDPOINT
 * is refused (modules would silently stay on the local disk), unless MODULE_STORAGE says so explicitly.
 * Secret values are never echoed.
 */
function readStorage(read: Reader, dataDir: string): StorageSettings {
  const chosen = read.text('MODULE_STORAGE');
  if (chosen !== null && !(STORAGE_KINDS as readonly string[]).includes(chosen)) {
    read.problems.push(`MODULE_STORAGE: expected one of ${STORAGE_KINDS.join(', ')}, got "${chosen}"`);
  }
  const endpointGiven = read.text('STORAGE_ENDPOINT') !== null;
  const endpoint = read.url('STORAGE_ENDPOINT', HTTP_SCHEMES);
  if (endpoint !== null) {
    const url = new URL(endpoint);
    if (url.username || url.password) {
      read.problems.push(
        'STORAGE_ENDPOINT: must not carry credentials; use STORAGE_ACCESS_KEY_ID and STORAGE_SECRET_ACCESS_KEY',
      );
    }
    if (url.search || url.hash) read.problems.push('STORAGE_ENDPOINT: must have no query or fragment');
  }
  const bucket = read.text('STORAGE_BUCKET');
  if (bucket !== null && !BUCKET.test(bucket)) {
    read.problems.push(
      `STORAGE_BUCKET: expected a bucket name (3 to 255 letters, digits, dots, hyphens, underscores), got "${bucket}"`,
    );
  }
  const region = read.text('STORAGE_REGION') ?? 'us-east-1';
  if (!REGION.test(region)) {
    read.problems.push(`STORAGE_REGION: expected a region name such as us-east-1, got "${region}"`);
  }
  const accessKeyId = read.text('STORAGE_ACCESS_KEY_ID');
  const secretAccessKey = read.text('STORAGE_SECRET_ACCESS_KEY');
  if (accessKeyId !== null && secretAccessKey === null) {
    read.problems.push(
      'STORAGE_SECRET_ACCESS_KEY: required with STORAGE_ACCESS_KEY_ID (set both or neither)',
    );
  }
  if (secretAccessKey !== null && accessKeyId === null) {
    read.problems.push(
      'STORAGE_ACCESS_KEY_ID: required with STORAGE_SECRET_ACCESS_KEY (set both or neither)',
    );
  }
  const forcePathStyle = read.oneOf('STORAGE_FORCE_PATH_STYLE', ['true', 'false'], 'true') === 'true';
  const prefix = readPrefix(read);

  const kind = (STORAGE_KINDS as readonly string[]).includes(chosen ?? '')
    ? (chosen as (typeof STORAGE_KINDS)[number])
    : endpointGiven
      ? 's3'
      : 'filesystem';
  if (kind === 'filesystem' && chosen === null) {
    for (const name of S3_ONLY) {
      if (read.text(name) !== null) {
        read.problems.push(
          `${name}: set without STORAGE_ENDPOINT (modules would stay on the filesystem); set STORAGE_ENDPOINT or unset ${name}`,
        );
      }
    }
  }
  if (kind === 'off') return { kind: 'off' };
  if (kind === 'filesystem') return { kind: 'filesystem', dir: path.join(dataDir, 'modules') };
  if (!endpointGiven) read.problems.push('MODULE_STORAGE: s3 needs STORAGE_ENDPOINT');
  else if (bucket === null) read.problems.push('STORAGE_BUCKET: required when STORAGE_ENDPOINT is set');
  return {
    kind: 's3',
    endpoint: endpoint ?? '',
    bucket: bucket ?? '',
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle,
    prefix,
  };
}

/** STORAGE_PREFIX: `modules/` by default; slashes at either end are normalised, and `/` means none. */
function readPrefix(read: Reader): string {
  const raw = read.text('STORAGE_PREFIX');
  if (raw === null) return 'modules/';
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (trimmed.length > 512 || segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..')) {
    read.problems.push(
      `STORAGE_PREFIX: expected segments of letters, digits and !-_.*'() separated by /, got "${raw}"`,
    );
    return 'modules/';
  }
  return `${trimmed}/`;
}

/**
 * Settings a role cannot run without in production. Embedded mode generates them into DATA_DIR instead.
 * SECRET_STORE_KEY is deliberately absent: without it the spec asks for 503 secret_store_unavailable.
 */
export function missingProductionSettings(config: Config, role: Role): string[] {
  if (config.mode === 'embedded') return [];
  const missing: string[] = [];
  const api = role === 'api' || role === 'all';
  // Every role speaks to the runner (or is it); only the runner never holds the call-token secret.
  if (!config.appRunnerToken) missing.push('APP_RUNNER_TOKEN');
  if (role !== 'runner' && !config.appCallTokenSecret) missing.push('APP_CALL_TOKEN_SECRET');
  if (api) {
    if (!config.auth.jwksUrl) missing.push('AUTH_JWKS_URL');
    if (!config.auth.issuer) missing.push('AUTH_ISSUER');
    if (!config.auth.audience) missing.push('AUTH_AUDIENCE');
  }
  return missing;
}
