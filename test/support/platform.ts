// Starts the real api (public and internal listeners, real HTTP on loopback) on a fresh database,
// with a log capture and a token minter signed by the same local key the api trusts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type RunningApi, startApi } from '../../src/api/index.ts';
import { readOrCreateLocalSecrets } from '../../src/auth/local-keys.ts';
import { localVerifier, signLocalToken, type TokenVerifier } from '../../src/auth/tokens.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logging.ts';
import type { RunsEngine } from '../../src/runs/engine-client.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { type Contract, expectContractKept, fetchContract } from './contract.ts';
import { createTestDatabase } from './database.ts';
import { timed } from './profile.ts';

export interface TokenRequest {
  tenant?: string;
  roles?: string[];
  permissions?: string[];
  kind?: 'human' | 'machine' | 'applicant';
  user?: string;
  /** The sub claim, when not `user:<user>` (an applicant's is its submission's id). */
  subject?: string;
  expiresIn?: string | number;
}

export interface TestPlatform extends RunningApi {
  config: Config;
  database: Database;
  logs: Record<string, unknown>[];
  /** A token for a tenant created on demand; admin of tenant `acme` by default. */
  token(request?: TokenRequest): Promise<string>;
  tenantId(name?: string): Promise<string>;
  /** An answer of the api, checked against its /openapi.json (the call throws on a mismatch). */
  fetch(pathname: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>;
}

export function startTestPlatform(
  env: Record<string, string> = {},
  options: { verifier?: TokenVerifier; runs?: RunsEngine } = {},
): Promise<TestPlatform> {
  return timed('starting', () => startPlatformInProcess(env, options));
}

async function startPlatformInProcess(
  env: Record<string, string> = {},
  /** runs: the engine the api starts and resumes runs with (a recording one); absent, DBOS's client. */
  options: { verifier?: TokenVerifier; runs?: RunsEngine } = {},
): Promise<TestPlatform> {
  const databaseUrl = await createTestDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-data-'));
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    API_INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // Tests publish their own release when they need one; the repository's built apps stay out.
    RELEASE_INDEX: path.join(dataDir, 'release.json'),
    ...env,
  });
  const local = await readOrCreateLocalSecrets(dataDir);
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({
    service: 'apps-platform-test',
    level: config.logLevel,
    env: 'test',
    destination,
  });
  const database = openDatabase(databaseUrl);
  const api = await startApi({
    config,
    database,
    verifier: options.verifier ?? localVerifier(local.signingKey),
    ...(options.runs ? { runs: options.runs } : {}),
    logger,
  });

  const tenantId = async (name = 'acme') => (await ensureTenant(database.db, name)).tenant.id;
  const token = async (request: TokenRequest = {}) =>
    signLocalToken(
      local.signingKey.privateJwk,
      {
        tenant: await tenantId(request.tenant),
        sub: request.subject ?? `user:${request.user ?? 'ada'}`,
        name: request.user ?? 'ada',
        kind: request.kind ?? 'human',
        roles: request.roles ?? ['admin'],
        permissions: request.permissions ?? [],
      },
      request.expiresIn ?? '1h',
    );

  // Fetched once, on the first answer to check: every answer through fetch() keeps /openapi.json.
  let contract: Promise<Contract> | undefined;

  return {
    ...api,
    config,
    database,
    logs,
    token,
    tenantId,
    async fetch(pathname, init = {}) {
      const { token: given, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      const bearer = given === undefined ? await token() : given;
      if (bearer) headers.set('authorization', `Bearer ${bearer}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const response = await fetch(`${api.url}${pathname}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
      contract ??= fetchContract(api.url);
      await expectContractKept(await contract, rest.method ?? 'GET', response);
      return response;
    },
    async close() {
      await api.close();
      await database.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
