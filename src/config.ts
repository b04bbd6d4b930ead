// Every deployment setting, parsed and validated once. Pure: reads the env object it is given.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConsoleOidcSettings, readConsoleOidc } from './config/console-oidc.ts';
import { type ProvenanceSettings, readProvenance } from './config/provenance.ts';
import {
  ConfigError,
  type Env,
  HTTP_SCHEMES,
  POSTGRES_SCHEMES,
  Reader,
  type TrustProxy,
} from './config/reader.ts';
import { localRunnerUrl, readRunnerUrl } from './config/runner-urls.ts';
import { START_LIMIT_MS } from './config/start-limit.ts';
import { readStorage, type StorageSettings } from './config/storage.ts';
import { readTelemetry, type TelemetrySettings } from './config/telemetry.ts';
import { TRAIL_HOLD_MS } from './config/trail-hold.ts';

export {
  ConfigError,
  type ConsoleOidcSettings,
  localRunnerUrl,
  type ProvenanceSettings,
  type StorageSettings,
  type TelemetrySettings,
  type TrustProxy,
};

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
export interface Config {
  /** embedded: no DATABASE_URL, so the platform starts PostgreSQL itself and generates its keys. */
  mode: 'embedded' | 'production';
  nodeEnv: string;
  logLevel: string;
  /**
   * LOG_FORMAT: pretty (readable lines) or json; null (unset): pretty when standard output is a terminal,
   * json otherwise. Checked here; createLogger (logging.ts) reads it from the process's environment.
   */
  logFormat: 'pretty' | 'json' | null;
  dataDir: string;
  databaseUrl: string | null;
  /** EMBEDDED_POSTGRES_PORT; null (unset): the port DATA_DIR recorded, 54329, or any free one. */
  embeddedPostgresPort: number | null;
  host: string;
  port: number;
  internalHost: string;
  internalPort: number;
  runnerPort: number;
  /**
   * RUNNER_IN_PROCESS=true (development: one process to debug): `--role all` runs the runner in the
   * platform's process, as before. By default it runs in a child process (src/cli/runner-child.ts).
   */
  runnerInProcess: boolean;
  /**
   * Null when APP_RUNNER_URL is `off`: the deployment has no runner and /apps answers 503 apps_unavailable.
   * Several runners' base URLs are joined by commas (docs/operations.md "Production topology").
   */
  runnerUrl: string | null;
  apiInternalUrl: string;
  workerHealthPort: number | null;
  /**
   * WORKER_EXECUTOR_ID: the worker's stable executor id (DBOS recovers on launch the runs its id left
   * unfinished); by default `<host>-worker`, one worker per host.
   */
  workerExecutorId: string;
  /** WORKER_QUEUE_SAFETY_POLL_MS: a queue's poll at least this often beside enqueue notices; 0: every 20 ms. */
  workerQueueSafetyPollMs: number;
  runnerCacheDir: string;
  runnerConcurrency: number;
  runnerTenantConcurrency: number;
  runnerWarmPlugins: number;
  /**
   * APP_RUNNER_START_LIMIT_MS: how long a module's start code (and, at inspection, its manifest export)
   * may run; the spec's 5 s at most, lower only (tests that reach it wait less).
   */
  runnerStartLimitMs: number;
  runnerWarmIdleMs: number;
  runnerKeepAliveMs: number;
  allowPrivateNetworks: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE_NETWORKS (development only; read by the api and the worker): outbound webhook
   * endpoints may use http and localhost, private and other non-public addresses (docs/outbound-webhooks.md).
   */
  webhookAllowPrivateNetworks: boolean;
  /**
   * A worker's webhook sender (docs/outbound-webhooks.md "Fair sending"): WEBHOOK_SENDER_WINDOW sends in
   * flight at most (default 64, 1 to 1024), of them WEBHOOK_SENDER_TENANT_SHARE to one tenant (default 16)
   * and WEBHOOK_SENDER_ENDPOINT_SHARE to one endpoint (default 8), each 1 to 1024 (a share above the
   * window is the window).
   */
  webhookSender: { window: number; perTenant: number; perEndpoint: number };
  /**
   * WEBHOOK_TRAIL_HOLD_MS: how young an audit row the trail reader leaves for a later pass; the spec's ten
   * seconds at most, lower only (tests that wait on a delivery wait less).
   */
  webhookTrailHoldMs: number;
  appRunnerToken: string | null;
  appCallTokenSecret: string | null;
  secretStoreKey: Buffer | null;
  auth: AuthSettings;
  /** The console's OpenID Connect sign-in (CONSOLE_OIDC_CLIENT_ID, CONSOLE_OIDC_SCOPE); null when off. */
  consoleOidc: ConsoleOidcSettings | null;
  rateLimitPerMinute: number;
  /** The api's HTTP listeners: how long a request may take to arrive, idle sockets, refused tokens. */
  http: HttpSettings;
  /**
   * The deployment's install circuit defaults (docs/calls.md "The circuit"):
   * APP_CIRCUIT_FAILURE_THRESHOLD (outages in a row that open it, 1 to 100, default 5) and
   * APP_CIRCUIT_OPEN_SECONDS (how long it stays open, 5 to 3600, default 30). An install's own settings
   * override them.
   */
  circuit: { failureThreshold: number; openSeconds: number };
  /**
   * The budget of each install's cached values (docs/cached-values.md): APP_CACHE_ENTRIES values (default 16,
   * 1 to 64) and APP_CACHE_TOTAL_BYTES (default 64 KiB, 8 KiB to 512 KiB); the oldest written leave first.
   */
  cacheBudget: { entries: number; totalBytes: number };
  retention: {
    appCallbackDays: number;
    submissionEventDays: number;
    intervalMinutes: number;
    /** RETENTION_ENGINE_HOURS: ended workflows of ended runs kept in the engine's tables (docs/retention.md). */
    engineHours: number;
  };
  appReviewDefault: 'off' | 'required';
  appSignatures: 'off' | 'optional' | 'required';
  /** The trust policy, the trusted roots and the TUF cache (docs/provenance.md "Settings"). */
  provenance: ProvenanceSettings;
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
   * STORAGE_PUBLIC_ENDPOINT. An install's config URL may name none of them, at any port (docs/installs.md).
   */
  ownHosts: string[];
  /** Traces, metrics and their settings (OTEL_*, METRICS_PORT, TRACE_URL_TEMPLATE; docs/telemetry.md). */
  telemetry: TelemetrySettings;
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
    logFormat:
      read.text('LOG_FORMAT') === null ? null : read.oneOf('LOG_FORMAT', ['pretty', 'json'] as const, 'json'),
    dataDir,
    databaseUrl,
    embeddedPostgresPort:
      read.text('EMBEDDED_POSTGRES_PORT') === null ? null : read.int('EMBEDDED_POSTGRES_PORT', 0, 1, 65535),
    host: read.text('HOST') ?? (mode === 'embedded' ? '127.0.0.1' : '0.0.0.0'),
    port,
    internalHost: read.text('API_INTERNAL_HOST') ?? '127.0.0.1',
    internalPort,
    runnerPort,
    runnerInProcess: read.oneOf('RUNNER_IN_PROCESS', ['true', 'false'], 'false') === 'true',
    runnerUrl: readRunnerUrl(read, runnerPort),
    apiInternalUrl: read.url('API_INTERNAL_URL', HTTP_SCHEMES) ?? `http://127.0.0.1:${internalPort}`,
    workerHealthPort: read.optionalPort('WORKER_HEALTH_PORT'),
    workerExecutorId: read.text('WORKER_EXECUTOR_ID') ?? `${os.hostname()}-worker`,
    workerQueueSafetyPollMs: read.int('WORKER_QUEUE_SAFETY_POLL_MS', 2_000, 0, 3_600_000),
    runnerCacheDir: path.resolve(
      cwd,
      read.text('APP_RUNNER_CACHE_DIR') ?? path.join(dataDir, 'module-cache'),
    ),
    runnerConcurrency: read.int('APP_RUNNER_CONCURRENCY', 8, 1, 256),
    runnerTenantConcurrency: read.int('APP_RUNNER_TENANT_CONCURRENCY', 4, 1, 256),
    runnerWarmPlugins: read.int('APP_RUNNER_WARM_PLUGINS', 8, 0, 256),
    runnerStartLimitMs: read.int('APP_RUNNER_START_LIMIT_MS', START_LIMIT_MS, 100, START_LIMIT_MS),
    runnerWarmIdleMs: read.int('APP_RUNNER_WARM_IDLE_MS', 60_000, 1_000, 86_400_000),
    runnerKeepAliveMs: read.int('APP_RUNNER_KEEPALIVE_MS', 4_000, 0, 600_000),
    allowPrivateNetworks:
      read.oneOf('APP_RUNNER_ALLOW_PRIVATE_NETWORKS', ['true', 'false'], 'false') === 'true',
    webhookAllowPrivateNetworks:
      read.oneOf('WEBHOOK_ALLOW_PRIVATE_NETWORKS', ['true', 'false'], 'false') === 'true',
    webhookSender: {
      window: read.int('WEBHOOK_SENDER_WINDOW', 64, 1, 1024),
      perTenant: read.int('WEBHOOK_SENDER_TENANT_SHARE', 16, 1, 1024),
      perEndpoint: read.int('WEBHOOK_SENDER_ENDPOINT_SHARE', 8, 1, 1024),
    },
    webhookTrailHoldMs: read.int('WEBHOOK_TRAIL_HOLD_MS', TRAIL_HOLD_MS, 0, TRAIL_HOLD_MS),
    appRunnerToken: read.text('APP_RUNNER_TOKEN'),
    appCallTokenSecret: read.text('APP_CALL_TOKEN_SECRET'),
    secretStoreKey: read.key('SECRET_STORE_KEY'),
    auth: {
      jwksUrl: read.url('AUTH_JWKS_URL', HTTP_SCHEMES),
      issuer: read.text('AUTH_ISSUER'),
      audience: read.text('AUTH_AUDIENCE'),
    },
    consoleOidc: readConsoleOidc(read),
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
      engineHours: read.int('RETENTION_ENGINE_HOURS', 168, 0, 87600),
    },
    appReviewDefault: read.oneOf('APP_REVIEW_DEFAULT', ['off', 'required'], 'off'),
    appSignatures: read.oneOf('APP_SIGNATURES', ['off', 'optional', 'required'], 'off'),
    provenance: readProvenance(read, dataDir, cwd),
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
    telemetry: readTelemetry(read),
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

/**
 * Settings a role cannot run without in production. Embedded mode generates them into DATA_DIR instead.
 * SECRET_STORE_KEY is deliberately absent: without it secret routes answer 503 secret_store_unavailable.
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
