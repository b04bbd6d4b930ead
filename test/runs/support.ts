// Definitions through the real api: a catalogue platform with platform apps whose actions definitions call
// (published as a release would, so their manifests say exactly what validation reads), installs of them,
// and calls of the definition routes.
import pino from 'pino';
import { moduleStorageOf } from '../../src/api/index.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import { parseManifest } from '../../src/module/manifest.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { appModule, type CataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok } from '../installs/support.ts';

export { errorOf, ok };

/**
 * kit: screen (synchronous; run data may fill /person and /threshold), lookup (synchronous, any input),
 * verify (through a webhook); vendors reach it. quiet: verify through a webhook, but it handles none.
 */
export const APPS = {
  kit: {
    actions: [
      {
        name: 'screen',
        input: { type: 'object' },
        output: { type: 'object' },
        mappable: ['/person', '/threshold'],
      },
      { name: 'lookup', input: { type: 'object' }, output: { type: 'object' } },
      {
        name: 'verify',
        input: { type: 'object' },
        output: { type: 'object' },
        async: { callbackTimeoutSeconds: 600 },
      },
    ],
    webhook: true,
  },
  quiet: {
    actions: [
      {
        name: 'verify',
        input: { type: 'object' },
        output: { type: 'object' },
        async: { callbackTimeoutSeconds: 600 },
      },
    ],
    webhook: false,
  },
} as const;

/** A platform app's version for releaseModules: the echo fixture under that name and version. */
export interface ReleasedApp {
  name: string;
  version: string;
  actions: readonly unknown[];
  webhook: boolean;
}

/** Publishes platform versions of the echo fixture with the manifests given, as a release would. */
export async function releaseModules(platform: CataloguePlatform, apps: ReleasedApp[]): Promise<void> {
  const release: ReleaseModule[] = [];
  for (const app of apps) {
    const capped = capMemory(await appModule(app.name, app.version), 64);
    if (!capped.ok) throw new Error(capped.message);
    const manifest = parseManifest({
      interface: 2,
      name: app.name,
      version: app.version,
      configSchema: { type: 'object' },
      actions: app.actions,
      hosts: ['api.vendor.test'],
      handles: { webhook: app.webhook, handoff: false },
    });
    if (!manifest.ok) throw new Error(manifest.message);
    release.push({ manifest: manifest.manifest, bytes: capped.bytes, sha256: sha256Hex(capped.bytes) });
  }
  await reconcileRelease(platform.database, moduleStorageOf(platform), release, pino({ level: 'silent' }));
}

/** Publishes the platform apps of APPS (1.0.0) as a release; answers their version ids by app name. */
export async function releaseApps(platform: CataloguePlatform): Promise<Record<keyof typeof APPS, string>> {
  await releaseModules(
    platform,
    Object.entries(APPS).map(([name, app]) => ({ name, version: '1.0.0', ...app })),
  );
  const ids: Record<string, string> = {};
  for (const name of Object.keys(APPS)) {
    const versions = await ok<{ items: { id: string }[] }>(await platform.fetch(`/apps/${name}/versions`));
    ids[name] = versions.items[0]?.id as string;
  }
  return ids as Record<keyof typeof APPS, string>;
}

export interface Issue {
  code: string;
  path: string;
  message: string;
}
export interface Version {
  kind: string;
  key: string;
  version: number;
  status: 'draft' | 'published';
  body: Record<string, unknown>;
  installNames: string[];
  createdBy: string;
  publishedAt: string | null;
  publishedBy: string | null;
  validation: { errors: Issue[]; warnings: Issue[] };
}
export interface Definition {
  kind: string;
  key: string;
  published: Version | null;
  draft: Version | null;
  versions: { version: number; status: string }[];
}

/** Calls of the api as a tenant's users, and the definitions' routes by kind. */
export function definitionCalls(platform: () => CataloguePlatform, versions: () => Record<string, string>) {
  const call = (path: string, token: string, method = 'GET', json?: unknown) =>
    platform().fetch(path, { method, token, json });
  const base = { workflow: '/workflow-definitions', rule_set: '/rule-sets' } as const;
  type Kind = keyof typeof base;
  return {
    call,
    admin: (tenant: string, user = 'ada') => platform().token({ tenant, user }),
    holder: (tenant: string, permissions: string[]) =>
      platform().token({ tenant, user: 'holder', roles: [], permissions }),
    /** Installs an app of APPS under `name`, enabled. */
    async install(token: string, name: string, app: keyof typeof APPS = 'kit') {
      return ok<{ id: string }>(
        await call('/app-installs', token, 'POST', {
          name,
          versionId: versions()[app],
          approveHosts: ['api.vendor.test'],
        }),
        201,
      );
    },
    create: (token: string, kind: Kind, key: string, body: unknown) =>
      call(base[kind], token, 'POST', { key, body }),
    save: (token: string, kind: Kind, key: string, body: unknown) =>
      call(`${base[kind]}/${key}/draft`, token, 'PUT', body),
    publish: (token: string, kind: Kind, key: string) => call(`${base[kind]}/${key}/publish`, token, 'POST'),
    get: (token: string, kind: Kind, key: string) => call(`${base[kind]}/${key}`, token),
    /** Creates and publishes a definition; answers the published version. */
    async published(token: string, kind: Kind, key: string, body: unknown) {
      await ok(await call(base[kind], token, 'POST', { key, body }), 201);
      return ok<Version>(await call(`${base[kind]}/${key}/publish`, token, 'POST'));
    },
    async auditOf(token: string, action: string) {
      const body = await ok<{
        items: { action: string; resource: { type: string; id: string }; data: Record<string, unknown> }[];
      }>(await call(`/audit-events?action=${action}`, token));
      return body.items;
    },
  };
}

/** A workflow of one call_app step. */
export const callStep = (install: string, action = 'screen', extra: Record<string, unknown> = {}) => ({
  id: 'call',
  type: 'call_app',
  install,
  action,
  outputKey: 'out',
  ...extra,
});
export const workflowCalling = (install: string, action = 'screen', extra: Record<string, unknown> = {}) => ({
  steps: [callStep(install, action, extra)],
});
/** A rule set of one app rule. */
export const ruleSetCalling = (install: string, action = 'screen', extra: Record<string, unknown> = {}) => ({
  rules: [{ key: 'app', type: 'app', install, action, resultPath: 'hits', failWhen: { gt: 0 }, ...extra }],
});
