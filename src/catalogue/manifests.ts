// A version's manifest is written once, with the version, and never changed: another manifest is another
// version under another random id. So this process keeps each manifest it has read, parsed and frozen, by
// version id, and the reads on the hot path (a call's resolveCall, a vendor webhook's install and session)
// select the version's other columns only. Sending the manifest cost PostgreSQL a print of the jsonb and
// this process a parse on every call: 19 KB for http-connector (issue 48). Frozen, because every call
// shares the object.
import { eq, getTableColumns } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { Manifest } from '../module/index.ts';
import { appVersions } from './tables.ts';

const { manifest: _manifest, ...withoutManifest } = getTableColumns(appVersions);

/** The columns of `app_versions` but its manifest: select them, then `withManifest`. */
export const versionColumnsWithoutManifest = withoutManifest;

/** Enough for every version a process runs; past it the oldest kept is dropped, and read again if needed. */
const KEPT = 1024;
const kept = new Map<string, Manifest>();

type Versioned = { id: string };

/** The version with its manifest: the one kept, or read once (one statement) and kept. */
export async function withManifest<V extends Versioned>(
  db: Queryable,
  version: V,
): Promise<V & { manifest: Manifest }> {
  return { ...version, manifest: kept.get(version.id) ?? (await readManifest(db, version.id)) };
}

async function readManifest(db: Queryable, versionId: string): Promise<Manifest> {
  const [row] = await db
    .select({ manifest: appVersions.manifest })
    .from(appVersions)
    .where(eq(appVersions.id, versionId));
  // Installs, sessions and runs hold their version by a foreign key: a version read a moment ago is there.
  if (!row) throw new Error(`app version ${versionId} vanished while it was read`);
  const manifest = deepFrozen(row.manifest);
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(versionId, manifest);
  return manifest;
}

function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}
