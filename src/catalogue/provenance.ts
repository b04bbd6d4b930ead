// Attaching a Sigstore bundle to an uploaded version of the tenant's own (docs/provenance.md "The
// route"): verified against the stored module, recorded (replacing any earlier), audited.
import { eq } from 'drizzle-orm';
import { auditedBy } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Tx } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import {
  ProvenanceInvalid,
  type ProvenanceRecord,
  parseBundle,
  provenanceView,
  type RootLoader,
  RootsUnavailable,
  trustPolicy,
  verifyBundle,
} from '../provenance/index.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';
import { type LifecycleContext, lockOwnVersion, pendingRequest, pendingReview } from './lifecycle.ts';
import { appVersions } from './tables.ts';
import { versionSummary } from './views.ts';

type VersionRow = typeof appVersions.$inferSelect;

export interface ProvenanceDeps {
  storage: ModuleStorage;
  roots: RootLoader;
}

/** Why a version's provenance is fixed, or null while it may change. */
async function lockReason(tx: Tx, version: VersionRow): Promise<string | null> {
  if (version.status !== 'uploaded') return version.status;
  if (await pendingRequest(tx, version.id)) return 'publish_request_open';
  if (await pendingReview(tx, version.id)) return 'review_pending';
  return null;
}

/** The trusted roots, or 503 provenance_unavailable. */
export async function loadRoots(roots: RootLoader) {
  try {
    return await roots();
  } catch (error) {
    if (error instanceof RootsUnavailable) throw new ApiError('provenance_unavailable', error.message);
    throw error;
  }
}

/** A bundle's verification as the api answers it: ProvenanceInvalid becomes 400 provenance_invalid. */
export function verifiedRecord(
  json: unknown,
  subject: Parameters<typeof verifyBundle>[1],
  roots: Parameters<typeof verifyBundle>[2],
): ProvenanceRecord {
  try {
    return verifyBundle(parseBundle(json), subject, roots, trustPolicy());
  } catch (error) {
    if (error instanceof ProvenanceInvalid)
      throw new ApiError('provenance_invalid', error.message, { reason: error.reason });
    throw error;
  }
}

export async function attachProvenance(
  ctx: LifecycleContext,
  deps: ProvenanceDeps,
  target: { name: string; id: string },
  bundle: unknown,
) {
  const roots = await loadRoots(deps.roots);
  return ctx.database.db.transaction(async (tx) => {
    const version = await lockOwnVersion(tx, ctx.principal.tenantId, target.name, target.id);
    const reason = await lockReason(tx, version);
    if (reason !== null)
      throw new ApiError('provenance_locked', `the version’s provenance is fixed (${reason})`, { reason });
    const module = await deps.storage.get(version.sha256);
    if (!module) throw new Error(`module ${version.sha256} is missing from module storage`);
    const record = verifiedRecord(bundle, { module, sha256: version.sha256 }, roots);
    const [updated] = await tx
      .update(appVersions)
      .set({ provenance: record as unknown as Record<string, unknown> })
      .where(eq(appVersions.id, version.id))
      .returning();
    const shown = provenanceView(record);
    await recordAudit(tx, {
      ...auditedBy(ctx),
      action: 'app.provenance.attached',
      resource: { type: 'app_version', id: version.id },
      data: {
        name: version.name,
        version: version.version,
        kind: record.kind,
        signer: record.signer,
        trusted: shown?.trusted ?? false,
        trustedSigner: shown?.trustedSigner ?? null,
      },
    });
    return versionSummary(updated as VersionRow);
  });
}
