// Automatic upgrades' tests: platform versions published as a release would (manifests as each test needs
// them, the echo fixture's bytes under that name and version), installs opted in with their secret stored,
// and the sweep as the api's timer or the operator's commands run it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import pino from 'pino';
import { beforeAll } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import type { Database } from '../../src/db/pool.ts';
import { type SweepScope, sweepUpgrades, upgradeDepsOf } from '../../src/installs/index.ts';
import { parseManifest } from '../../src/module/manifest.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { definitionCallers } from '../../src/runs/definitions/callers.ts';
import { appModule, type CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changesPlatform } from '../installs/changes-support.ts';
import { ok } from '../installs/support.ts';

export const VENDOR = 'api.vendor.test';

const action = (name: string, async = false) => ({
  name,
  input: { type: 'object' },
  output: { type: 'object' },
  ...(async ? { async: { callbackTimeoutSeconds: 600 } } : {}),
});
export const sync = (name: string) => action(name);
export const asynchronous = (name: string) => action(name, true);

/**
 * A platform version: the manifest of the echo fixture under that name and version (config baseUrl (a
 * host), region and note; secret API_KEY; actions screen, lookup and verify (through a webhook); host
 * api.vendor.test; webhooks handled), with `manifest` overriding fields; `bytes` another module.
 */
export interface PlatformVersion {
  name: string;
  version: string;
  manifest?: Record<string, unknown>;
  bytes?: Promise<Uint8Array>;
}

export const baseManifest = (name: string, version: string) => ({
  interface: 2,
  name,
  version,
  configSchema: {
    type: 'object',
    properties: { baseUrl: { type: 'string' }, region: { type: 'string' }, note: { type: 'string' } },
  },
  hostsFromConfig: ['/baseUrl'],
  secrets: [{ name: 'API_KEY' }],
  actions: [sync('screen'), sync('lookup'), asynchronous('verify')],
  hosts: [VENDOR],
  handles: { webhook: true, handoff: false },
});

async function releaseModule(version: PlatformVersion): Promise<ReleaseModule> {
  const capped = capMemory(await (version.bytes ?? appModule(version.name, version.version)), 64);
  if (!capped.ok) throw new Error(capped.message);
  const manifest = parseManifest({ ...baseManifest(version.name, version.version), ...version.manifest });
  if (!manifest.ok) throw new Error(`${version.name}@${version.version}: ${manifest.message}`);
  return { manifest: manifest.manifest, bytes: capped.bytes, sha256: sha256Hex(capped.bytes) };
}

/**
 * The platform's release for one test file: every version published so far stays carried (a release
 * withdraws the platform versions it no longer carries), until `withdraw` leaves one out.
 */
export function platformRelease(platform: () => CataloguePlatform) {
  const carried = new Map<string, PlatformVersion>();
  const reconcile = async () => {
    const modules = await Promise.all([...carried.values()].map(releaseModule));
    await reconcileRelease(
      platform().database,
      moduleStorageOf(platform()),
      modules,
      pino({ level: 'silent' }),
    );
  };
  const idOf = async (name: string, version: string) => {
    const [row] = await platform()
      .database.db.select({ id: appVersions.id })
      .from(appVersions)
      .where(and(eq(appVersions.name, name), eq(appVersions.version, version), isNull(appVersions.tenantId)));
    if (!row) throw new Error(`no platform version ${name}@${version}`);
    return row.id;
  };
  return {
    /** Publishes these versions (and keeps carrying the others); answers their ids by version. */
    async publish(...versions: PlatformVersion[]): Promise<Record<string, string>> {
      for (const version of versions) carried.set(`${version.name}@${version.version}`, version);
      await reconcile();
      const ids: Record<string, string> = {};
      for (const version of versions) ids[version.version] = await idOf(version.name, version.version);
      return ids;
    },
    /** A release that no longer carries the version: it is withdrawn. */
    async withdraw(name: string, version: string): Promise<void> {
      carried.delete(`${name}@${version}`);
      await reconcile();
    },
    idOf,
  };
}

/** The sweep as the api's timer runs it, or the operator's commands after a block or a withdraw. */
export function sweep(database: Database, config: CataloguePlatform['config'], scope: SweepScope = {}) {
  const deps = upgradeDepsOf({
    config,
    database,
    callers: definitionCallers,
    logger: pino({ level: 'silent' }),
  });
  return sweepUpgrades(deps, scope);
}

export interface InstallView {
  id: string;
  versionId: string;
  upgradedFromVersionId: string | null;
  autoUpgrade: string;
  enabled: boolean;
  hosts: string[];
  pendingChange: { id: string; origin: string; versionId: string; [field: string]: unknown } | null;
  upgrade?: {
    target: { id: string; version: string } | null;
    rollback: boolean;
    waitingFor: string | null;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/**
 * Installs `versionId` as `name` with autoUpgrade compatible and API_KEY stored (unless `secrets` says
 * otherwise), enabled once configured; answers the view after the secret (which may have moved it).
 */
export async function optIn(
  api: ChangeCalls,
  token: string,
  name: string,
  versionId: string,
  options: { config?: Record<string, unknown>; approveHosts?: string[]; secrets?: string[] } = {},
): Promise<InstallView> {
  const config = options.config ?? {};
  await ok(
    await api.install(token, {
      name,
      versionId,
      enabled: false,
      config,
      approveHosts: options.approveHosts ?? [VENDOR],
      autoUpgrade: 'compatible',
    }),
    201,
  );
  let view = await ok<InstallView>(await api.call(`/app-installs/${name}`, token));
  for (const secret of options.secrets ?? ['API_KEY']) {
    view = await ok<InstallView>(
      await api.call(`/app-installs/${name}/secrets/${secret}`, token, 'POST', {
        value: `value-of-${secret}`,
      }),
    );
  }
  return view;
}

export async function notes(api: ChangeCalls, token: string, kind: string) {
  const page = await ok<{ items: { kind: string; data: Record<string, unknown> }[] }>(
    await api.call('/notifications?limit=100', token),
  );
  return page.items.filter((n) => n.kind === kind);
}

/**
 * A module with a custom section named `label` appended: the same code with other bytes (and hash), as a
 * rebuild of an app under another version would be.
 */
export function withLabel(bytes: Uint8Array, label: string): Uint8Array {
  const name = Buffer.from(label);
  const leb = (n: number) => {
    const out: number[] = [];
    do {
      let byte = n & 0x7f;
      n >>>= 7;
      if (n !== 0) byte |= 0x80;
      out.push(byte);
    } while (n !== 0);
    return out;
  };
  const body = [...leb(name.length), ...name];
  return new Uint8Array([...bytes, 0, ...leb(body.length), ...body]);
}

/** Writes a release index (as the apps build does) of these modules and their manifests into `dir`. */
export async function writeReleaseIndex(
  dir: string,
  modules: { manifest: Record<string, unknown>; bytes: Uint8Array }[],
): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const entries = [];
  for (const module of modules) {
    const base = `${module.manifest.name}-${module.manifest.version}`;
    await fs.writeFile(path.join(dir, `${base}.wasm`), module.bytes);
    await fs.writeFile(path.join(dir, `${base}.manifest.json`), JSON.stringify(module.manifest));
    entries.push({ file: `${base}.wasm`, sha256: sha256Hex(module.bytes) });
  }
  const index = path.join(dir, 'release.json');
  await fs.writeFile(index, JSON.stringify({ modules: entries }));
  return index;
}

export interface AuditItem {
  actor: { type: string; id: string; name: string | null };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

/**
 * One platform for a test file (changesPlatform: a secret-store key, the change calls), its release, an
 * administrator of `tenant`, and the reads the upgrade tests repeat.
 */
export interface UpgradeSuite {
  platform: CataloguePlatform;
  api: ChangeCalls;
  /** An administrator's token in the suite's tenant. */
  admin: string;
  tenantId: string;
  release: ReturnType<typeof platformRelease>;
  view(name: string): Promise<InstallView>;
  /** The sweep of one app's opted-in installs (as after a block or a withdraw of it). */
  sweepApp(appName: string): ReturnType<typeof sweepUpgrades>;
  /** The install's app.install.upgraded records, newest first. */
  upgradedAudits(installId: string): Promise<AuditItem[]>;
}

export function upgradeSuite(tenant: string): UpgradeSuite {
  const suite: UpgradeSuite = {
    platform: undefined as unknown as CataloguePlatform,
    api: undefined as unknown as ChangeCalls,
    admin: '',
    tenantId: '',
    release: platformRelease(() => suite.platform),
    view: async (name: string) => ok<InstallView>(await suite.api.call(`/app-installs/${name}`, suite.admin)),
    sweepApp: (appName: string) => sweep(suite.platform.database, suite.platform.config, { appName }),
    async upgradedAudits(installId: string): Promise<AuditItem[]> {
      const page = await ok<{ items: AuditItem[] }>(
        await suite.api.call('/audit-events?action=app.install.upgraded&limit=100', suite.admin),
      );
      return page.items.filter((item) => item.resource.id === installId);
    },
  };
  changesPlatform((platform, api) => {
    suite.platform = platform;
    suite.api = api;
  });
  beforeAll(async () => {
    suite.admin = await suite.api.admin(tenant);
    suite.tenantId = await suite.platform.tenantId(tenant);
  });
  return suite;
}
