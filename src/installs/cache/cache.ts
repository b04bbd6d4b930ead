// Cached values of an install (docs/cached-values.md):
// values a module keeps between calls with the cache host function, sealed like secrets (secrets/seal.ts
// cacheBinding) and kept in the database; the runner keeps none.
//
// A call reads the live values with the install's cache generation (readLiveCache) and, once the runner
// answers, stores what it changed (storeCacheChanges) only while that generation is still current. Every
// clear moves the generation (clearInstallCache), so a clear also holds for calls already running.
// Writers of an install's values take its row lock first, so stores and clears of one install take turns.
//
// No value goes anywhere but the sealed row and the call it is handed to: not into an answer of the api,
// an audit record, an error or a log line.
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { type Actor, recordAudit } from '../../audit/trail.ts';
import type { Database, Queryable, Tx } from '../../db/pool.ts';
import type { CacheChange, CacheEntry } from '../../runner/index.ts';
import { cacheBinding, open, seal } from '../secrets/seal.ts';
import { auditBy, type InstallContext, requireInstall } from '../service.ts';
import { appInstallCache, appInstalls } from '../tables.ts';
import type { InstallRow } from '../view.ts';
import {
  type CacheBudget,
  clearReasonOf,
  evictionChoice,
  expiryOf,
  isLive,
  planCacheChanges,
  sizeOf,
} from './cache-rules.ts';

export interface CacheInstall {
  tenantId: string;
  id: string;
}

/** What a call read: the install's cache generation then, and its live values. */
export interface CacheRead {
  generation: number;
  entries: CacheEntry[];
}

/** The generation readLiveCache answers for an install that does not exist: no store ever matches it. */
export const NO_INSTALL_GENERATION = -1;

/** The reasons of app.cache.cleared (docs/cached-values.md); an automatic upgrade moves the version. */
export type CacheClearReason = 'secret' | 'config' | 'version' | 'manual';

export interface CacheStoreResult {
  /** False when the install is gone or its values were cleared since the read: nothing was stored. */
  stored: boolean;
  /** Values written. */
  set: number;
  /** Values the call's deletes removed. */
  deleted: number;
  /** Values dropped afterwards: expired ones, then the oldest written while over budget. */
  evicted: number;
}

const NOTHING_STORED: CacheStoreResult = { stored: false, set: 0, deleted: 0, evicted: 0 };

const installIs = (install: CacheInstall) =>
  and(eq(appInstalls.id, install.id), eq(appInstalls.tenantId, install.tenantId));

const valuesOf = (install: CacheInstall) =>
  and(eq(appInstallCache.installId, install.id), eq(appInstallCache.tenantId, install.tenantId));

/** A stored value as read, still sealed. */
export interface StoredValue {
  name: string;
  sealed: Buffer;
  expiresAt: Date;
}

/** What was read of an install's cache in one snapshot: its generation then, and every stored value. */
export interface StoredCache {
  generation: number;
  values: StoredValue[];
}

/**
 * The install's stored values as one JSON value, sealed bytes in base64, by name: a subquery the call's
 * other reads take along with the install row (calls/call-install.ts resolveCall), so the generation and
 * the values come from one snapshot and a call needs no query of its own for them.
 */
export const storedValuesJson = sql<
  { name: string; sealed: string; expiresAt: string }[]
>`(select coalesce(json_agg(json_build_object('name', ${appInstallCache.name}, 'sealed', encode(${appInstallCache.sealed}, 'base64'), 'expiresAt', ${appInstallCache.expiresAt}) order by ${appInstallCache.name}), '[]'::json) from ${appInstallCache} where ${appInstallCache.installId} = ${appInstalls.id} and ${appInstallCache.tenantId} = ${appInstalls.tenantId})`;

/** storedValuesJson's answer as stored values. Pure. */
export const storedValuesOf = (json: { name: string; sealed: string; expiresAt: string }[]): StoredValue[] =>
  json.map((value) => ({
    name: value.name,
    sealed: Buffer.from(value.sealed, 'base64'),
    expiresAt: new Date(value.expiresAt),
  }));

/**
 * The live values of an install, opened with `key`, with the install's cache generation, read in one
 * statement so both come from one snapshot (liveCacheOf says what is live).
 */
export async function readLiveCache(
  db: Queryable,
  key: Buffer,
  install: CacheInstall,
  now: Date = new Date(),
): Promise<CacheRead> {
  const rows = await db
    .select({
      generation: appInstalls.cacheGeneration,
      name: appInstallCache.name,
      sealed: appInstallCache.sealed,
      expiresAt: appInstallCache.expiresAt,
    })
    .from(appInstalls)
    .leftJoin(
      appInstallCache,
      and(eq(appInstallCache.installId, appInstalls.id), eq(appInstallCache.tenantId, appInstalls.tenantId)),
    )
    .where(installIs(install))
    .orderBy(asc(appInstallCache.name));
  const first = rows[0];
  if (!first) return { generation: NO_INSTALL_GENERATION, entries: [] };
  const values = rows.flatMap(({ name, sealed, expiresAt }) =>
    name === null || sealed === null || expiresAt === null ? [] : [{ name, sealed, expiresAt }],
  );
  return liveCacheOf(db, key, install, { generation: first.generation, values }, now);
}

/**
 * The live values of an install: those read with it (`stored`: a call's resolveCall, a vendor webhook's
 * install read), opened; else read now.
 */
export const liveCacheOrRead = (db: Queryable, key: Buffer, install: CacheInstall, stored?: StoredCache) =>
  stored ? liveCacheOf(db, key, install, stored) : readLiveCache(db, key, install);

/**
 * The live values among those read, opened with `key`. A value that no longer opens (another key,
 * tampered bytes) is left out and removed; an expired one is left out and removed. A removal names the
 * exact row it saw (its bytes or its expiry), so a value rewritten meanwhile stays.
 */
export async function liveCacheOf(
  db: Queryable,
  key: Buffer,
  install: CacheInstall,
  stored: StoredCache,
  now: Date = new Date(),
): Promise<CacheRead> {
  const entries: CacheEntry[] = [];
  const unreadable: { name: string; sealed: Buffer }[] = [];
  let expired = false;
  for (const row of stored.values) {
    if (!isLive(row.expiresAt, now)) {
      expired = true;
      continue;
    }
    const value = open(key, cacheBinding(install.tenantId, install.id, row.name), row.sealed);
    if (value === null) unreadable.push({ name: row.name, sealed: row.sealed });
    else entries.push({ name: row.name, value, expiresAt: row.expiresAt.toISOString() });
  }
  for (const row of unreadable) {
    await db
      .delete(appInstallCache)
      .where(
        and(valuesOf(install), eq(appInstallCache.name, row.name), eq(appInstallCache.sealed, row.sealed)),
      );
  }
  if (expired)
    await db.delete(appInstallCache).where(and(valuesOf(install), lte(appInstallCache.expiresAt, now)));
  return { generation: stored.generation, entries };
}

/**
 * Stores what one call changed, in one transaction holding the install's row lock: nothing when the
 * install is gone or its values were cleared since `read` (generation moved). Changes apply in order
 * (cache-rules.ts planCacheChanges): a set seals and writes the value as the newest write, expiring
 * ttlSeconds (a day at most) from `now`; a delete removes a value only while it is still the one the call
 * read. Then expired values go, and while the install is over `budget` the value written longest ago.
 */
export async function storeCacheChanges(
  database: Database,
  key: Buffer,
  install: CacheInstall,
  read: CacheRead,
  changes: CacheChange[],
  budget: CacheBudget,
  now: Date = new Date(),
): Promise<CacheStoreResult> {
  // Most calls change nothing: no transaction, no lock.
  if (changes.length === 0) return { stored: true, set: 0, deleted: 0, evicted: 0 };
  return database.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ generation: appInstalls.cacheGeneration })
      .from(appInstalls)
      .where(installIs(install))
      .for('update');
    if (!row || row.generation !== read.generation) return { ...NOTHING_STORED };

    const plan = planCacheChanges(await storedValuesFor(tx, key, install, changes, now), changes);
    let deleted = 0;
    if (plan.delete.length > 0) {
      const gone = await tx
        .delete(appInstallCache)
        .where(and(valuesOf(install), inArray(appInstallCache.name, plan.delete)))
        .returning({ name: appInstallCache.name });
      deleted = gone.length;
    }
    for (const change of plan.set) {
      const sealed = seal(key, cacheBinding(install.tenantId, install.id, change.name), change.value);
      // Raw SQL for `write_seq = default`: a rewrite takes a new write_seq, so it counts as the newest
      // write (an identity column the query builder will not set).
      await tx.execute(sql`
        insert into app_install_cache (install_id, tenant_id, name, sealed, size_bytes, expires_at, updated_at)
        values (${install.id}, ${install.tenantId}, ${change.name}, ${sealed}, ${sizeOf(change.value)},
                ${expiryOf(now, change.ttlSeconds).toISOString()}, ${now.toISOString()})
        on conflict (install_id, name) do update set
          sealed = excluded.sealed, size_bytes = excluded.size_bytes, expires_at = excluded.expires_at,
          updated_at = excluded.updated_at, write_seq = default`);
    }
    const evicted = await evict(tx, install, budget, now);
    return { stored: true, set: plan.set.length, deleted, evicted };
  });
}

/**
 * The stored live values a delete of this call may touch (names it read a value of), opened. A value
 * that no longer opens is removed here too: no call could have read it.
 */
async function storedValuesFor(
  tx: Tx,
  key: Buffer,
  install: CacheInstall,
  changes: readonly CacheChange[],
  now: Date,
): Promise<Map<string, string>> {
  const names = [
    ...new Set(changes.flatMap((c) => (c?.op === 'delete' && c.readValue !== null ? [c.name] : []))),
  ];
  const stored = new Map<string, string>();
  if (names.length === 0) return stored;
  const rows = await tx
    .select({ name: appInstallCache.name, sealed: appInstallCache.sealed })
    .from(appInstallCache)
    .where(and(valuesOf(install), inArray(appInstallCache.name, names), gt(appInstallCache.expiresAt, now)));
  const unreadable: string[] = [];
  for (const row of rows) {
    const value = open(key, cacheBinding(install.tenantId, install.id, row.name), row.sealed);
    if (value === null) unreadable.push(row.name);
    else stored.set(row.name, value);
  }
  if (unreadable.length > 0) {
    await tx.delete(appInstallCache).where(and(valuesOf(install), inArray(appInstallCache.name, unreadable)));
  }
  return stored;
}

/** Drops the install's expired values, then the oldest written while it is over budget; answers how many. */
async function evict(tx: Tx, install: CacheInstall, budget: CacheBudget, now: Date): Promise<number> {
  const expired = await tx
    .delete(appInstallCache)
    .where(and(valuesOf(install), lte(appInstallCache.expiresAt, now)))
    .returning({ name: appInstallCache.name });
  const weights = await tx
    .select({
      name: appInstallCache.name,
      sizeBytes: appInstallCache.sizeBytes,
      writeSeq: appInstallCache.writeSeq,
    })
    .from(appInstallCache)
    .where(valuesOf(install));
  const leaving = evictionChoice(weights, budget);
  if (leaving.length > 0) {
    await tx.delete(appInstallCache).where(and(valuesOf(install), inArray(appInstallCache.name, leaving)));
  }
  return expired.length + leaving.length;
}

/**
 * Clears an install's cached values inside the caller's transaction and moves its cache generation, even
 * when nothing was stored, so the writes of calls already running are dropped. Answers how many live
 * values it removed (expired leftovers go too, uncounted). Audited app.cache.cleared { name, appName,
 * reason, entries }: always for a manual clear, for the automatic reasons only when values were removed
 * (a secret stored on an install that caches nothing leaves no empty record).
 */
export async function clearInstallCache(
  tx: Tx,
  install: CacheInstall & { name: string; appName: string },
  reason: CacheClearReason,
  audit: { actor: Actor; requestId: string | null },
  now: Date = new Date(),
): Promise<number> {
  // The generation first: it takes the install's row lock, so a store already holding it finishes first
  // and its values are among those removed below. updated_at stays: the install itself did not change.
  await tx
    .update(appInstalls)
    .set({ cacheGeneration: sql`${appInstalls.cacheGeneration} + 1` })
    .where(installIs(install));
  const removed = await tx
    .delete(appInstallCache)
    .where(valuesOf(install))
    .returning({ expiresAt: appInstallCache.expiresAt });
  const entries = removed.filter((row) => isLive(row.expiresAt, now)).length;
  if (entries > 0 || reason === 'manual') {
    await recordAudit(tx, {
      tenantId: install.tenantId,
      action: 'app.cache.cleared',
      actor: audit.actor,
      resource: { type: 'app_install', id: install.id },
      data: { name: install.name, appName: install.appName, reason, entries },
      requestId: audit.requestId,
    });
  }
  return entries;
}

/** Clears the cached values when a save or an approved change moved the version or changed the config. */
export async function clearCacheAfterSave(
  tx: Tx,
  before: InstallRow,
  after: InstallRow,
  audit: { actor: Actor; requestId: string | null },
): Promise<void> {
  const reason = clearReasonOf(before, after);
  if (reason) await clearInstallCache(tx, after, reason, audit);
}

// ---- the routes' services -----------------------------------------------------------------------------

export interface CacheListing {
  items: { name: string; expiresAt: string; updatedAt: string; sizeBytes: number }[];
  limits: CacheBudget;
  used: CacheBudget;
}

/**
 * GET /app-installs/:install/cache: the live values' names, expiries, last writes and sizes, never a
 * value; nothing is opened, so it answers without SECRET_STORE_KEY too.
 */
export async function listInstallCache(
  ctx: InstallContext,
  name: string,
  now: Date = new Date(),
): Promise<CacheListing> {
  const db = ctx.database.db;
  const install = await requireInstall(db, ctx.principal.tenantId, name, false);
  const rows = await db
    .select({
      name: appInstallCache.name,
      expiresAt: appInstallCache.expiresAt,
      updatedAt: appInstallCache.updatedAt,
      sizeBytes: appInstallCache.sizeBytes,
    })
    .from(appInstallCache)
    .where(and(valuesOf(install), gt(appInstallCache.expiresAt, now)))
    // Byte order, whatever the database's collation.
    .orderBy(sql`${appInstallCache.name} collate "C"`);
  return {
    items: rows.map((row) => ({
      name: row.name,
      expiresAt: row.expiresAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      sizeBytes: row.sizeBytes,
    })),
    limits: { ...ctx.settings.cacheBudget },
    used: { entries: rows.length, totalBytes: rows.reduce((sum, row) => sum + row.sizeBytes, 0) },
  };
}

/** DELETE /app-installs/:install/cache: clears the values (reason manual); answers how many went. */
export async function clearCacheManually(ctx: InstallContext, name: string): Promise<{ entries: number }> {
  return ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const entries = await clearInstallCache(tx, install, 'manual', auditBy(ctx));
    return { entries };
  });
}
