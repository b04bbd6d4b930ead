// The release catalogue: the platform apps built from apps/ are reconciled at api start-up (see
// docs/catalogue.md). New versions publish as platformSource release; release versions the release no
// longer carries are withdrawn; operator versions are left alone, and a release never republishes a
// version the operator withdrew. A release version with the manifest of an operator version adopts it.
// Release versions record provenance of kind `release` (trusted: they ship with the platform).
import fs from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Tx } from '../db/pool.ts';
import { inspectModuleBytes, type Manifest, parseManifest, sha256Hex } from '../module/index.ts';
import { RELEASE_PROVENANCE } from '../provenance/index.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';
import { appVersions } from './tables.ts';

export interface ReleaseModule {
  manifest: Manifest;
  /** The module as built: memory already capped at manifest.memoryMiB. */
  bytes: Uint8Array;
  sha256: string;
}

export interface ReconcileReport {
  published: string[];
  adopted: string[];
  withdrawn: string[];
  skipped: string[];
}

const SYSTEM = { type: 'system' as const, id: 'release', name: 'release catalogue' };
const RELEASE = RELEASE_PROVENANCE as unknown as Record<string, unknown>;
const label = (m: { name: string; version: string }) => `${m.name}@${m.version}`;

/** Reads the release index (written by the apps build) and checks every module against it. */
export async function loadRelease(indexFile: string): Promise<ReleaseModule[]> {
  let index: { modules: { file: string; sha256: string }[] };
  try {
    index = JSON.parse(await fs.readFile(indexFile, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const modules: ReleaseModule[] = [];
  for (const entry of index.modules) {
    const bytes = new Uint8Array(await fs.readFile(path.resolve(path.dirname(indexFile), entry.file)));
    if (sha256Hex(bytes) !== entry.sha256)
      throw new Error(`release module ${entry.file} does not match its hash`);
    const inspected = await inspectModuleBytes(bytes);
    if (!inspected.ok) throw new Error(`release module ${entry.file}: ${inspected.message}`);
    const manifestFile = entry.file.replace(/\.wasm$/, '.manifest.json');
    const parsed = parseManifest(
      JSON.parse(await fs.readFile(path.resolve(path.dirname(indexFile), manifestFile), 'utf8')),
    );
    if (!parsed.ok) throw new Error(`release module ${entry.file}: ${parsed.message}`);
    modules.push({ manifest: parsed.manifest, bytes, sha256: entry.sha256 });
  }
  return modules;
}

/**
 * The manifest the release index carries for that name and version, or null (no index, or not in it).
 * Reads the index and the manifest only: the operator's restore asks whether the running release carries
 * a version with the same manifest, without loading every module.
 */
export async function releaseManifest(
  indexFile: string,
  name: string,
  version: string,
): Promise<Manifest | null> {
  let index: { modules: { file: string; name?: string; version?: string }[] };
  try {
    index = JSON.parse(await fs.readFile(indexFile, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const entry = index.modules.find((m) => m.name === name && m.version === version);
  if (!entry) return null;
  const manifestFile = path.resolve(path.dirname(indexFile), entry.file.replace(/\.wasm$/, '.manifest.json'));
  const parsed = parseManifest(JSON.parse(await fs.readFile(manifestFile, 'utf8')));
  if (!parsed.ok) throw new Error(`release module ${entry.file}: ${parsed.message}`);
  return parsed.manifest;
}

/** A release version published, first or again, in the instance trail. */
const auditPublished = (
  tx: Tx,
  v: { id: string; name: string; version: string; sha256: string },
  extra: Record<string, unknown>,
) =>
  recordAudit(tx, {
    tenantId: null,
    action: 'app.published',
    actor: SYSTEM,
    resource: { type: 'app_version', id: v.id },
    data: { name: v.name, version: v.version, sha256: v.sha256, platformSource: 'release', ...extra },
  });

export async function reconcileRelease(
  database: Database,
  storage: ModuleStorage,
  release: readonly ReleaseModule[],
  logger: { info(details: object, message: string): void; error(details: object, message: string): void },
): Promise<ReconcileReport> {
  const report: ReconcileReport = { published: [], adopted: [], withdrawn: [], skipped: [] };
  for (const module of release) await storage.put(module.bytes);
  await database.db.transaction(async (tx) => {
    // Processes starting together take turns: the row locks below hold only versions that exist, so two
    // starts both found a new release version missing and both inserted it (one failed on the unique
    // index and its process exited). The second reads after the first has committed.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('release-catalogue', 0))`);
    const platform = await tx.select().from(appVersions).where(isNull(appVersions.tenantId)).for('update');
    const carried = new Set(release.map((m) => label(m.manifest)));
    for (const module of release) {
      const { manifest } = module;
      const existing = platform.find((v) => v.name === manifest.name && v.version === manifest.version);
      if (!existing) {
        const [row] = await tx
          .insert(appVersions)
          .values({
            publisher: 'platform',
            tenantId: null,
            platformSource: 'release',
            name: manifest.name,
            version: manifest.version,
            status: 'published',
            sha256: module.sha256,
            sizeBytes: module.bytes.byteLength,
            manifest,
            provenance: RELEASE,
            publishedAt: new Date(),
          })
          .returning();
        if (row) await auditPublished(tx, row, {});
        report.published.push(label(manifest));
      } else if (existing.platformSource === 'operator') {
        if (isDeepStrictEqual(existing.manifest, manifest)) {
          await tx
            .update(appVersions)
            .set({ platformSource: 'release' })
            .where(eq(appVersions.id, existing.id));
          report.adopted.push(label(manifest));
        } else {
          logger.error(
            { app: label(manifest) },
            'release build skipped: the operator published this version with another manifest',
          );
          report.skipped.push(label(manifest));
        }
      } else if (existing.status === 'withdrawn' && !existing.withdrawnByOperator) {
        await tx
          .update(appVersions)
          .set({ status: 'published', publishedAt: new Date(), withdrawnAt: null })
          .where(eq(appVersions.id, existing.id));
        await auditPublished(tx, existing, { reason: 'back in the release' });
        report.published.push(label(manifest));
      }
    }
    for (const version of platform) {
      if (
        version.platformSource !== 'release' ||
        version.status !== 'published' ||
        carried.has(label(version))
      )
        continue;
      await tx
        .update(appVersions)
        .set({ status: 'withdrawn', withdrawnAt: new Date() })
        .where(and(eq(appVersions.id, version.id), eq(appVersions.status, 'published')));
      await recordAudit(tx, {
        tenantId: null,
        action: 'app.withdrawn',
        actor: SYSTEM,
        resource: { type: 'app_version', id: version.id },
        data: { name: version.name, version: version.version, reason: 'no longer in the release' },
      });
      report.withdrawn.push(label(version));
    }
    // Release versions recorded before the kind existed, and operator versions adopted without a bundle
    // (one that has a bundle keeps it: it says more).
    await tx
      .update(appVersions)
      .set({ provenance: RELEASE })
      .where(
        and(
          isNull(appVersions.tenantId),
          eq(appVersions.platformSource, 'release'),
          isNull(appVersions.provenance),
        ),
      );
  });
  logger.info({ release: report }, 'release catalogue reconciled');
  return report;
}
