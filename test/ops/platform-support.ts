// What the `ops platform` tests share: a platform (the real api on a fresh database, its module storage
// under DATA_DIR) that the ops command runs against with the same settings, modules as the release
// build writes them, and the trails' rows about a version.
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { auditEvents } from '../../src/audit/tables.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import type { Database } from '../../src/db/pool.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import type { Manifest } from '../../src/module/manifest.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { inspectUpload } from '../../src/runner/index.ts';
import { appModule } from '../catalogue/support.ts';
import { ops, opsJson } from '../support/ops.ts';
import type { TestPlatform } from '../support/platform.ts';

export interface BuiltModule {
  /** Capped at its manifest's memoryMiB, as app build and the release build write it. */
  bytes: Uint8Array;
  /** As compiled: no memory maximum of the manifest's. */
  uncapped: Uint8Array;
  sha256: string;
  manifest: Manifest;
}

/** The echo fixture under another name and version (another host with `extra`), as app build writes it. */
export async function builtModule(name: string, version: string, extra = ''): Promise<BuiltModule> {
  const uncapped = await appModule(name, version, extra);
  const verdict = await inspectUpload(uncapped);
  if (!verdict.accepted) throw new Error(verdict.message);
  const capped = capMemory(uncapped, verdict.manifest.memoryMiB);
  if (!capped.ok) throw new Error(capped.message);
  return { bytes: capped.bytes, uncapped, sha256: sha256Hex(capped.bytes), manifest: verdict.manifest };
}

/** `ops` and `ops … --json` on the platform's database, module storage and release index. */
export function opsOn(platform: () => TestPlatform) {
  const env = (extra: Record<string, string> = {}) => ({
    DATA_DIR: platform().config.dataDir,
    RELEASE_INDEX: platform().config.releaseIndex,
    ...extra,
  });
  const url = () => platform().config.databaseUrl as string;
  return {
    run: (argv: string[], options: { env?: Record<string, string>; stdin?: Buffer; tty?: boolean } = {}) =>
      ops(url(), argv, { ...options, env: env(options.env) }),
    json: <T = Record<string, unknown>>(
      argv: string[],
      options: { stdin?: Buffer; env?: Record<string, string> } = {},
    ) => opsJson<T>(url(), argv, { ...options, env: env(options.env) }),
  };
}

/** Writes a release index naming the modules (as the release build writes apps/build/release.json). */
export async function writeRelease(indexFile: string, modules: readonly BuiltModule[]): Promise<void> {
  const dir = path.dirname(indexFile);
  const entries = [];
  for (const module of modules) {
    const base = `${module.manifest.name}-${module.manifest.version}`;
    await fs.writeFile(path.join(dir, `${base}.wasm`), module.bytes);
    await fs.writeFile(path.join(dir, `${base}.manifest.json`), JSON.stringify(module.manifest));
    entries.push({
      file: `${base}.wasm`,
      sha256: module.sha256,
      name: module.manifest.name,
      version: module.manifest.version,
    });
  }
  await fs.writeFile(indexFile, JSON.stringify({ modules: entries }));
}

/** The platform's version row of that name and version. */
export async function platformRow(database: Database, name: string, version: string) {
  const [row] = await database.db
    .select()
    .from(appVersions)
    .where(and(isNull(appVersions.tenantId), eq(appVersions.name, name), eq(appVersions.version, version)));
  return row;
}

/** Every audit row about a resource, oldest first, with its trail (tenant id or null) and actor. */
export async function auditOf(database: Database, resourceId: string) {
  const rows = await database.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.resourceId, resourceId))
    .orderBy(asc(auditEvents.id));
  return rows.map((r) => ({
    tenantId: r.tenantId,
    action: r.action,
    actor: { type: r.actorType, id: r.actorId, name: r.actorName },
    data: r.data,
  }));
}

/** An install of the version, straight in the database (installs play no other part here). */
export async function installOn(
  database: Database,
  tenantId: string,
  versionId: string,
  name: string,
  appName: string,
) {
  const [install] = await database.db
    .insert(appInstalls)
    .values({ tenantId, name, appName, versionId, enabled: true, config: {}, hosts: [] })
    .returning();
  if (!install) throw new Error('no install');
  return install;
}
