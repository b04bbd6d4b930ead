// Helpers of the install changes tests: a module variant that reads a vendor URL from config (so a save
// can add a host) and may read documents or hand off, and calls through the real api as named users.
import { afterAll, beforeAll, expect } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { ok, SECRET_KEY_HEX } from './support.ts';

export interface ChangeModuleOptions {
  /** switch: needs documents behind the config's /documents switch; absent: no documents. */
  documents?: 'switch';
  handoff?: boolean;
}

/** The echo fixture reading /baseUrl as a host, /documents as its documents switch (when asked). */
export function changeModule(name: string, version: string, options: ChangeModuleOptions = {}) {
  const documents =
    options.documents === 'switch' ? '"needs":["documents"],"documentsFromConfig":"/documents",' : '';
  return buildFixture('echo', {
    '"name":"echo","version":"1.0.0"': `"name":"${name}","version":"${version}"`,
    '"configSchema":{"type":"object"},': `"configSchema":{"type":"object","properties":{"baseUrl":{"type":"string"},"documents":{"type":"boolean"},"note":{"type":"string"},"variables":{"type":"array"}}},"hostsFromConfig":["/baseUrl"],"secretsFromConfig":"/variables",${documents}`,
    '"handles":{"webhook":true,"handoff":true}': `"handles":{"webhook":true,"handoff":${options.handoff === true}}`,
  });
}

export interface Change {
  id: string;
  installId: string | null;
  installName: string;
  decision: string | null;
  [field: string]: unknown;
}

export interface InstallBody {
  id: string;
  enabled: boolean;
  versionId: string;
  config: Record<string, unknown>;
  hosts: string[];
  pendingChange: Change | null;
  [field: string]: unknown;
}

export function changeCalls(platform: CataloguePlatform) {
  const call = (path: string, token: string, method = 'GET', json?: unknown) =>
    platform.fetch(path, { method, token, json });
  const helpers = {
    call,
    /** An administrator of the tenant (every apps permission and tenants:settings). */
    admin: (tenant: string, user = 'ada') => platform.token({ tenant, user }),
    /** A user holding only the named permissions. */
    holder: (tenant: string, user: string, permissions: string[]) =>
      platform.token({ tenant, user, roles: [], permissions }),
    install: (token: string, body: Record<string, unknown>) => call('/app-installs', token, 'POST', body),
    save: (token: string, name: string, body: Record<string, unknown>) =>
      call(`/app-installs/${name}`, token, 'PUT', body),
    approve: (token: string, name: string, id: string, json: unknown = {}) =>
      call(`/app-installs/${name}/changes/${id}/approve`, token, 'POST', json),
    reject: (token: string, name: string, id: string, json: unknown = {}) =>
      call(`/app-installs/${name}/changes/${id}/reject`, token, 'POST', json),
    withdraw: (token: string, name: string, id: string) =>
      call(`/app-installs/${name}/changes/${id}/withdraw`, token, 'POST'),
    async requireApprovals(token: string, fourEyes = true) {
      await ok(
        await call('/tenants/me/settings', token, 'PUT', {
          approvals: { required: true, requiredFor: ['app'], fourEyes },
          collection: { flowUrl: null },
        }),
      );
    },
    /** A save held for approval: 202 { install, change }. */
    async held(response: Response) {
      const body = await ok<{ install: InstallBody; change: Change }>(response, 202);
      expect(body.install.pendingChange).toEqual(body.change);
      return body;
    },
    async auditOf(token: string, action: string) {
      const body = await ok<{
        items: { resource: { id: string }; actor: { id: string }; data: Record<string, unknown> }[];
      }>(await call(`/audit-events?action=${action}`, token));
      return body.items;
    },
    async list(token: string, query = '') {
      return ok<{ items: Change[]; total: number; totalIsEstimate: boolean }>(
        await call(`/app-install-changes${query}`, token),
      );
    },
    async installOf(token: string, name: string) {
      return ok<InstallBody>(await call(`/app-installs/${name}`, token));
    },
  };
  return helpers;
}

export type ChangeCalls = ReturnType<typeof changeCalls>;

/** One platform with a secret-store key for the test file, handed with its calls to `use` before the tests. */
export function changesPlatform(use: (platform: CataloguePlatform, api: ChangeCalls) => void): void {
  let platform: CataloguePlatform | undefined;
  beforeAll(async () => {
    platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
    use(platform, changeCalls(platform));
  }, 120_000);
  afterAll(async () => platform?.close());
}
