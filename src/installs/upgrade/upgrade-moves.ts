// Writing an install's move to another version (docs/upgrades.md): the record every move leaves
// (app.install.upgraded and the app_upgraded notification, for the platform's own move and for an approved
// change alike), and the platform's three writes of a plan — apply it, hold it as a change with origin
// auto_upgrade, or withdraw its own change that no longer stands. Each runs in the caller's transaction,
// which holds the install's row lock and read the plan after taking it (src/installs/upgrade/sweeps/move.ts).
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/pool.ts';
import { notify } from '../../notifications/index.ts';
import { clearCacheAfterSave } from '../cache/cache.ts';
import type { ChangeRow } from '../changes/changes-rules.ts';
import { approvalSettingsOf, requestChange, supersedeOpenChange } from '../changes/changes-store.ts';
import { removedHosts } from '../hosts.ts';
import { auditDocumentsMove } from '../saves.ts';
import { audit, nextUpdatedAt, type Writer, type WrittenBy, writerOf } from '../service.ts';
import { appInstalls } from '../tables.ts';
import type { InstallRow, VersionRow } from '../view.ts';
import type { UpgradePlan } from './upgrade-store.ts';

/** The subject the platform records as requester and decider of what an automatic upgrade writes. */
export const AUTO_UPGRADE_SUBJECT = 'system:auto-upgrade';

/** The platform moving an install of `tenantId` on its own: audited as the system actor of that subject. */
export const autoUpgrader = (tenantId: string): Writer => ({
  tenantId,
  actor: { type: 'system', id: AUTO_UPGRADE_SUBJECT, name: 'automatic upgrade' },
  subject: AUTO_UPGRADE_SUBJECT,
  name: 'automatic upgrade',
  requestId: null,
});

export interface VersionMove {
  from: VersionRow;
  to: VersionRow;
  /** True for the platform's own move, false for an approved change. */
  automatic: boolean;
  rollback: boolean;
  hostsRemoved: string[];
  /** The approved change the move came from (the notification names it). */
  changeId?: string;
}

/**
 * The record of an install's move to another version: app.install.upgraded in the tenant's trail (its data
 * is the app.install.upgraded event's, which the outbound webhooks send from that row) and the app_upgraded
 * notification to holders of apps:write.
 */
export async function recordUpgraded(tx: Tx, by: WrittenBy, install: InstallRow, move: VersionMove) {
  const data = {
    fromVersionId: move.from.id,
    fromVersion: move.from.version,
    toVersionId: move.to.id,
    toVersion: move.to.version,
    automatic: move.automatic,
    rollback: move.rollback,
    hostsRemoved: move.hostsRemoved,
  };
  await audit(tx, by, 'app.install.upgraded', install, data);
  await notify(tx, {
    tenantId: install.tenantId,
    kind: 'app_upgraded',
    audiencePermission: 'apps:write',
    resource: { type: 'app_install', id: install.id },
    data: {
      name: install.name,
      appName: install.appName,
      ...(move.changeId ? { changeId: move.changeId } : {}),
      ...data,
    },
  });
}

type Targeted = UpgradePlan & { target: VersionRow };

/**
 * Moves the install to the plan's target (decision apply): version, the hosts its config gives there
 * (those the target no longer calls dropped), upgradedFromVersionId the version left; config and enabled
 * stay. Its own change that no longer stands is withdrawn first; cached values are cleared (reason
 * version); documents stopping is audited as for a save. Answers the moved row.
 */
export async function applyUpgrade(tx: Tx, plan: Targeted): Promise<InstallRow> {
  const { install, running, target } = plan;
  const by = autoUpgrader(install.tenantId);
  if (plan.supersedesOpenChange) await supersedeOpenChange(tx, by, install);
  const [row] = await tx
    .update(appInstalls)
    .set({
      versionId: target.id,
      hosts: plan.targetHosts,
      upgradedFromVersionId: running.id,
      updatedAt: nextUpdatedAt(),
    })
    .where(eq(appInstalls.id, install.id))
    .returning();
  const moved = row as InstallRow;
  await clearCacheAfterSave(tx, install, moved, writerOf(by));
  await auditDocumentsMove(
    tx,
    by,
    moved,
    { manifest: running.manifest, config: install.config },
    { manifest: target.manifest, config: moved.config },
    { via: 'auto_upgrade' },
  );
  await recordUpgraded(tx, by, moved, {
    from: running,
    to: target,
    automatic: true,
    rollback: plan.rollback,
    hostsRemoved: removedHosts(install.hosts, moved.hosts),
  });
  return moved;
}

/**
 * Holds the move for approval (decision hold): a change with origin auto_upgrade asking for the target
 * with the install's config, enabled and autoUpgrade and the hosts they give there, whatever the tenant's
 * approval settings (recorded on the change as they are). Superseding the install's open change is
 * requestChange's.
 */
export async function holdUpgrade(tx: Tx, plan: Targeted): Promise<ChangeRow> {
  const { install, running, target } = plan;
  return requestChange(tx, autoUpgrader(install.tenantId), {
    install,
    currentVersion: running,
    asked: {
      version: target,
      config: install.config,
      enabled: install.enabled,
      autoUpgrade: install.autoUpgrade,
      hosts: plan.targetHosts,
    },
    newInstall: false,
    settings: await approvalSettingsOf(tx, install.tenantId),
    comment: `automatic ${plan.rollback ? 'rollback' : 'upgrade'} from ${running.version} to ${target.version}`,
    origin: 'auto_upgrade',
  });
}

/** Withdraws the platform's own open change that no longer stands (decisionComment superseded). */
export async function withdrawStaleUpgrade(tx: Tx, plan: UpgradePlan): Promise<void> {
  if (plan.openChange?.origin !== 'auto_upgrade') return;
  await supersedeOpenChange(tx, autoUpgrader(plan.install.tenantId), plan.install);
}
