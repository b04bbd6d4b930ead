// Which modules runners may fetch (GET /internal/app-modules/:sha256): a module some version uses that
// is published, or that an install still runs or a pending vendor session still needs (a withdrawn
// version keeps running for its installs and sessions until they move), and never a blocked one. An
// upload never published, and bytes no version names, are not served.
import { and, eq, inArray } from 'drizzle-orm';
import { findBlock } from '../catalogue/blocks.ts';
import { appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { appInstalls } from '../installs/index.ts';
import { appCallbacks } from '../vendor-sessions/index.ts';

export async function moduleServable(db: Queryable, sha256: string): Promise<boolean> {
  const versions = await db
    .select({
      id: appVersions.id,
      status: appVersions.status,
      publisher: appVersions.publisher,
      tenantId: appVersions.tenantId,
      name: appVersions.name,
    })
    .from(appVersions)
    .where(eq(appVersions.sha256, sha256));
  if (versions.length === 0) return false;
  for (const { publisher, tenantId, name } of versions) {
    if (await findBlock(db, { sha256, publisher, tenantId, name })) return false;
  }
  if (versions.some((v) => v.status === 'published')) return true;
  return stillRunning(
    db,
    versions.map((v) => v.id),
  );
}

/** Whether an install runs one of these versions, or a pending vendor session waits on one. */
async function stillRunning(db: Queryable, versionIds: string[]): Promise<boolean> {
  const [install] = await db
    .select({ id: appInstalls.id })
    .from(appInstalls)
    .where(inArray(appInstalls.versionId, versionIds))
    .limit(1);
  if (install) return true;
  const [session] = await db
    .select({ id: appCallbacks.id })
    .from(appCallbacks)
    .where(and(inArray(appCallbacks.versionId, versionIds), eq(appCallbacks.status, 'pending')))
    .limit(1);
  return session !== undefined;
}
