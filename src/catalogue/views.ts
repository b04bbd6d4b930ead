// The AppVersionSummary (docs/catalogue.md "Reading"), and the review it carries for a tenant's own version.

import { provenanceView } from '../provenance/index.ts';
import type { appReviews, appVersions } from './tables.ts';

type VersionRow = typeof appVersions.$inferSelect;
type ReviewRow = typeof appReviews.$inferSelect;

export function reviewView(review: ReviewRow) {
  return {
    id: review.id,
    tenantId: review.tenantId,
    versionId: review.versionId,
    status: review.status,
    requestedBy: review.requestedBy,
    requestedAt: review.requestedAt.toISOString(),
    decidedBy: review.decidedBy,
    decidedAt: review.decidedAt?.toISOString() ?? null,
    comment: review.comment,
  };
}

/** An operator's block in force covering a version, as the catalogue's reads show it. */
export interface BlockView {
  scope: 'module' | 'app';
  reason: string;
  blockedAt: string;
}

export function versionSummary(row: VersionRow, review: ReviewRow | null = null) {
  const m = row.manifest;
  return {
    id: row.id,
    publisher: row.publisher,
    platformSource: row.publisher === 'platform' ? row.platformSource : null,
    name: row.name,
    version: row.version,
    status: row.status,
    sha256: row.sha256,
    sizeBytes: row.sizeBytes,
    title: m.title ?? null,
    description: m.description ?? null,
    category: m.category ?? null,
    vendor: m.vendor ?? null,
    docsUrl: m.docsUrl ?? null,
    pricingNote: m.pricingNote ?? null,
    capabilities: m.capabilities,
    secrets: m.secrets,
    hosts: m.hosts,
    hostsFromConfig: m.hostsFromConfig,
    secretsFromConfig: m.secretsFromConfig ?? null,
    needs: m.needs,
    documentsFromConfig: m.documentsFromConfig ?? null,
    memoryMiB: m.memoryMiB,
    handles: m.handles,
    actions: m.actions.map(({ input, output, ...action }) => ({
      ...action,
      inputSchema: input,
      outputSchema: output,
    })),
    configSchema: m.configSchema,
    createdAt: row.createdAt.toISOString(),
    publishedAt: row.publishedAt?.toISOString() ?? null,
    review: review ? reviewView(review) : null,
    provenance: provenanceView(row.provenance),
  };
}

export type VersionSummary = ReturnType<typeof versionSummary>;
