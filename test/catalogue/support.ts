// A platform whose api inspects uploads with a real runner, and module variants to upload.
import { asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { appPublishRequests, appReviews, appVersions } from '../../src/catalogue/tables.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/pool.ts';
import { startRunnerFromConfig } from '../../src/runner/index.ts';
import type { RunsEngine } from '../../src/runs/engine-client.ts';
import { expectError } from '../http/expect.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { timed } from '../support/profile.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';

export interface CataloguePlatform extends TestPlatform {
  runnerUrl: string;
  upload(bytes: Uint8Array, token?: string): Promise<Response>;
}

export interface CataloguePlatformOptions {
  /** More of the runner's settings (its concurrency, its cache directory…). */
  runnerEnv?: Record<string, string>;
  /** The URL the api reaches the runner by, given the runner's own (a link in between, for one). */
  runnerUrlFor?: (runnerUrl: string) => Promise<string>;
  /** The engine the api starts and resumes runs with; absent, DBOS's client on the test database. */
  runs?: RunsEngine;
}

export async function startCataloguePlatform(
  env: Record<string, string> = {},
  options: CataloguePlatformOptions = {},
): Promise<CataloguePlatform> {
  const internalPort = await freePort();
  const runner = await timed('starting', () =>
    startRunnerFromConfig(
      loadConfig({
        DATABASE_URL: 'postgres://unused/unused',
        RUNNER_PORT: '0',
        HOST: '127.0.0.1',
        APP_RUNNER_TOKEN: RUNNER_TOKEN,
        API_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
        // The runner and the api must agree on it (apps calling a vendor double on 127.0.0.1).
        ...(env.APP_RUNNER_ALLOW_PRIVATE_NETWORKS
          ? { APP_RUNNER_ALLOW_PRIVATE_NETWORKS: env.APP_RUNNER_ALLOW_PRIVATE_NETWORKS }
          : {}),
        ...options.runnerEnv,
      }),
      pino({ level: 'silent' }),
    ),
  );
  const platform = await startTestPlatform(
    {
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      APP_RUNNER_URL: options.runnerUrlFor ? await options.runnerUrlFor(runner.url) : runner.url,
      API_INTERNAL_PORT: String(internalPort),
      ...env,
    },
    options.runs ? { runs: options.runs } : {},
  );
  return {
    ...platform,
    runnerUrl: runner.url,
    upload: async (bytes, token) =>
      platform.fetch('/apps/uploads', {
        method: 'POST',
        headers: { 'content-type': 'application/wasm' },
        body: bytes,
        token: token ?? (await platform.token()),
      }),
    async close() {
      await platform.close();
      await runner.close();
    },
  };
}

/** The echo fixture under another name and version (and, with extra, different bytes). */
export function appModule(name: string, version: string, extra = ''): Promise<Uint8Array> {
  return buildFixture('echo', {
    '"name":"echo","version":"1.0.0"': `"name":"${name}","version":"${version}"`,
    '"hosts":["api.vendor.test"]': `"hosts":["api.vendor.test"${extra ? `,"${extra}"` : ''}]`,
  });
}

/**
 * Everything a decision on a version may change: the version row, its publish requests and reviews, and
 * the audit rows about it. A refusal leaves it equal (compare with toEqual).
 */
export async function versionState(database: Database, versionId: string) {
  const db = database.db;
  const [version] = await db.select().from(appVersions).where(eq(appVersions.id, versionId));
  return {
    version,
    requests: await db
      .select()
      .from(appPublishRequests)
      .where(eq(appPublishRequests.versionId, versionId))
      .orderBy(asc(appPublishRequests.requestedAt)),
    reviews: await db
      .select()
      .from(appReviews)
      .where(eq(appReviews.versionId, versionId))
      .orderBy(asc(appReviews.requestedAt)),
    audit: await db
      .select({ id: auditEvents.id, action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, versionId))
      .orderBy(asc(auditEvents.id)),
  };
}

/**
 * The calls the lifecycle tests make, as a tenant's user (an admin unless roles say otherwise), on the
 * platform the getter gives (started in the file's beforeAll).
 */
export function catalogueActions(current: () => CataloguePlatform) {
  const as = (tenant: string, user = 'ada', roles = ['admin']) => current().token({ tenant, user, roles });
  return {
    as,
    post: (path: string, token: string, json?: unknown) =>
      current().fetch(path, { method: 'POST', token, json }),
    async uploaded(tenant: string, name: string, version = '1.0.0') {
      const response = await current().upload(await appModule(name, version), await as(tenant));
      const body = await response.json();
      if (response.status !== 201)
        throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
      return body as { id: string; name: string; version: string };
    },
    /** Expects the call refused with that status and code, and nothing about the version changed. */
    async refused(versionId: string, status: number, code: string, call: () => Promise<Response>) {
      const before = await versionState(current().database, versionId);
      const error = await expectError(await call(), status, code);
      expect(await versionState(current().database, versionId)).toEqual(before);
      return error;
    },
    async requireApprovals(tenant: string, fourEyes = true) {
      const response = await current().fetch('/tenants/me/settings', {
        method: 'PUT',
        token: await as(tenant),
        json: {
          approvals: { required: true, requiredFor: ['apps'], fourEyes },
          collection: { flowUrl: null },
        },
      });
      if (response.status !== 200)
        throw new Error(`settings answered ${response.status}: ${await response.text()}`);
    },
  };
}

/** One catalogue platform for a test file (started before its tests, closed after), with the actions. */
export function catalogueSuite() {
  const suite: { platform: CataloguePlatform; act: ReturnType<typeof catalogueActions> } = {
    platform: undefined as unknown as CataloguePlatform,
    act: catalogueActions(() => suite.platform),
  };
  beforeAll(async () => {
    suite.platform = await startCataloguePlatform();
  }, 120_000);
  afterAll(async () => suite.platform?.close());
  return suite;
}
