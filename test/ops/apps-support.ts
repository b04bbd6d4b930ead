// The `ops apps` tests' platform: the real api with a real runner on a fresh database (tenants upload,
// publish, install and call through it), and the real `ops` command run in-process on the same database.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, expect } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { appModule, type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, publishEcho, publishPlatformApp, SECRET_KEY_HEX, type Version } from '../installs/support.ts';
import { type OpsOptions, ops, opsJson } from '../support/ops.ts';

/** Text a tenant (or an operator pasting it) may write: a colour escape, a right-to-left override, a newline. */
export const HOSTILE = 'ok\u001b[31m red\u202eevil\nnext';
/** How a table prints it. */
export const HOSTILE_ESCAPED = 'ok\\u{1b}[31m red\\u{202e}evil\\nnext';

/** Standard output holds none of the raw characters HOSTILE carries. */
export function expectNoRawControls(text: string) {
  expect(text).not.toContain('\u001b');
  expect(text).not.toContain('\u202e');
}

/** The text of the column `header` on each line of a table (up to the next column's start). */
export function column(table: string, header: string): string[] {
  const [head = '', ...rows] = table.trimEnd().split('\n');
  const start = head.indexOf(header);
  const next = head.slice(start + header.length).search(/\S/);
  const end = next < 0 ? undefined : start + header.length + next;
  return rows.map((row) => [...row].slice(start, end).join('').trim());
}

export interface AppsSuite {
  platform: CataloguePlatform;
  databaseUrl: string;
  /** `ops <argv>` on the platform's database. */
  run(argv: readonly string[], options?: OpsOptions): ReturnType<typeof ops>;
  /** `ops <argv> --json`, exit 0 expected: its output parsed. */
  json<T = Record<string, unknown>>(argv: readonly string[], options?: OpsOptions): Promise<T>;
  /** A tenant administrator's token (the tenant created on demand). */
  as(tenant: string, user?: string, subject?: string): Promise<string>;
  tenantId(tenant: string): Promise<string>;
  /** A tenant's echo version, published. */
  published(tenant: string, name: string, version?: string): Promise<Version>;
  /** A tenant's echo version, uploaded only. */
  uploaded(tenant: string, name: string, version?: string, token?: string): Promise<Version>;
  /** Platform versions, published as a release would; their ids by version. */
  platformApp(name: string, versions: string[]): Promise<Map<string, string>>;
  /** A tenant's version, uploaded and sent to the operator's review; the review is pending. */
  underReview(tenant: string, name: string, version?: string, token?: string): Promise<Version>;
  /** An install of the echo version (hosts approved, secret stored); answers its id. */
  install(tenant: string, name: string, versionId: string, extra?: Record<string, unknown>): Promise<string>;
  /** A test call of an install's echo action: the response. */
  testCall(tenant: string, install: string): Promise<Response>;
  /** Audit rows of an action: a tenant's trail (by name), or the instance trail (null). */
  trail(tenant: string | null, action: string): Promise<(typeof auditEvents.$inferSelect)[]>;
}

/** One platform for a test file (started before its tests, closed after). */
export function appsSuite(): AppsSuite {
  let platform: CataloguePlatform;
  beforeAll(async () => {
    platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
  }, 120_000);
  afterAll(async () => platform?.close());

  const databaseUrl = () => platform.config.databaseUrl as string;
  const as = (tenant: string, user = 'ada', subject?: string) =>
    platform.token({ tenant, user, ...(subject ? { subject } : {}) });
  const call = async (path: string, tenant: string, method = 'GET', json?: unknown) =>
    platform.fetch(path, { method, token: await as(tenant), json });

  async function uploaded(tenant: string, name: string, version = '1.0.0', token?: string) {
    const response = await platform.upload(await appModule(name, version), token ?? (await as(tenant)));
    return ok<Version>(response, 201);
  }

  return {
    get platform() {
      return platform;
    },
    get databaseUrl() {
      return databaseUrl();
    },
    run: (argv, options) => ops(databaseUrl(), argv, options),
    json: (argv, options) => opsJson(databaseUrl(), argv, options),
    as,
    tenantId: (tenant) => platform.tenantId(tenant),
    published: async (tenant, name, version = '1.0.0') =>
      publishEcho(platform, await as(tenant), name, version),
    uploaded,
    platformApp: (name, versions) => publishPlatformApp(platform, name, versions),
    async underReview(tenant, name, version = '1.0.0', token) {
      const own = token ?? (await as(tenant));
      const version_ = await uploaded(tenant, name, version, own);
      await platform.database.db
        .update(tenants)
        .set({ appReview: 'required' })
        .where(eq(tenants.name, tenant));
      await ok(
        await platform.fetch(`/apps/${name}/versions/${version_.id}/publish`, { method: 'POST', token: own }),
        202,
      );
      return version_;
    },
    async install(tenant, name, versionId, extra = {}) {
      const created = await ok<{ id: string }>(
        await call('/app-installs', tenant, 'POST', {
          name,
          versionId,
          enabled: false,
          approveHosts: ['api.vendor.test'],
          ...extra,
        }),
        201,
      );
      await ok(await call(`/app-installs/${name}/secrets/API_KEY`, tenant, 'POST', { value: 'sk-ops-test' }));
      return created.id;
    },
    testCall: (tenant, install) =>
      call(`/app-installs/${install}/test`, tenant, 'POST', { action: 'echo', input: {} }),
    async trail(tenant, action) {
      const where =
        tenant === null
          ? isNull(auditEvents.tenantId)
          : eq(auditEvents.tenantId, await platform.tenantId(tenant));
      return platform.database.db
        .select()
        .from(auditEvents)
        .where(and(where, eq(auditEvents.action, action)))
        .orderBy(asc(auditEvents.id));
    },
  };
}
