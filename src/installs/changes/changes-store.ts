// Opening and closing install changes inside a save's transaction (docs/install-changes.md, one open
// change per install): the tenant's approval settings, the open change of an install, superseding
// it, and requesting a new one with its audit record and notification. Used by service.ts (saves) and
// changes.ts (decisions); it imports neither, so the two stay free of an import cycle.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable, Tx } from '../../db/pool.ts';
import { notify } from '../../notifications/index.ts';
import { approvalRequired } from '../../tenants/settings.ts';
import { tenants } from '../../tenants/tables.ts';
import { handlesAdded, needsAdded, readsDocuments, receivesWebhooks } from '../capabilities.ts';
import { addedHosts, removedHosts } from '../hosts.ts';
import { audit, type WrittenBy, writerOf } from '../service.ts';
import {
  type AutoUpgrade,
  appInstallChanges,
  appInstalls,
  type ChangeDecision,
  type ChangeOrigin,
} from '../tables.ts';
import type { InstallRow, VersionRow } from '../view.ts';
import { type ChangeRow, changePendingAudience, SUPERSEDED } from './changes-rules.ts';

export interface ApprovalSettings {
  /** The tenant requires approvals for apps (approvals.required with requiredFor unset or naming app). */
  required: boolean;
  fourEyes: boolean;
}

/** The tenant's approval settings for apps as they are now. */
export async function approvalSettingsOf(db: Queryable, tenantId: string): Promise<ApprovalSettings> {
  const [tenant] = await db
    .select({ settings: tenants.settings })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  if (!tenant) return { required: false, fourEyes: false };
  return {
    required: approvalRequired(tenant.settings, 'apps'),
    fourEyes: tenant.settings.approvals.fourEyes,
  };
}

/** The install's open change (decision null), or null; at most one exists (a partial unique index). */
export async function openChangeOf(db: Queryable, installId: string): Promise<ChangeRow | null> {
  const [row] = await db
    .select()
    .from(appInstallChanges)
    .where(and(eq(appInstallChanges.installId, installId), isNull(appInstallChanges.decision)));
  return row ?? null;
}

/** The columns a decision writes: who decided, when, how and why. */
export const decisionBy = (by: WrittenBy, decision: ChangeDecision, comment: string | null) => ({
  decision,
  decisionComment: comment,
  decidedBy: writerOf(by).subject,
  decidedAt: new Date(),
});

/** Audits a decision on a change (app.install.change.decided), against the install it belongs to. */
export const auditDecided = (
  tx: Tx,
  by: WrittenBy,
  install: Pick<InstallRow, 'id' | 'name' | 'appName'>,
  change: ChangeRow,
  data: Record<string, unknown> = {},
) =>
  audit(tx, by, 'app.install.change.decided', install, {
    changeId: change.id,
    decision: change.decision,
    comment: change.decisionComment,
    newInstall: change.newInstall,
    ...data,
  });

/**
 * A newer save of the install replaces its open change, whether that save waits or applies: the open one
 * is withdrawn with decisionComment superseded (by whoever saved), and audited. Answers it, or null.
 * The caller holds the install's row lock.
 */
export async function supersedeOpenChange(tx: Tx, by: WrittenBy, install: InstallRow) {
  const [superseded] = await tx
    .update(appInstallChanges)
    .set(decisionBy(by, 'withdrawn', SUPERSEDED))
    .where(and(eq(appInstallChanges.installId, install.id), isNull(appInstallChanges.decision)))
    .returning();
  if (superseded) await auditDecided(tx, by, install, superseded);
  return superseded ?? null;
}

export interface ChangeRequest {
  /** The install row as it stands once any part applied at once is written (a new install: its row). */
  install: InstallRow;
  /** The version the install runs now; null for a new install (nothing runs yet). */
  currentVersion: VersionRow | null;
  asked: {
    version: VersionRow;
    config: Record<string, unknown>;
    enabled: boolean;
    autoUpgrade: AutoUpgrade;
    hosts: string[];
  };
  newInstall: boolean;
  settings: ApprovalSettings;
  comment: string | null;
  /** save: a held save; auto_upgrade: an automatic upgrade adding hosts or capabilities (the platform asks). */
  origin: ChangeOrigin;
}

/**
 * Opens the change a held save (or an automatic upgrade) asks for: supersedes the install's open change, stores the asked state with
 * what it adds and the approval settings in force, audits app.install.change.requested (the data of the
 * app.install.change.requested event), notifies holders of apps:publish (approval_requested) and the
 * requester (install_change_pending: changePendingAudience).
 */
export async function requestChange(tx: Tx, by: WrittenBy, request: ChangeRequest): Promise<ChangeRow> {
  const { install, asked } = request;
  const writer = writerOf(by);
  await supersedeOpenChange(tx, writer, install);
  const current =
    request.newInstall || request.currentVersion === null
      ? null
      : { manifest: request.currentVersion.manifest, config: install.config };
  const askedState = { manifest: asked.version.manifest, config: asked.config };
  const [row] = await tx
    .insert(appInstallChanges)
    .values({
      tenantId: install.tenantId,
      installId: install.id,
      installName: install.name,
      versionId: asked.version.id,
      config: asked.config,
      enabled: asked.enabled,
      autoUpgrade: asked.autoUpgrade,
      hosts: asked.hosts,
      hostsAdded: addedHosts(install.hosts, asked.hosts),
      origin: request.origin,
      needsAdded: needsAdded(current, askedState),
      handlesAdded: handlesAdded(current, askedState),
      newInstall: request.newInstall,
      // Read in the database: the exact timestamp the approval compares with (no rounding through JS).
      installUpdatedAt: sql`(select ${appInstalls.updatedAt} from ${appInstalls} where ${appInstalls.id} = ${install.id})`,
      // The revision the approval compares with: read in the database too, after this save's own writes.
      installRevision: sql`(select ${appInstalls.revision} from ${appInstalls} where ${appInstalls.id} = ${install.id})`,
      approvalRequired: request.settings.required,
      fourEyes: request.settings.fourEyes,
      requestedBy: writer.subject,
      requestedByName: writer.name,
      comment: request.comment,
    })
    .returning();
  const change = row as ChangeRow;
  await audit(tx, writer, 'app.install.change.requested', install, {
    changeId: change.id,
    versionId: asked.version.id,
    version: asked.version.version,
    previousVersionId: request.newInstall ? null : install.versionId,
    // The version it moves from, by number (an automatic upgrade's reader wants "1.2.0 → 1.3.0" without a
    // lookup); null for a new install, which runs nothing yet.
    fromVersion: request.newInstall ? null : (request.currentVersion?.version ?? null),
    hosts: change.hosts,
    hostsAdded: change.hostsAdded,
    hostsRemoved: removedHosts(install.hosts, asked.hosts),
    newInstall: change.newInstall,
    origin: change.origin,
    needsAdded: change.needsAdded,
    handlesAdded: change.handlesAdded,
    readsDocuments: readsDocuments(asked.version.manifest, asked.config),
    receivesWebhooks: receivesWebhooks(asked.version.manifest, asked.config),
    enabled: asked.enabled,
    autoUpgrade: asked.autoUpgrade,
    comment: request.comment,
  });
  await notify(tx, {
    tenantId: writer.tenantId,
    kind: 'approval_requested',
    audiencePermission: 'apps:publish',
    resource: { type: 'app_install', id: install.id },
    data: {
      name: install.name,
      appName: install.appName,
      changeId: change.id,
      hostsAdded: change.hostsAdded,
      newInstall: change.newInstall,
      requestedBy: writer.name,
    },
  });
  await notify(tx, {
    tenantId: writer.tenantId,
    kind: 'install_change_pending',
    ...changePendingAudience(change),
    resource: { type: 'app_install', id: install.id },
    data: {
      name: install.name,
      appName: install.appName,
      changeId: change.id,
      versionId: asked.version.id,
      version: asked.version.version,
      origin: change.origin,
      newInstall: change.newInstall,
      hostsAdded: change.hostsAdded,
    },
  });
  return change;
}
