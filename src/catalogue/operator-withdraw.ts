// The operator's withdraw of a tenant's version (docs/operations.md "ops apps …"), whatever its status:
// the same change as the tenant's own withdraw (lifecycle.ts withdrawLocked: its open publish request and
// pending review become withdrawn), audited `app.withdrawn` with `via: "operator"` and the reason in both
// trails. A version already withdrawn is answered as it stands (the command's goal is met; a script may
// run it twice), with nothing changed or recorded again. A platform version is withdrawn with
// `ops platform withdraw` (409 conflict here).
import { eq } from 'drizzle-orm';
import { operatorActor } from '../audit/actor.ts';
import { recordInBothTrails } from '../audit/both-trails.ts';
import type { Database } from '../db/pool.ts';
import { conflict, notFound, validationError } from '../http/errors.ts';
import { latestReviewOf, withdrawLocked } from './lifecycle.ts';
import { MAX_REASON_LENGTH } from './operator-blocks.ts';
import { installsOfVersions, type RunningInstall, type RunningInstalls } from './operator-installs.ts';
import { isUuid, rollbackCandidates } from './operator-rules.ts';
import { appVersions } from './tables.ts';
import { type VersionSummary, versionSummary } from './views.ts';

export interface OperatorWithdrawal {
  versionId: string;
  reason: string;
  /** The operator's name, as given with --by. */
  by: string;
}

export interface WithdrawOutcome {
  version: VersionSummary;
  /** True when the version was withdrawn before this command: nothing changed, nothing recorded. */
  alreadyWithdrawn: boolean;
  tenantId: string;
  approvalId: string | null;
  reviewId: string | null;
  /** The installs still running the version (a withdrawn version keeps running for them). */
  installs: RunningInstall[];
  /** Of those, the installs the automatic upgrades must roll back. */
  rollback: string[];
}

/**
 * 404 not_found for an unknown version, 409 conflict for a platform version, 400 validation_error for a
 * reason that is empty or longer than 1000 characters.
 */
export async function withdrawByOperator(
  database: Database,
  installsOf: RunningInstalls,
  request: OperatorWithdrawal,
): Promise<WithdrawOutcome> {
  const length = [...request.reason].length;
  if (length < 1 || length > MAX_REASON_LENGTH)
    throw validationError(
      [{ path: '/reason', message: `must be 1 to ${MAX_REASON_LENGTH} characters` }],
      'not a withdrawal',
    );
  if (!isUuid(request.versionId)) throw notFound('no version has that id');
  return database.db.transaction(async (tx) => {
    const [version] = await tx
      .select()
      .from(appVersions)
      .where(eq(appVersions.id, request.versionId))
      .for('update');
    if (!version) throw notFound('no version has that id');
    if (version.publisher === 'platform' || version.tenantId === null)
      throw conflict('a platform version: use ops platform withdraw');
    if (version.status === 'withdrawn') {
      const installs = await installsOfVersions(installsOf, tx, [version.id]);
      return {
        version: versionSummary(version, await latestReviewOf(tx, version.id)),
        alreadyWithdrawn: true,
        tenantId: version.tenantId,
        approvalId: null,
        reviewId: null,
        installs,
        // The first withdraw rolled back what it stopped; nothing new is stopped now.
        rollback: [],
      };
    }
    const done = await withdrawLocked(tx, version, request.by);
    await recordInBothTrails(tx, version.tenantId, {
      action: 'app.withdrawn',
      actor: operatorActor(request.by),
      resource: { type: 'app_version', id: version.id },
      data: {
        name: version.name,
        version: version.version,
        via: 'operator',
        reason: request.reason,
        approvalId: done.approvalId,
        reviewId: done.reviewId,
      },
    });
    const installs = await installsOfVersions(installsOf, tx, [version.id]);
    return {
      version: versionSummary(done.withdrawn, done.latestReview),
      alreadyWithdrawn: false,
      tenantId: version.tenantId,
      approvalId: done.approvalId,
      reviewId: done.reviewId,
      installs,
      rollback: rollbackCandidates(installs),
    };
  });
}
