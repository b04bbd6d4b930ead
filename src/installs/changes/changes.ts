// Install changes: the list and the decisions (docs/install-changes.md "Approve", "Reject and withdraw",
// "The list"). Saves open changes (../service.ts through changes-store.ts); here they are approved,
// rejected or withdrawn. Each decision locks the install's row, then the change's, in one transaction:
// the same order a save takes, so a decision and a save of one install take turns and neither is lost.
import { isDeepStrictEqual } from 'node:util';
import { and, asc, desc, eq, inArray, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm';
import semver from 'semver';
import { decisionRefusal, refusalError } from '../../approvals/four-eyes-rules.ts';
import { assertNotBlocked } from '../../catalogue/blocks.ts';
import type { Tx } from '../../db/pool.ts';
import { ApiError, conflict, notFound } from '../../http/errors.ts';
import { countCapped, type Page } from '../../http/paging.ts';
import { clearCacheAfterSave } from '../cache/cache.ts';
import { addedHosts, removedHosts } from '../hosts.ts';
import { blockTarget, configIssues, missingSecrets, sameApp } from '../plan.ts';
import { auditDocumentsMove } from '../saves.ts';
import {
  audit,
  auditBy,
  configuredData,
  type InstallContext,
  installedData,
  nextUpdatedAt,
  readVersion,
  requireInstall,
} from '../service.ts';
import { appInstallChanges, appInstallSecrets, appInstalls, type ChangeDecision } from '../tables.ts';
import { recordUpgraded } from '../upgrade/upgrade-moves.ts';
import { type InstallRow, readStoredSecretNames } from '../view.ts';
import {
  type ChangeRow,
  type ChangeView,
  changeMovesVersion,
  changeView,
  sameHosts,
  versionApprovable,
} from './changes-rules.ts';
import { auditDecided, decisionBy } from './changes-store.ts';

export type ChangeStatus = 'open' | 'decided';

export interface ChangeQuery {
  status: ChangeStatus;
  /** An install's current name: its changes, and decided changes of a removed install of that name. */
  install?: string;
  limit: number;
  offset: number;
}

/** GET /app-install-changes: open ones oldest first, or decided ones newest first. */
export async function listChanges(ctx: InstallContext, query: ChangeQuery): Promise<Page<ChangeView>> {
  const db = ctx.database.db;
  const tenantId = ctx.principal.tenantId;
  const conditions: (SQL | undefined)[] = [
    eq(appInstallChanges.tenantId, tenantId),
    query.status === 'open' ? isNull(appInstallChanges.decision) : isNotNull(appInstallChanges.decision),
  ];
  if (query.install !== undefined) {
    const named = db
      .select({ id: appInstalls.id })
      .from(appInstalls)
      .where(and(eq(appInstalls.tenantId, tenantId), eq(appInstalls.name, query.install)));
    conditions.push(
      or(
        inArray(appInstallChanges.installId, named),
        and(isNull(appInstallChanges.installId), eq(appInstallChanges.installName, query.install)),
      ),
    );
  }
  const where = and(...conditions);
  const order =
    query.status === 'open'
      ? [asc(appInstallChanges.requestedAt), asc(appInstallChanges.id)]
      : [desc(appInstallChanges.decidedAt), desc(appInstallChanges.id)];
  const rows = await db
    .select({ change: appInstallChanges, currentName: appInstalls.name })
    .from(appInstallChanges)
    .leftJoin(appInstalls, eq(appInstalls.id, appInstallChanges.installId))
    .where(where)
    .orderBy(...order)
    .limit(query.limit)
    .offset(query.offset);
  const counted = await countCapped(db, appInstallChanges, where);
  return { items: rows.map((r) => changeView(r.change, r.currentName)), ...counted };
}

/**
 * The install of that current name (404 unknown_install) and its change of that id (404 not_found: a
 * change of another install or tenant is unknown here), both locked for this transaction.
 */
async function lockedChange(tx: Tx, ctx: InstallContext, installName: string, changeId: string) {
  const install = await requireInstall(tx, ctx.principal.tenantId, installName, true);
  const [change] = await tx
    .select()
    .from(appInstallChanges)
    .where(
      and(
        eq(appInstallChanges.id, changeId),
        eq(appInstallChanges.tenantId, ctx.principal.tenantId),
        eq(appInstallChanges.installId, install.id),
      ),
    )
    .for('update');
  if (!change) throw notFound('this install has no change of that id');
  if (change.decision !== null) {
    throw conflict(`this change is already decided (${change.decision})`, {
      changeId: change.id,
      decision: change.decision,
    });
  }
  return { install, change };
}

/** Throws when the principal may not take the decision on the change (the approvals' one rule). */
function refuseDecision(change: ChangeRow, decision: ChangeDecision, ctx: InstallContext): void {
  const refusal = decisionRefusal('install_change', change, decision, ctx.principal);
  if (refusal) throw refusalError('install_change', refusal, decision, { changeId: change.id });
}

/**
 * Whether what the change was asked against (version, config, hosts, enabled, autoUpgrade) is as it was
 * when requested: the install's revision has not moved. A rename or a circuit-settings save does not move it.
 */
async function installUnchanged(tx: Tx, change: ChangeRow): Promise<boolean> {
  const [row] = await tx
    .select({ unchanged: sql<boolean>`${appInstalls.revision} = ${appInstallChanges.installRevision}` })
    .from(appInstallChanges)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallChanges.installId))
    .where(eq(appInstallChanges.id, change.id));
  return row?.unchanged === true;
}

const decide = async (
  tx: Tx,
  ctx: InstallContext,
  change: ChangeRow,
  decision: ChangeDecision,
  comment: string | null,
) => {
  const [row] = await tx
    .update(appInstallChanges)
    .set(decisionBy(ctx, decision, comment))
    .where(eq(appInstallChanges.id, change.id))
    .returning();
  return row as ChangeRow;
};

/**
 * POST …/changes/:id/approve (apps:publish). Refuses: a decided change (409 conflict); the requester under
 * the four-eyes setting in force when it was requested (403 four_eyes); an install changed since (409
 * install_changed); a version no longer applicable (409 conflict) or blocked (409 app_blocked); a config
 * that no longer holds or no longer gives the hosts asked for (409 conflict). Then applies version, config,
 * hosts and autoUpgrade, enabled only as asked and with every required secret stored.
 */
export async function approveChange(
  ctx: InstallContext,
  installName: string,
  changeId: string,
  comment: string | null,
): Promise<ChangeView> {
  const approved = await ctx.database.db.transaction(async (tx) => {
    const { install, change } = await lockedChange(tx, ctx, installName, changeId);
    refuseDecision(change, 'approved', ctx);
    if (!(await installUnchanged(tx, change))) {
      throw new ApiError(
        'install_changed',
        'the install changed since this change was requested; save it again to ask anew',
        { changeId: change.id },
      );
    }
    const version = await readVersion(tx, change.versionId);
    const currentVersion = await readVersion(tx, install.versionId);
    if (!sameApp(version, currentVersion) || !versionApprovable(version, install)) {
      throw conflict(`version ${version.version} is ${version.status}; it can no longer be applied`, {
        changeId: change.id,
        versionId: version.id,
        status: version.status,
      });
    }
    await assertNotBlocked(tx, blockTarget(version));
    const checked = configIssues(version.manifest, change.config, ctx.settings.hostRules);
    if (checked.issues.length > 0) {
      throw conflict('the config this change asks for is no longer valid', {
        changeId: change.id,
        issues: checked.issues,
      });
    }
    if (!sameHosts(checked.hosts, change.hosts)) {
      throw conflict('the config this change asks for no longer gives the hosts asked for', {
        changeId: change.id,
        hosts: change.hosts,
        configHosts: checked.hosts,
      });
    }
    const stored = (await readStoredSecretNames(tx, [install.id])).get(install.id) ?? [];
    const missing = missingSecrets(version.manifest, change.config, stored);
    const [row] = await tx
      .update(appInstalls)
      .set({
        versionId: version.id,
        config: change.config,
        hosts: change.hosts,
        autoUpgrade: change.autoUpgrade,
        enabled: change.enabled && missing.length === 0,
        // The platform asked for this move: the version it leaves is one a save may move back to.
        ...(change.origin === 'auto_upgrade' ? { upgradedFromVersionId: install.versionId } : {}),
        updatedAt: nextUpdatedAt(),
      })
      .where(eq(appInstalls.id, install.id))
      .returning();
    const applied = row as InstallRow;
    // Cached values: an approved change changing version or config clears them.
    await clearCacheAfterSave(tx, install, applied, auditBy(ctx));
    const decided = await decide(tx, ctx, change, 'approved', comment);
    const state = {
      versionId: applied.versionId,
      version: version.version,
      previousVersionId: change.newInstall ? null : install.versionId,
      configChanged: !isDeepStrictEqual(install.config, applied.config),
      enabled: applied.enabled,
      autoUpgrade: applied.autoUpgrade,
      hosts: applied.hosts,
      hostsAdded: addedHosts(install.hosts, applied.hosts),
      hostsRemoved: removedHosts(install.hosts, applied.hosts),
      missingSecrets: missing,
    };
    await auditDecided(tx, ctx, applied, decided, { applied: state });
    // The install's own trail reads as for a save applied at once: app.installed when a new install comes
    // into service, app.configured otherwise (both name the change they came from).
    if (change.newInstall) {
      await audit(tx, ctx, 'app.installed', applied, {
        ...installedData(applied, version),
        comment: change.comment,
        changeId: change.id,
      });
    } else {
      await audit(tx, ctx, 'app.configured', applied, {
        ...configuredData(install, applied, version),
        hosts: applied.hosts,
        missingSecrets: missing,
        comment: change.comment,
        changeId: change.id,
      });
    }
    await auditDocumentsMove(
      tx,
      ctx,
      applied,
      change.newInstall ? null : { manifest: currentVersion.manifest, config: install.config },
      { manifest: version.manifest, config: applied.config },
      { via: 'change', changeId: change.id },
    );
    // The install moved to another version through someone else's decision: app.install.upgraded with
    // automatic false, and holders of apps:write are told (app_upgraded). A rollback only when the platform
    // asked for a lower version (it does so only below a withdrawn or blocked one).
    if (changeMovesVersion(change, install, applied)) {
      await recordUpgraded(tx, ctx, applied, {
        from: currentVersion,
        to: version,
        automatic: false,
        rollback: change.origin === 'auto_upgrade' && semver.lt(version.version, currentVersion.version),
        hostsRemoved: state.hostsRemoved,
        changeId: change.id,
      });
    }
    return changeView(decided, applied.name);
  });
  // A decision on its change moves an opted-in install at once when its upgrade applies.
  if (approved.installId) await ctx.upgrades.afterWrite(approved.installId);
  return approved;
}

/**
 * Rejection and withdrawal: the install stays as it is, except a new install, which goes with its change
 * (its row, secrets and aliases; the decided change stays, its installId null).
 */
async function closeChange(
  ctx: InstallContext,
  installName: string,
  changeId: string,
  decision: 'rejected' | 'withdrawn',
  comment: string | null,
): Promise<ChangeView> {
  const closed = await ctx.database.db.transaction(async (tx) => {
    const { install, change } = await lockedChange(tx, ctx, installName, changeId);
    refuseDecision(change, decision, ctx);
    const decided = await decide(tx, ctx, change, decision, comment);
    if (!change.newInstall) {
      await auditDecided(tx, ctx, install, decided, { installRemoved: false });
      return changeView(decided, install.name);
    }
    const secrets = await tx
      .delete(appInstallSecrets)
      .where(eq(appInstallSecrets.installId, install.id))
      .returning({ name: appInstallSecrets.name });
    // A waiting new install may have had test calls: its metering keeps the name it had.
    await ctx.records.metering.nameRows(tx, install.id, install.name);
    await tx.delete(appInstalls).where(eq(appInstalls.id, install.id));
    await auditDecided(tx, ctx, install, decided, {
      installRemoved: true,
      secretsRemoved: secrets.map((s) => s.name).sort(),
    });
    // The foreign key set install_id null: answer the change as it is stored now.
    const [kept] = await tx.select().from(appInstallChanges).where(eq(appInstallChanges.id, change.id));
    return changeView(kept as ChangeRow);
  });
  // A decision on its change moves an opted-in install at once when its upgrade applies (a rejected
  // automatic upgrade is declined, not asked again); a new install that went with its change is gone.
  if (closed.installId) await ctx.upgrades.afterWrite(closed.installId);
  return closed;
}

/** POST …/changes/:id/reject (apps:publish), { comment? }. */
export const rejectChange = (
  ctx: InstallContext,
  installName: string,
  changeId: string,
  comment: string | null,
) => closeChange(ctx, installName, changeId, 'rejected', comment);

/** POST …/changes/:id/withdraw (apps:write): the requester, or a holder of tenants:settings (403 not_requester). */
export const withdrawChange = (ctx: InstallContext, installName: string, changeId: string) =>
  closeChange(ctx, installName, changeId, 'withdrawn', null);
