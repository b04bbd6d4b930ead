// What Home's attention list says of installs (docs/notifications.md "Home's attention list"): which
// release an opted-in install could move to, and the title and console link of each item. Pure: rows in,
// texts out; attention.ts reads.
import semver from 'semver';

/**
 * The highest release an install running `running` may move to automatically: the same major from 1.0.0,
 * the same minor on 0.x, never a prerelease, higher than what it runs. Null when there is none (or the
 * running version is no semver). The caller passes only published versions no block stops.
 */
export function compatibleTarget<T extends { version: string }>(
  running: string,
  candidates: readonly T[],
): T | null {
  const from = semver.parse(running);
  if (!from) return null;
  let best: T | null = null;
  for (const candidate of candidates) {
    const to = semver.parse(candidate.version);
    if (!to || to.prerelease.length > 0 || to.major !== from.major) continue;
    if (from.major === 0 && to.minor !== from.minor) continue;
    if (!semver.gt(to, from)) continue;
    if (!best || semver.gt(to, best.version)) best = candidate;
  }
  return best;
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

/** The title of an install whose upgrade waits. */
export const upgradeWaitingTitle = (install: {
  name: string;
  appName: string;
  running: string;
  target: string;
}) =>
  `Install ${install.name} runs ${install.appName} ${install.running}; ${install.target} waits to be applied`;
