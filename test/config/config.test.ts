import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Config,
  ConfigError,
  loadConfig,
  missingProductionSettings,
  type Role,
} from '../../src/config.ts';

const CWD = '/srv/platform';
const DATABASE_URL = 'postgres://platform:secret@db.internal:5432/platform';

/** loadConfig's refusal, so a test can look at every problem it names. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, CWD);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  const config = loadConfig({}, CWD);

  it('runs embedded without DATABASE_URL', () => {
    expect(config.mode).toBe('embedded');
    expect(config.databaseUrl).toBeNull();
    expect(config.embeddedPostgresPort).toBeNull(); // unset: DATA_DIR's recorded port, 54329, or any free one
  });

  it('listens on the documented ports, the internal listener and the api on loopback', () => {
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.internalPort).toBe(3001);
    expect(config.internalHost).toBe('127.0.0.1');
    expect(config.runnerPort).toBe(3002);
    expect(config.workerHealthPort).toBeNull();
    expect(config.workerExecutorId).toBe(`${os.hostname()}-worker`);
    expect(config.runnerUrl).toBe('http://127.0.0.1:3002');
    expect(config.apiInternalUrl).toBe('http://127.0.0.1:3001');
  });

  it('keeps its data in ./.data resolved against the working directory', () => {
    expect(config.dataDir).toBe(path.join(CWD, '.data'));
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(config.runnerCacheDir).toBe(path.join(CWD, '.data', 'module-cache'));
  });

  it('keeps modules on the filesystem under DATA_DIR/modules', () => {
    expect(config.storage).toEqual({ kind: 'filesystem', dir: path.join(CWD, '.data', 'modules') });
  });

  it('uses the documented limits, retention and log settings', () => {
    expect(config.rateLimitPerMinute).toBe(600);
    expect(config.allowPrivateNetworks).toBe(false);
    expect(config.webhookAllowPrivateNetworks).toBe(false);
    expect(config.webhookSender).toEqual({ window: 64, perTenant: 16, perEndpoint: 8 });
    expect(config.retention).toEqual({
      appCallbackDays: 90,
      submissionEventDays: 90,
      intervalMinutes: 60,
      engineHours: 168,
    });
    expect(config.runnerConcurrency).toBe(8);
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBeNull();
    expect(config.nodeEnv).toBe('development');
    expect(config.appReviewDefault).toBe('off');
    expect(config.circuit).toEqual({ failureThreshold: 5, openSeconds: 30 });
    expect(config.cacheBudget).toEqual({ entries: 16, totalBytes: 65536 });
    expect(config.http).toEqual({
      requestTimeoutMs: 120_000,
      connectionTimeoutMs: 180_000,
      authFailuresPerMinute: 60,
      trustProxy: false,
    });
  });

  it('has none of the deployment URLs and so no own hosts', () => {
    expect(config.webhookPublicUrl).toBeNull();
    expect(config.collectionFlowUrl).toBeNull();
    expect(config.signupConsoleUrl).toBeNull();
    expect(config.storagePublicEndpoint).toBeNull();
    expect(config.storageCorsOrigins).toEqual([]);
    expect(config.ownHosts).toEqual([]);
  });

  it('leaves secrets and auth unset (embedded mode generates or does not need them)', () => {
    expect(config.appRunnerToken).toBeNull();
    expect(config.appCallTokenSecret).toBeNull();
    expect(config.secretStoreKey).toBeNull();
    expect(config.auth).toEqual({ jwksUrl: null, issuer: null, audience: null });
  });

  it('reads process.env and the process working directory when given nothing', () => {
    const saved = {
      DATA_DIR: process.env.DATA_DIR,
      DATABASE_URL: process.env.DATABASE_URL,
      PORT: process.env.PORT,
    };
    try {
      delete process.env.DATA_DIR;
      delete process.env.DATABASE_URL;
      process.env.PORT = '4321';
      const fromProcess = loadConfig();
      expect(fromProcess.port).toBe(4321);
      expect(fromProcess.dataDir).toBe(path.join(process.cwd(), '.data'));
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});

describe('loadConfig with settings', () => {
  it('runs in production with DATABASE_URL, listening on every interface by default', () => {
    const config = loadConfig({ DATABASE_URL }, CWD);
    expect(config.mode).toBe('production');
    expect(config.databaseUrl).toBe(DATABASE_URL);
    expect(config.host).toBe('0.0.0.0');
    // The internal listener stays on loopback unless set otherwise, even in production.
    expect(config.internalHost).toBe('127.0.0.1');
  });

  it('takes every setting it is given', () => {
    const key = 'ab'.repeat(32);
    const config = loadConfig(
      {
        DATABASE_URL,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        DATA_DIR: '/var/lib/platform',
        HOST: '10.0.0.5',
        PORT: '8080',
        API_INTERNAL_HOST: '0.0.0.0',
        API_INTERNAL_PORT: '8081',
        RUNNER_PORT: '8082',
        WORKER_HEALTH_PORT: '8083',
        WORKER_EXECUTOR_ID: 'worker-eu-1',
        EMBEDDED_POSTGRES_PORT: '6543',
        APP_RUNNER_URL: 'http://runner.internal:8082',
        API_INTERNAL_URL: 'http://api.internal:8081',
        APP_RUNNER_CACHE_DIR: 'cache',
        APP_RUNNER_CONCURRENCY: '16',
        APP_RUNNER_TENANT_CONCURRENCY: '3',
        APP_RUNNER_WARM_PLUGINS: '0',
        APP_RUNNER_WARM_IDLE_MS: '5000',
        APP_RUNNER_KEEPALIVE_MS: '0',
        APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_SENDER_WINDOW: '128',
        WEBHOOK_SENDER_TENANT_SHARE: '32',
        WEBHOOK_SENDER_ENDPOINT_SHARE: '4',
        WEBHOOK_TRAIL_HOLD_MS: '2500',
        APP_RUNNER_TOKEN: 'runner-token',
        APP_CALL_TOKEN_SECRET: 'call-secret',
        SECRET_STORE_KEY: key,
        AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
        AUTH_ISSUER: 'https://idp.example.com/',
        AUTH_AUDIENCE: 'apps-platform',
        API_RATE_LIMIT_PER_MINUTE: '0',
        HTTP_REQUEST_TIMEOUT_MS: '30000',
        HTTP_CONNECTION_TIMEOUT_MS: '240000',
        API_AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
        APP_CIRCUIT_FAILURE_THRESHOLD: '7',
        APP_CIRCUIT_OPEN_SECONDS: '120',
        APP_CACHE_ENTRIES: '64',
        APP_CACHE_TOTAL_BYTES: '524288',
        RETENTION_APP_CALLBACK_DAYS: '30',
        RETENTION_SUBMISSION_EVENT_DAYS: '0',
        RETENTION_INTERVAL_MINUTES: '15',
        RETENTION_ENGINE_HOURS: '24',
        APP_REVIEW_DEFAULT: 'required',
        APP_SIGNATURES: 'optional',
        RELEASE_INDEX: 'release.json',
        STORAGE_ENDPOINT: 'https://minio.internal:9000',
        STORAGE_BUCKET: 'platform-modules',
        STORAGE_REGION: 'eu-central-1',
        STORAGE_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        STORAGE_SECRET_ACCESS_KEY: 'storage-secret',
        STORAGE_FORCE_PATH_STYLE: 'false',
        STORAGE_PREFIX: 'apps/modules/',
        STORAGE_DOCUMENTS_PREFIX: 'apps/documents',
        STORAGE_PUBLIC_ENDPOINT: 'https://files.example.com',
        STORAGE_CORS_ORIGINS: 'https://console.example.com, https://signup.example.com:8443',
        WEBHOOK_PUBLIC_URL: 'https://hooks.example.com/apps',
        COLLECTION_FLOW_URL: 'https://collect.example.com',
        SIGNUP_CONSOLE_URL: 'https://signup.example.com/start',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318',
        METRICS_PORT: '9464',
        OTEL_SERVICE_NAME: 'kyc-apps',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_PG_STATEMENTS: 'true',
        TRACE_URL_TEMPLATE: 'https://traces.example.com/trace/{traceId}',
      },
      CWD,
    );
    expect(config).toEqual<Config>({
      mode: 'production',
      nodeEnv: 'production',
      logLevel: 'warn',
      logFormat: 'json',
      dataDir: '/var/lib/platform',
      databaseUrl: DATABASE_URL,
      embeddedPostgresPort: 6543,
      host: '10.0.0.5',
      port: 8080,
      internalHost: '0.0.0.0',
      internalPort: 8081,
      runnerPort: 8082,
      runnerInProcess: false,
      runnerUrl: 'http://runner.internal:8082',
      apiInternalUrl: 'http://api.internal:8081',
      workerHealthPort: 8083,
      workerExecutorId: 'worker-eu-1',
      workerQueueSafetyPollMs: 2_000,
      runnerCacheDir: path.join(CWD, 'cache'),
      runnerConcurrency: 16,
      runnerTenantConcurrency: 3,
      runnerWarmPlugins: 0,
      runnerStartLimitMs: 5_000,
      runnerWarmIdleMs: 5000,
      runnerKeepAliveMs: 0,
      allowPrivateNetworks: true,
      webhookAllowPrivateNetworks: true,
      webhookSender: { window: 128, perTenant: 32, perEndpoint: 4 },
      webhookTrailHoldMs: 2500,
      appRunnerToken: 'runner-token',
      appCallTokenSecret: 'call-secret',
      secretStoreKey: Buffer.from(key, 'hex'),
      auth: {
        jwksUrl: 'https://idp.example.com/.well-known/jwks.json',
        issuer: 'https://idp.example.com/',
        audience: 'apps-platform',
      },
      consoleOidc: null,
      rateLimitPerMinute: 0,
      http: {
        requestTimeoutMs: 30_000,
        connectionTimeoutMs: 240_000,
        authFailuresPerMinute: 0,
        trustProxy: false,
      },
      circuit: { failureThreshold: 7, openSeconds: 120 },
      cacheBudget: { entries: 64, totalBytes: 524288 },
      retention: { appCallbackDays: 30, submissionEventDays: 0, intervalMinutes: 15, engineHours: 24 },
      appReviewDefault: 'required',
      appSignatures: 'optional',
      provenance: { signers: [], trustedRoots: null, tufCache: '/var/lib/platform/tuf-cache' },
      releaseIndex: path.join(CWD, 'release.json'),
      storage: {
        kind: 's3',
        endpoint: 'https://minio.internal:9000',
        bucket: 'platform-modules',
        region: 'eu-central-1',
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'storage-secret',
        forcePathStyle: false,
        prefix: 'apps/modules/',
        documentsPrefix: 'apps/documents/',
      },
      webhookPublicUrl: 'https://hooks.example.com/apps',
      collectionFlowUrl: 'https://collect.example.com',
      signupConsoleUrl: 'https://signup.example.com/start',
      storageCorsOrigins: ['https://console.example.com', 'https://signup.example.com:8443'],
      storagePublicEndpoint: 'https://files.example.com',
      ownHosts: [
        'hooks.example.com',
        'idp.example.com',
        'collect.example.com',
        'signup.example.com',
        'console.example.com',
        'minio.internal',
        'files.example.com',
      ],
      telemetry: {
        enabled: true,
        otlpEndpoint: 'http://collector.internal:4318',
        metricsPort: 9464,
        serviceName: 'kyc-apps',
        sampler: 'parentbased_traceidratio',
        samplerRatio: 0.25,
        pgStatements: true,
        traceUrlTemplate: 'https://traces.example.com/trace/{traceId}',
      },
    });
  });

  it('derives the runner and internal urls from their ports when not given', () => {
    const config = loadConfig({ RUNNER_PORT: '4002', API_INTERNAL_PORT: '4001' }, CWD);
    expect(config.runnerUrl).toBe('http://127.0.0.1:4002');
    expect(config.apiInternalUrl).toBe('http://127.0.0.1:4001');
  });

  it('resolves a relative DATA_DIR against the working directory and keeps the cache under it', () => {
    const config = loadConfig({ DATA_DIR: 'var/data' }, CWD);
    expect(config.dataDir).toBe(path.join(CWD, 'var/data'));
    expect(config.runnerCacheDir).toBe(path.join(CWD, 'var/data', 'module-cache'));
  });

  it('accepts port 0 (any free port) for the listeners and WORKER_HEALTH_PORT', () => {
    const config = loadConfig(
      { PORT: '0', API_INTERNAL_PORT: '0', RUNNER_PORT: '0', WORKER_HEALTH_PORT: '0' },
      CWD,
    );
    expect([config.port, config.internalPort, config.runnerPort, config.workerHealthPort]).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it('treats blank values as unset and trims the others', () => {
    const config = loadConfig(
      { DATABASE_URL: '   ', PORT: '', DATA_DIR: ' ', APP_RUNNER_TOKEN: '  t  ' },
      CWD,
    );
    expect(config.mode).toBe('embedded');
    expect(config.port).toBe(3000);
    expect(config.dataDir).toBe(path.join(CWD, '.data'));
    expect(config.appRunnerToken).toBe('t');
  });

  it('takes SECRET_STORE_KEY as 64 hex characters or as base64 of 32 bytes', () => {
    const bytes = Buffer.alloc(32, 7);
    expect(loadConfig({ SECRET_STORE_KEY: bytes.toString('hex') }, CWD).secretStoreKey).toEqual(bytes);
    expect(loadConfig({ SECRET_STORE_KEY: bytes.toString('base64') }, CWD).secretStoreKey).toEqual(bytes);
  });

  it('accepts the limits at both ends of their ranges', () => {
    const low = loadConfig(
      { API_RATE_LIMIT_PER_MINUTE: '0', RETENTION_INTERVAL_MINUTES: '1', PORT: '0' },
      CWD,
    );
    expect([low.rateLimitPerMinute, low.retention.intervalMinutes, low.port]).toEqual([0, 1, 0]);
    // 0 keeps the engine's ended workflows forever; 87600 hours is ten years.
    const engine = (hours: string) =>
      loadConfig({ RETENTION_ENGINE_HOURS: hours }, CWD).retention.engineHours;
    expect([engine('0'), engine('1'), engine('87600')]).toEqual([0, 1, 87600]);
    const high = loadConfig(
      { RETENTION_APP_CALLBACK_DAYS: '36500', APP_RUNNER_CONCURRENCY: '256', PORT: '65535' },
      CWD,
    );
    expect([high.retention.appCallbackDays, high.runnerConcurrency, high.port]).toEqual([36500, 256, 65535]);
  });

  it('lets APP_RUNNER_START_LIMIT_MS lower the 5 s start limit, never raise it', () => {
    expect(loadConfig({}, CWD).runnerStartLimitMs).toBe(5_000);
    expect(loadConfig({ APP_RUNNER_START_LIMIT_MS: '100' }, CWD).runnerStartLimitMs).toBe(100);
    expect(() => loadConfig({ APP_RUNNER_START_LIMIT_MS: '5001' }, CWD)).toThrow(/APP_RUNNER_START_LIMIT_MS/);
    expect(() => loadConfig({ APP_RUNNER_START_LIMIT_MS: '99' }, CWD)).toThrow(/APP_RUNNER_START_LIMIT_MS/);
  });

  it('lets WEBHOOK_TRAIL_HOLD_MS lower the ten-second trail hold, never raise it', () => {
    expect(loadConfig({}, CWD).webhookTrailHoldMs).toBe(10_000);
    expect(loadConfig({ WEBHOOK_TRAIL_HOLD_MS: '0' }, CWD).webhookTrailHoldMs).toBe(0);
    expect(() => loadConfig({ WEBHOOK_TRAIL_HOLD_MS: '10001' }, CWD)).toThrow(/WEBHOOK_TRAIL_HOLD_MS/);
    expect(() => loadConfig({ WEBHOOK_TRAIL_HOLD_MS: '-1' }, CWD)).toThrow(/WEBHOOK_TRAIL_HOLD_MS/);
  });

  it('takes the circuit defaults at both ends of their ranges', () => {
    const low = loadConfig({ APP_CIRCUIT_FAILURE_THRESHOLD: '1', APP_CIRCUIT_OPEN_SECONDS: '5' }, CWD);
    expect(low.circuit).toEqual({ failureThreshold: 1, openSeconds: 5 });
    const high = loadConfig({ APP_CIRCUIT_FAILURE_THRESHOLD: '100', APP_CIRCUIT_OPEN_SECONDS: '3600' }, CWD);
    expect(high.circuit).toEqual({ failureThreshold: 100, openSeconds: 3600 });
  });

  it('takes the HTTP timeouts and the refused-token limit at both ends of their ranges, nothing beyond', () => {
    const ends = (value: string) =>
      loadConfig(
        {
          HTTP_REQUEST_TIMEOUT_MS: value,
          HTTP_CONNECTION_TIMEOUT_MS: value,
          API_AUTH_FAILURE_LIMIT_PER_MINUTE: value === '100' ? '0' : '1000000',
        },
        CWD,
      ).http;
    expect(ends('100')).toEqual({
      requestTimeoutMs: 100,
      connectionTimeoutMs: 100,
      authFailuresPerMinute: 0,
      trustProxy: false,
    });
    expect(ends('3600000')).toEqual({
      requestTimeoutMs: 3_600_000,
      connectionTimeoutMs: 3_600_000,
      authFailuresPerMinute: 1_000_000,
      trustProxy: false,
    });
    for (const name of ['HTTP_REQUEST_TIMEOUT_MS', 'HTTP_CONNECTION_TIMEOUT_MS']) {
      expect(() => loadConfig({ [name]: '99' }, CWD)).toThrow(
        new RegExp(`${name}: expected an integer from 100`),
      );
      expect(() => loadConfig({ [name]: '0' }, CWD)).toThrow(ConfigError);
    }
    expect(() => loadConfig({ API_AUTH_FAILURE_LIMIT_PER_MINUTE: '-1' }, CWD)).toThrow(
      /API_AUTH_FAILURE_LIMIT_PER_MINUTE: expected an integer from 0/,
    );
  });

  it('takes TRUST_PROXY as false, true, a hop count or a list of proxy addresses and ranges', () => {
    const cases: [string, unknown][] = [
      ['false', false],
      ['true', true],
      ['1', 1],
      ['10', 10],
      ['10.0.0.1', ['10.0.0.1']],
      [' 10.0.0.0/8 , 127.0.0.1,::1 ', ['10.0.0.0/8', '127.0.0.1', '::1']],
      ['fd00::/8,loopback', ['fd00::/8', 'loopback']],
      ['0.0.0.0/0', ['0.0.0.0/0']],
    ];
    for (const [value, expected] of cases) {
      expect(loadConfig({ TRUST_PROXY: value }, CWD).http.trustProxy, value).toEqual(expected);
    }
  });

  it('refuses a TRUST_PROXY that names no proxy, naming the value at fault', () => {
    const cases: [string, string][] = [
      ['0', '"0"'],
      ['11', '"11"'],
      ['yes', '"yes"'],
      ['10.0.0.1,proxy.internal', '"proxy.internal"'],
      ['10.0.0.0/33', '"10.0.0.0/33"'],
      ['::1/129', '"::1/129"'],
      ['10.0.0.1/8/1', '"10.0.0.1/8/1"'],
      [',', '","'],
    ];
    for (const [value, named] of cases) {
      const error = (() => {
        try {
          loadConfig({ TRUST_PROXY: value }, CWD);
        } catch (thrown) {
          return thrown as ConfigError;
        }
        throw new Error(`TRUST_PROXY=${value} was taken`);
      })();
      expect(error.problems, value).toEqual([expect.stringMatching(/^TRUST_PROXY: expected /)]);
      expect(error.problems[0], value).toContain(named);
    }
  });

  it('takes the cache budget at both ends of its ranges', () => {
    const low = loadConfig({ APP_CACHE_ENTRIES: '1', APP_CACHE_TOTAL_BYTES: '8192' }, CWD);
    expect(low.cacheBudget).toEqual({ entries: 1, totalBytes: 8192 });
    const high = loadConfig({ APP_CACHE_ENTRIES: '64', APP_CACHE_TOTAL_BYTES: '524288' }, CWD);
    expect(high.cacheBudget).toEqual({ entries: 64, totalBytes: 524288 });
  });
});

describe('loadConfig refusals', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '3000abc'],
    ['PORT', '1e3'],
    ['PORT', '0x50'],
    ['API_INTERNAL_PORT', '65536'],
    ['RUNNER_PORT', 'runner'],
    ['APP_CACHE_ENTRIES', '65'],
    ['APP_CACHE_ENTRIES', '0'],
    ['APP_CACHE_TOTAL_BYTES', '8191'],
    ['APP_CACHE_TOTAL_BYTES', '524289'],
    ['WORKER_HEALTH_PORT', 'health'],
    ['EMBEDDED_POSTGRES_PORT', '0'],
    ['API_RATE_LIMIT_PER_MINUTE', '-5'],
    ['API_RATE_LIMIT_PER_MINUTE', 'lots'],
    ['APP_CIRCUIT_FAILURE_THRESHOLD', '0'],
    ['APP_CIRCUIT_FAILURE_THRESHOLD', '101'],
    ['APP_CIRCUIT_OPEN_SECONDS', '4'],
    ['APP_CIRCUIT_OPEN_SECONDS', '3601'],
    ['APP_CIRCUIT_OPEN_SECONDS', 'soon'],
    ['RETENTION_APP_CALLBACK_DAYS', '36501'],
    ['RETENTION_SUBMISSION_EVENT_DAYS', '-1'],
    ['RETENTION_INTERVAL_MINUTES', '0'],
    ['RETENTION_ENGINE_HOURS', '-1'],
    ['RETENTION_ENGINE_HOURS', '87601'],
    ['RETENTION_ENGINE_HOURS', '7d'],
    ['APP_RUNNER_CONCURRENCY', '0'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'colourful'],
    ['APP_REVIEW_DEFAULT', 'maybe'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', 'db.internal:5432/platform'],
    ['DATABASE_URL', 'https://db.internal/platform'],
    ['AUTH_JWKS_URL', 'jwks.json'],
    ['AUTH_JWKS_URL', 'ftp://idp.example.com/jwks.json'],
    ['APP_RUNNER_URL', 'runner:3002'],
    ['API_INTERNAL_URL', '//api'],
    ['SECRET_STORE_KEY', 'too-short'],
    ['SECRET_STORE_KEY', 'ab'.repeat(31)],
    ['WEBHOOK_PUBLIC_URL', 'hooks.example.com'],
    ['WEBHOOK_PUBLIC_URL', 'ftp://hooks.example.com'],
    ['COLLECTION_FLOW_URL', '/flow'],
    ['SIGNUP_CONSOLE_URL', 'signup'],
    ['STORAGE_PUBLIC_ENDPOINT', 's3://files'],
    ['STORAGE_CORS_ORIGINS', '*'],
    ['STORAGE_CORS_ORIGINS', 'console.example.com'],
    ['STORAGE_CORS_ORIGINS', 'https://console.example.com/app'],
    ['STORAGE_CORS_ORIGINS', 'https://console.example.com?x=1'],
    ['STORAGE_CORS_ORIGINS', 'https://user:pw@console.example.com'],
    ['STORAGE_CORS_ORIGINS', 'https://a.example.com,ftp://b.example.com'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(error.message).toContain(name);
  });

  it('names the range and the value refused for integers', () => {
    expect(refusal({ PORT: 'abc' }).problems).toEqual([
      'PORT: expected an integer from 0 to 65535, got "abc"',
    ]);
    expect(refusal({ RETENTION_ENGINE_HOURS: '87601' }).problems).toEqual([
      'RETENTION_ENGINE_HOURS: expected an integer from 0 to 87600, got "87601"',
    ]);
    expect(refusal({ LOG_LEVEL: 'loud' }).problems[0]).toContain(
      'fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('names every bad setting at once, not only the first', () => {
    const error = refusal({
      PORT: 'x',
      RUNNER_PORT: '99999',
      LOG_LEVEL: 'chatty',
      DATABASE_URL: 'nope',
      SECRET_STORE_KEY: 'short',
      RETENTION_APP_CALLBACK_DAYS: 'forever',
    });
    expect(error.problems.map((p) => p.split(':')[0]).sort()).toEqual(
      [
        'DATABASE_URL',
        'LOG_LEVEL',
        'PORT',
        'RETENTION_APP_CALLBACK_DAYS',
        'RUNNER_PORT',
        'SECRET_STORE_KEY',
      ].sort(),
    );
    for (const problem of error.problems) expect(error.message).toContain(problem);
  });

  it('never echoes a refused secret back', () => {
    const error = refusal({ SECRET_STORE_KEY: 'my-very-secret-but-wrong-key' });
    expect(error.message).not.toContain('my-very-secret-but-wrong-key');
  });
});

describe('module storage settings', () => {
  const S3 = { STORAGE_ENDPOINT: 'http://127.0.0.1:9000', STORAGE_BUCKET: 'modules' };
  const storage = (env: Record<string, string>) => loadConfig(env, CWD).storage;

  it('uses S3 when STORAGE_ENDPOINT is set: region us-east-1, path style, prefixes modules/ and documents/, the SDK’s credentials', () => {
    expect(storage(S3)).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'modules',
      region: 'us-east-1',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: true,
      prefix: 'modules/',
      documentsPrefix: 'documents/',
    });
  });

  it('takes both credentials, STORAGE_FORCE_PATH_STYLE and STORAGE_REGION', () => {
    expect(
      storage({
        ...S3,
        STORAGE_ACCESS_KEY_ID: ' AKID ',
        STORAGE_SECRET_ACCESS_KEY: 'secret',
        STORAGE_FORCE_PATH_STYLE: 'true',
        STORAGE_REGION: 'auto',
      }),
    ).toMatchObject({ accessKeyId: 'AKID', secretAccessKey: 'secret', forcePathStyle: true, region: 'auto' });
    expect(storage({ ...S3, STORAGE_FORCE_PATH_STYLE: 'false' })).toMatchObject({ forcePathStyle: false });
  });

  it.each([
    ['modules/', 'modules/'],
    ['modules', 'modules/'],
    ['/platform/wasm/', 'platform/wasm/'],
    ["a.b_c-d!e*f'g(h)", "a.b_c-d!e*f'g(h)/"],
    ['/', ''],
    ['///', ''],
  ])('takes STORAGE_PREFIX=%s as the key prefix %s', (value, prefix) => {
    expect(storage({ ...S3, STORAGE_PREFIX: value })).toMatchObject({ prefix });
    expect(storage({ ...S3, STORAGE_DOCUMENTS_PREFIX: value })).toMatchObject({ documentsPrefix: prefix });
  });

  it('has no module storage with MODULE_STORAGE=off, whatever else is set', () => {
    expect(storage({ MODULE_STORAGE: 'off' })).toEqual({ kind: 'off' });
    expect(storage({ MODULE_STORAGE: 'off', ...S3, STORAGE_PREFIX: 'x' })).toEqual({ kind: 'off' });
  });

  it('follows an explicit MODULE_STORAGE: filesystem ignores the S3 settings, s3 takes them', () => {
    expect(storage({ MODULE_STORAGE: 'filesystem', ...S3, DATA_DIR: '/var/lib/platform' })).toEqual({
      kind: 'filesystem',
      dir: '/var/lib/platform/modules',
    });
    expect(storage({ MODULE_STORAGE: 's3', ...S3 })).toMatchObject({ kind: 's3', bucket: 'modules' });
  });

  it('refuses STORAGE_ENDPOINT without STORAGE_BUCKET', () => {
    expect(refusal({ STORAGE_ENDPOINT: 'http://127.0.0.1:9000' }).problems).toEqual([
      'STORAGE_BUCKET: required when STORAGE_ENDPOINT is set',
    ]);
  });

  it('refuses one credential without the other, never echoing either', () => {
    const secret = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';
    const onlySecret = refusal({ ...S3, STORAGE_SECRET_ACCESS_KEY: secret });
    expect(onlySecret.problems).toEqual([
      'STORAGE_ACCESS_KEY_ID: required with STORAGE_SECRET_ACCESS_KEY (set both or neither)',
    ]);
    expect(onlySecret.message).not.toContain(secret);
    const onlyId = refusal({ ...S3, STORAGE_ACCESS_KEY_ID: 'AKIDONLY' });
    expect(onlyId.problems).toEqual([
      'STORAGE_SECRET_ACCESS_KEY: required with STORAGE_ACCESS_KEY_ID (set both or neither)',
    ]);
    expect(onlyId.message).not.toContain('AKIDONLY');
  });

  it.each([
    ['STORAGE_ENDPOINT', 'minio:9000'],
    ['STORAGE_ENDPOINT', 's3://bucket'],
    ['STORAGE_ENDPOINT', 'http://key:hunter2@minio.internal:9000'],
    ['STORAGE_ENDPOINT', 'http://minio.internal:9000/?x=1'],
    ['STORAGE_BUCKET', 's3://modules'],
    ['STORAGE_BUCKET', 'my bucket'],
    ['STORAGE_BUCKET', 'ab'],
    ['STORAGE_BUCKET', 'modules/'],
    ['STORAGE_REGION', 'eu west 1'],
    ['STORAGE_FORCE_PATH_STYLE', 'yes'],
    ['STORAGE_PREFIX', '../modules'],
    ['STORAGE_PREFIX', 'a//b'],
    ['STORAGE_PREFIX', 'mod ules'],
    ['STORAGE_DOCUMENTS_PREFIX', '../documents'],
    ['MODULE_STORAGE', 'minio'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    const error = refusal({ ...S3, [name]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('never echoes credentials written into STORAGE_ENDPOINT', () => {
    const error = refusal({ ...S3, STORAGE_ENDPOINT: 'http://key:hunter2@minio.internal:9000' });
    expect(error.problems).toEqual([
      'STORAGE_ENDPOINT: must not carry credentials; use STORAGE_ACCESS_KEY_ID and STORAGE_SECRET_ACCESS_KEY',
    ]);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses MODULE_STORAGE=s3 without STORAGE_ENDPOINT', () => {
    expect(refusal({ MODULE_STORAGE: 's3' }).problems).toEqual(['MODULE_STORAGE: s3 needs STORAGE_ENDPOINT']);
  });

  it.each([
    'STORAGE_BUCKET',
    'STORAGE_REGION',
    'STORAGE_FORCE_PATH_STYLE',
    'STORAGE_PREFIX',
    'STORAGE_DOCUMENTS_PREFIX',
  ])('refuses %s without STORAGE_ENDPOINT (modules would silently stay on disk)', (name) => {
    const value = name === 'STORAGE_FORCE_PATH_STYLE' ? 'true' : 'modules';
    const error = refusal({ [name]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name}: set without STORAGE_ENDPOINT`));
  });

  it('refuses credentials without STORAGE_ENDPOINT, never echoing them', () => {
    const error = refusal({
      STORAGE_ACCESS_KEY_ID: 'AKIDLONELY',
      STORAGE_SECRET_ACCESS_KEY: 'lonely-secret',
    });
    expect(error.problems.map((p) => p.split(':')[0])).toEqual([
      'STORAGE_ACCESS_KEY_ID',
      'STORAGE_SECRET_ACCESS_KEY',
    ]);
    expect(error.message).not.toContain('AKIDLONELY');
    expect(error.message).not.toContain('lonely-secret');
  });

  it('names every bad storage setting at once', () => {
    const error = refusal({
      STORAGE_ENDPOINT: 'nope',
      STORAGE_ACCESS_KEY_ID: 'AKID',
      STORAGE_FORCE_PATH_STYLE: 'maybe',
    });
    expect(error.problems.map((p) => p.split(':')[0]).sort()).toEqual(
      ['STORAGE_BUCKET', 'STORAGE_ENDPOINT', 'STORAGE_FORCE_PATH_STYLE', 'STORAGE_SECRET_ACCESS_KEY'].sort(),
    );
  });
});

describe("the deployment's own hosts", () => {
  const own = (env: Record<string, string>) => loadConfig(env, CWD).ownHosts;

  it('takes the hostname of each deployment URL, lower-case, without port, path or trailing dot', () => {
    expect(own({ WEBHOOK_PUBLIC_URL: 'https://Hooks.Example.COM:8443/apps/' })).toEqual([
      'hooks.example.com',
    ]);
    expect(own({ COLLECTION_FLOW_URL: 'http://collect.example.com.:8080' })).toEqual(['collect.example.com']);
    expect(own({ SIGNUP_CONSOLE_URL: 'https://signup.example.com/start?x=1' })).toEqual([
      'signup.example.com',
    ]);
    expect(own({ STORAGE_PUBLIC_ENDPOINT: 'https://files.example.com' })).toEqual(['files.example.com']);
  });

  it('reads the identity provider issuer when it is a URL, and names no host when it is not', () => {
    expect(own({ AUTH_ISSUER: 'https://IdP.example.com/realms/main' })).toEqual(['idp.example.com']);
    expect(own({ AUTH_ISSUER: 'platform-issuer' })).toEqual([]);
    expect(own({ AUTH_ISSUER: 'urn:example:issuer' })).toEqual([]);
  });

  it('takes STORAGE_ENDPOINT whatever MODULE_STORAGE says, and each STORAGE_CORS_ORIGINS origin', () => {
    expect(
      own({
        MODULE_STORAGE: 'filesystem',
        STORAGE_ENDPOINT: 'http://127.0.0.1:9000',
        STORAGE_CORS_ORIGINS: 'https://a.example.com,,  http://localhost:5173 ,https://A.example.com/',
      }),
    ).toEqual(['a.example.com', 'localhost', '127.0.0.1']);
  });

  it('lists a host once however many settings name it', () => {
    expect(
      own({
        WEBHOOK_PUBLIC_URL: 'https://platform.example.com/hooks',
        COLLECTION_FLOW_URL: 'https://platform.example.com:8443/flow',
        SIGNUP_CONSOLE_URL: 'https://console.example.com',
        STORAGE_CORS_ORIGINS: 'https://console.example.com',
      }),
    ).toEqual(['platform.example.com', 'console.example.com']);
  });

  it('spells STORAGE_CORS_ORIGINS as origins, each once', () => {
    expect(
      loadConfig(
        {
          STORAGE_CORS_ORIGINS:
            'https://A.example.com:443/, http://b.example.com:8080 ,https://a.example.com',
        },
        CWD,
      ).storageCorsOrigins,
    ).toEqual(['https://a.example.com', 'http://b.example.com:8080']);
  });
});

describe('missingProductionSettings', () => {
  const ROLES: Role[] = ['api', 'worker', 'runner', 'all'];
  const AUTH = ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'];
  const complete = {
    DATABASE_URL,
    APP_RUNNER_TOKEN: 'runner-token',
    APP_CALL_TOKEN_SECRET: 'call-secret',
    AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
    AUTH_ISSUER: 'https://idp.example.com/',
    AUTH_AUDIENCE: 'apps-platform',
  };
  const missing = (env: Record<string, string>, role: Role) =>
    missingProductionSettings(loadConfig(env, CWD), role);

  it.each(ROLES)('needs nothing in embedded mode (role %s)', (role) => {
    expect(missing({}, role)).toEqual([]);
  });

  it('needs the runner token, the call-token secret and the auth settings for api and all', () => {
    for (const role of ['api', 'all'] as const) {
      expect(missing({ DATABASE_URL }, role)).toEqual(['APP_RUNNER_TOKEN', 'APP_CALL_TOKEN_SECRET', ...AUTH]);
    }
  });

  it('needs the runner token and the call-token secret, but no auth settings, for the worker', () => {
    expect(missing({ DATABASE_URL }, 'worker')).toEqual(['APP_RUNNER_TOKEN', 'APP_CALL_TOKEN_SECRET']);
  });

  it('needs only the runner token for the runner', () => {
    expect(missing({ DATABASE_URL }, 'runner')).toEqual(['APP_RUNNER_TOKEN']);
  });

  it.each(ROLES)('needs nothing more once everything is given (role %s)', (role) => {
    expect(missing(complete, role)).toEqual([]);
  });

  it('names exactly the settings left out', () => {
    const { AUTH_ISSUER: _issuer, APP_CALL_TOKEN_SECRET: _secret, ...partial } = complete;
    expect(missing(partial, 'api')).toEqual(['APP_CALL_TOKEN_SECRET', 'AUTH_ISSUER']);
    expect(missing(partial, 'worker')).toEqual(['APP_CALL_TOKEN_SECRET']);
    expect(missing(partial, 'runner')).toEqual([]);
  });

  it('does not require SECRET_STORE_KEY (without it secrets answer 503 instead)', () => {
    expect(missing(complete, 'all')).not.toContain('SECRET_STORE_KEY');
  });
});
