// What every benchmark stands on: an embedded PostgreSQL with a migrated `bench` database in a temporary
// directory, torn down afterwards whatever happened, and an admin token of a tenant.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { type Dispatcher, Pool } from 'undici';
import { startApi } from '../src/api/index.ts';
import { type LocalKeys, readOrCreateLocalSecrets } from '../src/auth/local-keys.ts';
import { localVerifier, signLocalToken } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { ensureDatabase, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import type { Database } from '../src/db/pool.ts';
import { startRunnerFromConfig } from '../src/runner/index.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import { freePort } from '../test/support/free-port.ts';
import { pgStatementsSettings } from './pg-statements.ts';

export const BENCH_RUNNER_TOKEN = 'bench-runner-token';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RELEASE_INDEX = path.join(ROOT, 'apps', 'build', 'release.json');

export interface BenchDatabase {
  /** The temporary directory (DATA_DIR of what the benchmark starts). */
  dir: string;
  /** The migrated `bench` database. */
  url: string;
  /** Run in order before PostgreSQL stops; a closer's failure does not keep the others from running. */
  closers: (() => Promise<void>)[];
}

export async function withBenchDatabase(prefix: string, run: (bench: BenchDatabase) => Promise<void>) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o755); // PostgreSQL runs as its own user and must reach its directory
  const server = await startEmbeddedPostgres({
    dataDir: dir,
    port: await freePort(),
    settings: pgStatementsSettings(),
  });
  const closers: BenchDatabase['closers'] = [];
  try {
    await ensureDatabase(server.url('postgres'), 'bench');
    await applyMigrations(server.url('bench'));
    await run({ dir, url: server.url('bench'), closers });
  } finally {
    for (const close of closers) await close().catch(() => {});
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Tenant `bench` and a token of its admin, signed with the local key the api verifies. */
export async function benchAdmin(database: Database, keys: LocalKeys) {
  const { tenant } = await ensureTenant(database.db, 'bench');
  const token = await signLocalToken(keys.privateJwk, {
    tenant: tenant.id,
    sub: 'user:bench',
    roles: ['admin'],
  });
  return { tenantId: tenant.id, token };
}

/**
 * The api and a runner on one bench database, as a development stack runs them (private networks
 * allowed, so a loopback vendor double is callable; no rate limit; the release catalogue published).
 * The runner starts first (its port is drawn when it listens); it reaches the api's internal listener,
 * whose port is fixed here, only when a call needs the module. runnerEnv adds runner settings, apiEnv the
 * api's (say the runner's bounds, which the api's own deliveries keep to).
 */
export async function startBenchStack(
  bench: BenchDatabase,
  database: Database,
  logger: Logger,
  runnerEnv: Record<string, string> = {},
  apiEnv: Record<string, string> = {},
) {
  const { dir, url, closers } = bench;
  const internalPort = await freePort();
  const runner = await startRunnerFromConfig(
    loadConfig({
      DATABASE_URL: url,
      DATA_DIR: dir,
      RUNNER_PORT: '0',
      HOST: '127.0.0.1',
      APP_RUNNER_TOKEN: BENCH_RUNNER_TOKEN,
      APP_RUNNER_CACHE_DIR: path.join(dir, 'runner-cache'),
      APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
      API_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
      ...runnerEnv,
    }),
    logger,
  );
  closers.unshift(() => runner.close());
  const config = loadConfig({
    DATABASE_URL: url,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    API_INTERNAL_PORT: String(internalPort),
    APP_RUNNER_URL: runner.url,
    APP_RUNNER_TOKEN: BENCH_RUNNER_TOKEN,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    SECRET_STORE_KEY: randomBytes(32).toString('hex'),
    API_RATE_LIMIT_PER_MINUTE: '0',
    RELEASE_INDEX,
    ...apiEnv,
  });
  const local = await readOrCreateLocalSecrets(dir);
  const api = await startApi({ config, database, verifier: localVerifier(local.signingKey), logger });
  closers.unshift(() => api.close());
  return { runner, api, config, local };
}

// biome-ignore lint/suspicious/noExplicitAny: the benches read answers of many shapes, checked by the api
type Json = any;

/**
 * The benches' client of the api: JSON in and out with the token, an answer past 2xx thrown with its
 * body. On undici's pool (`connections` kept open) rather than `fetch`, whose streams cost this process
 * about 0.3 ms a request, counted in the rows' CPU as if the platform spent it (issue 48).
 */
export function benchApi(closers: BenchDatabase['closers'], url: string, token: string, connections = 16) {
  const pool = new Pool(url, { connections });
  closers.unshift(() => pool.close());
  const auth = { authorization: `Bearer ${token}` };
  return async (method: Dispatcher.HttpMethod, route: string, body?: unknown): Promise<Json> => {
    const answer = await pool.request({
      method,
      path: route,
      headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300)
      throw new Error(`${method} ${route}: ${answer.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}
