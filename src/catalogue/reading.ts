// What a tenant sees of the catalogue: platform versions (published or withdrawn) and its own; its own
// uploaded versions only with apps:publish (the tenant's administrators).
import { and, asc, desc, eq, inArray, ne, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { countCapped } from '../http/page-count.ts';
import { blocksOfVersionRow } from './blocks.ts';
import { byVersionDescending, latestOf } from './catalogue-rules.ts';
import { approvalView } from './lifecycle.ts';
import { appBlocks, appPublishRequests, appReviews, appVersions } from './tables.ts';
import { type BlockView, type VersionSummary, versionSummary } from './views.ts';

type VersionRow = typeof appVersions.$inferSelect;

function visibleTo(principal: AuthenticatedPrincipal): SQL {
  const own = principal.permissions.has('apps:publish')
    ? eq(appVersions.tenantId, principal.tenantId)
    : and(eq(appVersions.tenantId, principal.tenantId), ne(appVersions.status, 'uploaded'));
  const platform = and(eq(appVersions.publisher, 'platform'), ne(appVersions.status, 'uploaded'));
  return or(platform, own) as SQL;
}

async function visibleVersions(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  name?: string,
): Promise<VersionRow[]> {
  const where = name ? and(visibleTo(principal), eq(appVersions.name, name)) : visibleTo(principal);
  return db.select().from(appVersions).where(where);
}

/** The oldest block in force covering each version that has one (by its hash, or its whole app). */
async function blocksOf(db: Queryable, rows: VersionRow[]): Promise<Map<string, BlockView>> {
  if (rows.length === 0) return new Map();
  const found = await db
    .select({ versionId: appVersions.id, block: appBlocks })
    .from(appVersions)
    .innerJoin(appBlocks, blocksOfVersionRow())
    .where(
      inArray(
        appVersions.id,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(desc(appBlocks.createdAt), desc(appBlocks.id));
  // Newest first, so the oldest block of each version is the one kept.
  return new Map(
    found.map(({ versionId, block }) => [
      versionId,
      {
        scope: block.sha256 === null ? 'app' : 'module',
        reason: block.reason,
        blockedAt: block.createdAt.toISOString(),
      },
    ]),
  );
}

/** What the catalogue's reads add to each version: the operator's latest review, a block in force. */
interface Notes {
  reviews: Map<string, typeof appReviews.$inferSelect>;
  blocks: Map<string, BlockView>;
}

async function notesOf(db: Queryable, rows: VersionRow[]): Promise<Notes> {
  const [reviews, blocks] = await Promise.all([latestReviews(db, rows), blocksOf(db, rows)]);
  return { reviews, blocks };
}

const summaryOf = (row: VersionRow, notes: Notes) => ({
  ...versionSummary(row, notes.reviews.get(row.id) ?? null),
  block: notes.blocks.get(row.id) ?? null,
});

/** The operator's latest review of each of the tenant's own versions. */
async function latestReviews(db: Queryable, rows: VersionRow[]) {
  const own = rows.filter((r) => r.publisher === 'tenant').map((r) => r.id);
  if (own.length === 0) return new Map<string, typeof appReviews.$inferSelect>();
  const reviews = await db
    .select()
    .from(appReviews)
    .where(inArray(appReviews.versionId, own))
    .orderBy(asc(appReviews.requestedAt));
  return new Map(reviews.map((r) => [r.versionId, r]));
}

export interface AppEntry {
  name: string;
  publisher: 'platform' | 'tenant';
  latest: VersionSummary;
  versions: number;
  installs: string[];
}

function entriesOf(rows: VersionRow[], notes: Notes, installsOf: (name: string) => string[]): AppEntry[] {
  const byApp = new Map<string, VersionRow[]>();
  for (const row of rows)
    byApp.set(`${row.publisher}:${row.name}`, [...(byApp.get(`${row.publisher}:${row.name}`) ?? []), row]);
  return [...byApp.values()]
    .map((versions) => {
      const latest = latestOf(versions) as VersionRow;
      return {
        name: latest.name,
        publisher: latest.publisher,
        latest: summaryOf(latest, notes),
        versions: versions.length,
        installs: installsOf(latest.name),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.publisher.localeCompare(b.publisher));
}

/** Installs by app name (src/installs/service.ts installNamesOf); without one, no app has installs. */
export type InstallNames = (tenantId: string) => Promise<(name: string) => string[]>;
export const noInstalls: InstallNames = async () => () => [];

export async function listApps(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  installs: InstallNames = noInstalls,
) {
  const rows = await visibleVersions(db, principal);
  return entriesOf(rows, await notesOf(db, rows), await installs(principal.tenantId));
}

export async function listVersions(db: Queryable, principal: AuthenticatedPrincipal, name: string) {
  const rows = (await visibleVersions(db, principal, name)).sort(byVersionDescending);
  const notes = await notesOf(db, rows);
  return rows.map((row) => summaryOf(row, notes));
}

export async function getApp(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  name: string,
  installs: InstallNames = noInstalls,
) {
  const rows = await visibleVersions(db, principal, name);
  if (rows.length === 0) return null;
  const notes = await notesOf(db, rows);
  const [entry] = entriesOf(rows, notes, await installs(principal.tenantId));
  return {
    ...(entry as AppEntry),
    items: rows.sort(byVersionDescending).map((r) => summaryOf(r, notes)),
  };
}

/**
 * Publish requests of the tenant's own versions: open oldest first, or decided newest first, paged. Only
 * those of versions the caller sees: without apps:publish, none of a version still uploaded.
 */
export async function listApprovals(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  query: { open: boolean; limit: number; offset: number },
) {
  const r = appPublishRequests;
  const seen = db.select({ id: appVersions.id }).from(appVersions).where(visibleTo(principal));
  const where = and(
    eq(r.tenantId, principal.tenantId),
    query.open ? eq(r.status, 'pending') : ne(r.status, 'pending'),
    inArray(r.versionId, seen),
  );
  const rows = await db
    .select({ request: r, name: appVersions.name, version: appVersions.version })
    .from(r)
    .innerJoin(appVersions, eq(appVersions.id, r.versionId))
    .where(where)
    .orderBy(...(query.open ? [asc(r.requestedAt), asc(r.id)] : [desc(r.decidedAt), desc(r.id)]))
    .limit(query.limit)
    .offset(query.offset);
  return { items: rows.map((row) => approvalView(row.request, row)), ...(await countCapped(db, r, where)) };
}
