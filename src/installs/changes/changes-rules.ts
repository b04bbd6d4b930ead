// Install changes (docs/install-changes.md): the change view and the
// rules of a decision. Pure: rows and principals in, answers out; changes.ts does the reading and writing.
import type { appVersions } from '../../catalogue/tables.ts';
import type { Manifest } from '../../module/index.ts';
import { readsDocuments, withDocumentsOff } from '../capabilities.ts';
import type { appInstallChanges } from '../tables.ts';

export type ChangeRow = typeof appInstallChanges.$inferSelect;

/** The decisionComment of a change a newer save of its install replaced. */
export const SUPERSEDED = 'superseded';

/** The install change (docs/install-changes.md "The change"). */
export interface ChangeView {
  id: string;
  tenantId: string;
  installId: string | null;
  installName: string;
  versionId: string;
  config: Record<string, unknown>;
  enabled: boolean;
  hosts: string[];
  hostsAdded: string[];
  origin: 'save' | 'auto_upgrade';
  needsAdded: string[];
  handlesAdded: string[];
  newInstall: boolean;
  installUpdatedAt: string;
  approvalSettings: { required: boolean; fourEyes: boolean };
  requestedBy: string;
  requestedAt: string;
  comment: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  decision: 'approved' | 'rejected' | 'withdrawn' | null;
  decisionComment: string | null;
}

/**
 * The change as answered. installName is the install's current name when it still exists (a rename keeps
 * its changes), else the name it had when the change was requested.
 */
export function changeView(row: ChangeRow, currentInstallName: string | null = null): ChangeView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    installId: row.installId,
    installName: currentInstallName ?? row.installName,
    versionId: row.versionId,
    config: row.config,
    enabled: row.enabled,
    hosts: row.hosts,
    hostsAdded: row.hostsAdded,
    origin: row.origin,
    needsAdded: row.needsAdded,
    handlesAdded: row.handlesAdded,
    newInstall: row.newInstall,
    installUpdatedAt: row.installUpdatedAt.toISOString(),
    approvalSettings: { required: row.approvalRequired, fourEyes: row.fourEyes },
    requestedBy: row.requestedBy,
    requestedAt: row.requestedAt.toISOString(),
    comment: row.comment,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    decision: row.decision,
    decisionComment: row.decisionComment,
  };
}

/**
 * Whether the asked version may still be applied: published, or withdrawn when it is the version the
 * install's last automatic upgrade left (moving back to it is allowed). Blocks are checked apart.
 */
export const versionApprovable = (
  version: Pick<typeof appVersions.$inferSelect, 'id' | 'status'>,
  install: { upgradedFromVersionId: string | null },
) =>
  version.status === 'published' ||
  (version.status === 'withdrawn' && version.id === install.upgradedFromVersionId);

/**
 * Who is told that an install change waits (notification install_change_pending): the requester of a
 * save, whose change it is (holders of apps:publish get approval_requested for it); for a change an
 * automatic upgrade opens, which no one asked for, the holders of apps:write.
 */
export const changePendingAudience = (
  change: Pick<ChangeRow, 'origin' | 'requestedBy'>,
): { recipient: string } | { audiencePermission: 'apps:write' } =>
  change.origin === 'save' ? { recipient: change.requestedBy } : { audiencePermission: 'apps:write' };

/**
 * Whether an approved change moved an existing install to another version (notification app_upgraded to
 * holders of apps:write): a new install coming into service moves nothing.
 */
export const changeMovesVersion = (
  change: Pick<ChangeRow, 'newInstall'>,
  before: { versionId: string },
  after: { versionId: string },
) => !change.newInstall && before.versionId !== after.versionId;

/** Whether two host lists hold the same hosts, in any order. */
export function sameHosts(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((host) => right.has(host));
}

/** An install's state as the held-save rule reads it. */
export interface SwitchableState {
  enabled: boolean;
  config: Record<string, unknown>;
  manifest: Pick<Manifest, 'needs' | 'documentsFromConfig'>;
}

/**
 * The part of a held save that applies at once: switching the install off, and stopping its
 * documents when the asked state no longer reads them. Documents stop through the current version's own
 * switch (documentsFromConfig set to false); a current version that reads documents without a switch keeps
 * reading them until the change is decided. Switching on, and everything else, waits.
 */
export function partAppliedAtOnce(
  current: SwitchableState,
  asked: SwitchableState,
): { enabled: boolean; config: Record<string, unknown> } {
  const stopsDocuments =
    readsDocuments(current.manifest, current.config) && !readsDocuments(asked.manifest, asked.config);
  const documentsOff = stopsDocuments ? withDocumentsOff(current.manifest, current.config) : null;
  return { enabled: current.enabled && asked.enabled, config: documentsOff ?? current.config };
}
