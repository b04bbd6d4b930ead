// Attaching a Sigstore bundle to an uploaded version of the tenant's own (docs/provenance.md "The
// route"): verified against the stored module, recorded (replacing any earlier), audited.
import { eq } from 'drizzle-orm';
import { auditedBy } from '../../audit/actor.ts';
import { recordAudit } from '../../audit/trail.ts';
import type { Tx } from '../../db/pool.ts';
import { ApiError } from '../../http/errors.ts';
import {
  type Bundle,
  checkContent,
  ProvenanceInvalid,
  parseBundle,
  provenanceView,
  type RootLoader,
  RootsUnavailable,
  type Subject,
  trustPolicy,
  verifyBundle,
} from '../../provenance/index.ts';
import type { ModuleStorage } from '../../storage/module-storage.ts';
import { type LifecycleContext, lockOwnVersion, pendingRequest, pendingReview } from '../lifecycle.ts';
import { appVersions } from '../tables.ts';
import { versionSummary } from '../views.ts';

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
async function loadRoots(roots: RootLoader): Promise<TrustedRoots> {
  try {
    return await roots();
  } catch (error) {
    if (error instanceof RootsUnavailable) throw new ApiError('provenance_unavailable', error.message);
    throw error;
  }
}

type TrustedRoots = Parameters<typeof verifyBundle>[2];

/** A step of the verification as the api answers it: ProvenanceInvalid becomes 400 provenance_invalid. */
function asAnswered<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof ProvenanceInvalid)
      throw new ApiError('provenance_invalid', error.message, { reason: error.reason });
    throw error;
  }
}

/**
 * The bundle, if it is one naming this module: 400 provenance_invalid (malformed, unsupported,
 * digest_mismatch) otherwise. Needs no trusted root, so a bundle refused here is refused even while the
 * roots cannot be loaded: a malformed bundle is the author's to fix, never "try again later".
 */
function namingBundle(json: unknown, sha256: string): Bundle {
  return asAnswered(() => {
    const bundle = parseBundle(json);
    checkContent(bundle, sha256);
    return bundle;
  });
}

/**
 * A bundle's record as the api and `ops platform publish --bundle` answer it, in this order: what can be
 * refused without the trusted roots (400), then the roots (503 provenance_unavailable), then the signature
 * under them (400 provenance_invalid, reason signature).
 */
export async function verifiedRecord(json: unknown, subject: Subject, roots: RootLoader) {
  const bundle = namingBundle(json, subject.sha256);
  const loaded = await loadRoots(roots);
  return asAnswered(() => verifyBundle(bundle, subject, loaded, trustPolicy()));
}

/**
 * The tenant's own version, locked, whose provenance may change and which the bundle names: 404
 * not_found, 409 provenance_locked, 400 provenance_invalid otherwise.
 */
async function openVersion(
  tx: Tx,
  ctx: LifecycleContext,
  target: { name: string; id: string },
  json: unknown,
) {
  const version = await lockOwnVersion(tx, ctx.principal.tenantId, target.name, target.id);
  const reason = await lockReason(tx, version);
  if (reason !== null)
    throw new ApiError('provenance_locked', `the version’s provenance is fixed (${reason})`, { reason });
  return { version, bundle: namingBundle(json, version.sha256) };
}

export async function attachProvenance(
  ctx: LifecycleContext,
  deps: ProvenanceDeps,
  target: { name: string; id: string },
  json: unknown,
) {
  // What can be refused without the trusted roots is refused before they are loaded (the version, its
  // lock, the bundle's shape and subject), and without holding the version's row while a root is fetched.
  // The transaction that records checks them again: the version may have moved in between.
  asAnswered(() => parseBundle(json));
  await ctx.database.db.transaction((tx) => openVersion(tx, ctx, target, json));
  const roots = await loadRoots(deps.roots);
  return ctx.database.db.transaction(async (tx) => {
    const { version, bundle } = await openVersion(tx, ctx, target, json);
    const module = await deps.storage.get(version.sha256);
    if (!module) throw new Error(`module ${version.sha256} is missing from module storage`);
    const subject = { module, sha256: version.sha256 };
    const record = asAnswered(() => verifyBundle(bundle, subject, roots, trustPolicy()));
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
