// What a tenant sees of the catalogue: platform versions (published or withdrawn) and its own; its own
// uploaded versions only with apps:publish (the tenant's administrators).
import { and, asc, desc, eq, inArray, ne, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { byVersionDescending, latestOf } from './catalogue-rules.ts';
import { approvalView } from './lifecycle.ts';
import { appPublishRequests, appReviews, appVersions } from './tables.ts';
import { type VersionSummary, versionSummary } from './views.ts';

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

function entriesOf(
  rows: VersionRow[],
  reviews: Map<string, typeof appReviews.$inferSelect>,
  installsOf: (name: string) => string[],
): AppEntry[] {
  const byApp = new Map<string, VersionRow[]>();
  for (const row of rows)
    byApp.set(`${row.publisher}:${row.name}`, [...(byApp.get(`${row.publisher}:${row.name}`) ?? []), row]);
  return [...byApp.values()]
    .map((versions) => {
      const latest = latestOf(versions) as VersionRow;
      return {
        name: latest.name,
        publisher: latest.publisher,
        latest: versionSummary(latest, reviews.get(latest.id) ?? null),
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
  return entriesOf(rows, await latestReviews(db, rows), await installs(principal.tenantId));
}

export async function listVersions(db: Queryable, principal: AuthenticatedPrincipal, name: string) {
  const rows = (await visibleVersions(db, principal, name)).sort(byVersionDescending);
  const reviews = await latestReviews(db, rows);
  return rows.map((row) => versionSummary(row, reviews.get(row.id) ?? null));
}

export async function getApp(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  name: string,
  installs: InstallNames = noInstalls,
) {
  const rows = await visibleVersions(db, principal, name);
  if (rows.length === 0) return null;
  const reviews = await latestReviews(db, rows);
  const [entry] = entriesOf(rows, reviews, await installs(principal.tenantId));
  return {
    ...(entry as AppEntry),
    items: rows.sort(byVersionDescending).map((r) => versionSummary(r, reviews.get(r.id) ?? null)),
  };
}

/**
 * Publish requests of the tenant's own versions: open oldest first, or decided newest first. Only those
 * of versions the caller sees: without apps:publish, none of a version still uploaded.
 */
export async function listApprovals(db: Queryable, principal: AuthenticatedPrincipal, open: boolean) {
  const status = open ? eq(appPublishRequests.status, 'pending') : ne(appPublishRequests.status, 'pending');
  const rows = await db
    .select({ request: appPublishRequests, name: appVersions.name, version: appVersions.version })
    .from(appPublishRequests)
    .innerJoin(appVersions, eq(appVersions.id, appPublishRequests.versionId))
    .where(and(eq(appPublishRequests.tenantId, principal.tenantId), status, visibleTo(principal)))
    .orderBy(open ? asc(appPublishRequests.requestedAt) : desc(appPublishRequests.decidedAt));
  return rows.map((r) => approvalView(r.request, r));
}
