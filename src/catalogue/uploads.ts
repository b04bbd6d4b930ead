// POST /apps/uploads: the runner inspects, the api caps and hashes with the same shared code, and the
// version row and the stored module commit together (a losing concurrent upload stores nothing).
import { and, eq } from 'drizzle-orm';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import type { RunnerFailureCode, RunnerTransportCode } from '../http/error-codes.ts';
import { ApiError, conflict } from '../http/errors.ts';
import { type Manifest, prepareModule } from '../module/index.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';
import { assertNotBlocked } from './blocks.ts';
import { appVersions } from './tables.ts';
import { versionSummary } from './views.ts';

export type InspectOutcome =
  | {
      ok: true;
      verdict:
        | { accepted: true; manifest: Manifest; sha256: string }
        | { accepted: false; code: string; message: string; path?: string };
    }
  | { ok: false; code: RunnerFailureCode | RunnerTransportCode; message: string };

/**
 * Asks a runner to inspect an upload (only a runner runs an upload's manifest export); the inspection counts
 * against the uploading tenant's concurrency there.
 */
export type Inspector = (bytes: Uint8Array, tenantId: string) => Promise<InspectOutcome>;

export interface UploadDeps {
  database: Database;
  storage: ModuleStorage;
  inspect: Inspector;
}

export async function uploadVersion(
  deps: UploadDeps,
  principal: AuthenticatedPrincipal,
  bytes: Uint8Array,
  requestId: string,
) {
  const outcome = await deps.inspect(bytes, principal.tenantId);
  if (!outcome.ok)
    throw new ApiError(
      `runner_${outcome.code}`,
      `the runner failed while inspecting the upload: ${outcome.message}`,
    );
  const verdict = outcome.verdict;
  if (!verdict.accepted) {
    if (verdict.code === 'too_large') throw new ApiError('payload_too_large', verdict.message);
    throw new ApiError('validation_error', verdict.message, {
      code: verdict.code,
      issues: [{ path: verdict.path ? `manifest.${verdict.path}` : '/', message: verdict.message }],
    });
  }
  const { manifest } = verdict;
  const prepared = await prepareModule(bytes, manifest);
  if (!prepared.ok)
    throw new ApiError('validation_error', prepared.message, {
      code: prepared.code,
      issues: [{ path: '/', message: prepared.message }],
    });
  if (prepared.sha256 !== verdict.sha256)
    throw new ApiError('runner_internal', 'the runner and the api disagree on the module hash');

  const db = deps.database.db;
  const [platformApp] = await db
    .select({ id: appVersions.id })
    .from(appVersions)
    .where(and(eq(appVersions.publisher, 'platform'), eq(appVersions.name, manifest.name)))
    .limit(1);
  if (platformApp) throw conflict(`${manifest.name} is a platform app's name`);
  await assertNotBlocked(db, {
    sha256: prepared.sha256,
    publisher: 'tenant',
    tenantId: principal.tenantId,
    name: manifest.name,
  });

  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(appVersions)
        .values({
          publisher: 'tenant',
          tenantId: principal.tenantId,
          platformSource: null,
          name: manifest.name,
          version: manifest.version,
          status: 'uploaded',
          sha256: prepared.sha256,
          sizeBytes: prepared.sizeBytes,
          manifest,
          uploadedBy: principal.subject,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      await deps.storage.put(prepared.bytes);
      await recordAudit(tx, {
        tenantId: principal.tenantId,
        action: 'app.uploaded',
        actor: actorOf(principal),
        resource: { type: 'app_version', id: row.id },
        data: { name: row.name, version: row.version, sha256: row.sha256, sizeBytes: row.sizeBytes },
        requestId,
      });
      return versionSummary(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw conflict(`version ${manifest.version} of ${manifest.name} already exists`, {
        name: manifest.name,
        version: manifest.version,
      });
    }
    throw error;
  }
}
