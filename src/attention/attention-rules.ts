// What Home's attention list says of each item (docs/notifications.md "Home's attention list"): its
// title and console link. Pure: the facts a source read in, an entry out. The sources read in their owners'
// folders (installs' changes and upgrades, outbound webhooks' endpoints); which upgrades wait is
// installs/upgrade/upgrade-rules.ts's to decide.

/** One thing waiting for someone: what it is about, a title, its console page, since when. */
export interface AttentionEntry {
  resource: { type: string; id: string };
  title: string;
  href: string | null;
  since: Date;
}

/** Console paths (relative to the console's root) of an install and of one of its changes. */
export const installHref = (name: string) => `/apps/installs/${encodeURIComponent(name)}`;
export const changeHref = (name: string, changeId: string) =>
  `${installHref(name)}/changes/${encodeURIComponent(changeId)}`;

export interface PendingChangeFacts {
  installName: string;
  appName: string;
  /** The version the change asks for, and whether it is another than the one the install runs. */
  version: string;
  movesVersion: boolean;
  newInstall: boolean;
  origin: 'save' | 'auto_upgrade';
  /** The requester's display name when it was recorded, else its id (a token subject). */
  requestedByName: string | null;
  requestedBy: string;
}

/** The title of an open change: who asked for what, waiting for approval. */
export function pendingChangeTitle(change: PendingChangeFacts): string {
  const app = `${change.appName} ${change.version}`;
  if (change.origin === 'auto_upgrade') {
    return `The automatic upgrade of install ${change.installName} to ${app} waits for approval`;
  }
  const who = change.requestedByName?.trim() || change.requestedBy;
  if (change.newInstall)
    return `${who} asked to install ${change.installName} (${app}); it waits for approval`;
  const to = change.movesVersion ? ` (to ${app})` : '';
  return `${who} asked to change install ${change.installName}${to}; it waits for approval`;
}

/** Why an upgrade waits, as its title ends. */
const WAITS: Record<'approval' | 'secrets' | 'config' | 'actions' | 'declined', string> = {
  approval: 'waits for approval',
  secrets: 'waits for its required secrets to be stored',
  config: 'waits for a config the new version accepts',
  actions: 'waits: published definitions call actions it no longer answers',
  declined: 'was declined and is not asked again',
};

/** The title of an install whose upgrade waits for an administrator. */
export const upgradeWaitingTitle = (install: {
  name: string;
  appName: string;
  running: string;
  target: string;
  rollback: boolean;
  waitingFor: keyof typeof WAITS;
}) => {
  const move = install.rollback ? `the rollback to ${install.target}` : `the upgrade to ${install.target}`;
  return `Install ${install.name} runs ${install.appName} ${install.running}; ${move} ${WAITS[install.waitingFor]}`;
};

/** install_change_pending: an open change, since it was asked for. */
export const pendingChangeEntry = (
  change: PendingChangeFacts & { id: string; requestedAt: Date },
): AttentionEntry => ({
  resource: { type: 'app_install_change', id: change.id },
  title: pendingChangeTitle(change),
  href: changeHref(change.installName, change.id),
  since: change.requestedAt,
});

/** install_upgrade_waiting: an opted-in install whose upgrade waits for an administrator. */
export const upgradeWaitingEntry = (
  install: Parameters<typeof upgradeWaitingTitle>[0] & { id: string; since: Date },
): AttentionEntry => ({
  resource: { type: 'app_install', id: install.id },
  title: upgradeWaitingTitle(install),
  href: installHref(install.name),
  since: install.since,
});

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
};

/** webhook_endpoint_failing: an endpoint whose delivery was given up, named by description or host. */
export const failingEndpointEntry = (endpoint: {
  id: string;
  url: string;
  description: string | null;
  failingSince: Date;
}): AttentionEntry => ({
  resource: { type: 'webhook_endpoint', id: endpoint.id },
  title: `Webhook endpoint ${endpoint.description ?? hostOf(endpoint.url)} is failing: a delivery was given up after five attempts`,
  href: `/settings/webhooks/${endpoint.id}`,
  since: endpoint.failingSince,
});
