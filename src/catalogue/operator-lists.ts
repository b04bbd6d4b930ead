// What the operator reads of the catalogue (docs/operations.md "ops apps …"): every version of every
// publisher with its latest review, the block that stops it, its provenance and the installs running it;
// and the reviews, oldest first.

import { and, asc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { type ProvenanceView, provenanceView } from '../provenance/index.ts';
import { tenants } from '../tenants/tables.ts';
import { byVersionDescending, type VersionStatus } from './catalogue-rules.ts';
import type { Progress } from './operator-blocks.ts';
import { installsOfVersions, type RunningInstalls } from './operator-installs.ts';
import {
  type BlockScope,
  covers,
  type ProvenanceFilter,
  provenanceMatches,
  scopeOf,
} from './operator-rules.ts';
import { appBlocks, appReviews, appVersions } from './tables.ts';
import { reviewView } from './views.ts';

type VersionRow = typeof appVersions.$inferSelect;
type BlockRow = typeof appBlocks.$inferSelect;

export interface OperatorVersionFilter {
  /** Only the platform's versions, or only one tenant's. */
  publisher?: { platform: true } | { tenantId: string };
  appName?: string;
  status?: VersionStatus;
  provenance?: ProvenanceFilter;
}

export interface VersionBlock {
  id: string;
  scope: BlockScope;
  reason: string;
  createdBy: string;
  createdAt: string;
}

export interface VersionInstall {
  id: string;
  tenantId: string;
  tenant: string;
  name: string;
  enabled: boolean;
  autoUpgrade: 'off' | 'compatible';
  /** The approved hosts. */
  hosts: string[];
}

export interface OperatorVersion {
  id: string;
  publisher: 'platform' | 'tenant';
  platformSource: 'release' | 'operator' | null;
  tenantId: string | null;
  tenant: string | null;
  name: string;
  version: string;
  status: VersionStatus;
  sha256: string;
  hosts: string[];
  needs: string[];
  createdAt: string;
  publishedAt: string | null;
  review: ReturnType<typeof reviewView> | null;
  block: VersionBlock | null;
  provenance: ProvenanceView | null;
  installs: VersionInstall[];
}

/** Versions read per batch (their reviews and installs), the unit `progress` counts in. */
const BATCH = 500;

const blockOf = (block: BlockRow): VersionBlock => ({
  id: block.id,
  scope: scopeOf(block),
  reason: block.reason,
  createdBy: block.createdBy,
  createdAt: block.createdAt.toISOString(),
});

/** Platform first, then by tenant name, app name and version (highest first). */
function byPublisherAppVersion(
  a: { row: VersionRow; tenant: string | null },
  b: { row: VersionRow; tenant: string | null },
): number {
  return (
    (a.tenant ?? '').localeCompare(b.tenant ?? '') ||
    a.row.name.localeCompare(b.row.name) ||
    byVersionDescending(a.row, b.row)
  );
}

/** Every version the filter keeps, with its review, block, provenance and installs. */
export async function listVersionsForOperator(
  db: Queryable,
  installsOf: RunningInstalls,
  filter: OperatorVersionFilter,
  progress: Progress = () => {},
): Promise<OperatorVersion[]> {
  const conditions: SQL[] = [];
  if (filter.publisher && 'platform' in filter.publisher) conditions.push(isNull(appVersions.tenantId));
  if (filter.publisher && 'tenantId' in filter.publisher)
    conditions.push(eq(appVersions.tenantId, filter.publisher.tenantId));
  if (filter.appName !== undefined) conditions.push(eq(appVersions.name, filter.appName));
  if (filter.status !== undefined) conditions.push(eq(appVersions.status, filter.status));
  const rows = (
    await db
      .select({ row: appVersions, tenant: tenants.name })
      .from(appVersions)
      .leftJoin(tenants, eq(tenants.id, appVersions.tenantId))
      .where(and(...conditions))
  )
    .filter(({ row }) => provenanceMatches(provenanceView(row.provenance), filter.provenance ?? {}))
    .sort(byPublisherAppVersion);
  const blocks = await db
    .select()
    .from(appBlocks)
    .where(isNull(appBlocks.liftedAt))
    .orderBy(asc(appBlocks.createdAt));
  const listed: OperatorVersion[] = [];
  progress(0, rows.length);
  for (let at = 0; at < rows.length; at += BATCH) {
    const batch = rows.slice(at, at + BATCH);
    const ids = batch.map(({ row }) => row.id);
    const reviews = await db
      .select()
      .from(appReviews)
      .where(inArray(appReviews.versionId, ids))
      .orderBy(asc(appReviews.requestedAt));
    const latestReview = new Map(reviews.map((review) => [review.versionId, review]));
    const installs = await installsOfVersions(installsOf, db, ids);
    for (const { row, tenant } of batch) {
      const review = latestReview.get(row.id);
      const block = blocks.find((b) => covers(b, row));
      listed.push({
        id: row.id,
        publisher: row.publisher,
        platformSource: row.publisher === 'platform' ? row.platformSource : null,
        tenantId: row.tenantId,
        tenant,
        name: row.name,
        version: row.version,
        status: row.status,
        sha256: row.sha256,
        hosts: row.manifest.hosts,
        needs: row.manifest.needs,
        createdAt: row.createdAt.toISOString(),
        publishedAt: row.publishedAt?.toISOString() ?? null,
        review: review ? reviewView(review) : null,
        block: block ? blockOf(block) : null,
        provenance: provenanceView(row.provenance),
        installs: installs
          .filter((install) => install.versionId === row.id)
          .map(({ id, tenantId, tenant: tenantName, name, enabled, autoUpgrade, hosts }) => ({
            id,
            tenantId,
            tenant: tenantName,
            name,
            enabled,
            autoUpgrade,
            hosts,
          })),
      });
    }
    progress(listed.length, rows.length);
  }
  return listed;
}

export interface ListedReview extends ReturnType<typeof reviewView> {
  tenant: string;
  name: string;
  version: string;
  sha256: string;
  /** The block that would refuse approving it, if any. */
  block: VersionBlock | null;
}

/** The operator's reviews oldest first: the pending ones, or every one with `all`. */
export async function listReviews(db: Queryable, options: { all: boolean }): Promise<ListedReview[]> {
  const rows = await db
    .select({ review: appReviews, version: appVersions, tenant: tenants.name })
    .from(appReviews)
    .innerJoin(appVersions, eq(appVersions.id, appReviews.versionId))
    .innerJoin(tenants, eq(tenants.id, appReviews.tenantId))
    .where(options.all ? undefined : eq(appReviews.status, 'pending'))
    .orderBy(asc(appReviews.requestedAt), asc(appReviews.id));
  const blocks = await db
    .select()
    .from(appBlocks)
    .where(isNull(appBlocks.liftedAt))
    .orderBy(asc(appBlocks.createdAt));
  return rows.map(({ review, version, tenant }) => {
    const block = blocks.find((b) => covers(b, version));
    return {
      ...reviewView(review),
      tenant,
      name: version.name,
      version: version.version,
      sha256: version.sha256,
      block: block ? blockOf(block) : null,
    };
  });
}
