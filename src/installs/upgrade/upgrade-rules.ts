// Automatic upgrades (docs/upgrades.md): which release an opted-in install moves to, and whether the move
// applies at once, waits for an approval, or waits for an administrator. Pure: versions, manifests and
// facts in, answers out. upgrade-store.ts reads the facts; sweeps/ sweeps and moves.
import semver from 'semver';
import type { ActionDeclaration, Manifest, Need } from '../../module/index.ts';
import type { DefinitionKindName } from '../callers.ts';
import { type Handle, handlesAdded, needsAdded } from '../capabilities.ts';
import type { ConfigIssue } from '../config-pointers.ts';
import { addedHosts, removedHosts } from '../hosts.ts';

/**
 * Whether `to` is in the compatible range of `from`: the same major from 1.0.0, the same minor on 0.x,
 * and never a prerelease.
 */
function inRange(from: semver.SemVer, to: semver.SemVer): boolean {
  if (to.prerelease.length > 0 || to.major !== from.major) return false;
  return from.major !== 0 || to.minor === from.minor;
}

export interface UpgradeTarget<T> {
  target: T;
  /** The target is below the version the install runs, which is withdrawn or blocked. */
  rollback: boolean;
}

/**
 * The releases an opted-in install running `running` may move to, among `candidates` (the published
 * versions of its app that no block stops; the caller filters them), best first. Normally the releases of
 * the range above what it runs, highest first. When the running version is withdrawn or blocked
 * (`stopped`), every release of the range whatever its number, highest first, lower ones too (a rollback
 * when lower). Empty when there is none, or the running version is no semantic version.
 */
export function upgradeTargets<T extends { version: string }>(
  running: string,
  stopped: boolean,
  candidates: readonly T[],
): UpgradeTarget<T>[] {
  const from = semver.parse(running);
  if (!from) return [];
  const inReach: { candidate: T; version: semver.SemVer }[] = [];
  for (const candidate of candidates) {
    const to = semver.parse(candidate.version);
    if (!to || !inRange(from, to) || semver.eq(to, from)) continue;
    if (!stopped && !semver.gt(to, from)) continue;
    inReach.push({ candidate, version: to });
  }
  return inReach
    .sort((a, b) => semver.rcompare(a.version, b.version))
    .map(({ candidate, version }) => ({ target: candidate, rollback: semver.lt(version, from) }));
}

export type WaitingFor = 'approval' | 'secrets' | 'config' | 'actions' | 'declined';

/** An action a published definition calls through the install that the target no longer answers. */
export interface MissingAction {
  action: string;
  /** absent: the target has no such action; asynchronous: a rule calls it and the target answers it through a webhook. */
  reason: 'absent' | 'asynchronous';
  /** The definitions calling it (current published versions). */
  calledBy: { kind: DefinitionKindName; key: string; version: number }[];
}

/** The published definitions calling the install by any of its names, with the actions each calls. */
export interface CallingDefinition {
  kind: DefinitionKindName;
  key: string;
  version: number;
  actions: readonly string[];
}

type Actions = Pick<Manifest, 'actions'>;

/** Whether a manifest answers `action` as a call of that kind needs: a rule needs a synchronous answer. */
function answers(manifest: Actions, action: string, kind: DefinitionKindName): ActionDeclaration | null {
  const declared = manifest.actions.find((a) => a.name === action);
  if (!declared) return null;
  return kind === 'rule_set' && declared.async ? null : declared;
}

/**
 * The actions the target no longer answers: called by a published workflow (a step or its fallback) or
 * rule set (a rule or its fallback: a rule needs a synchronous action) through the install, answered by the
 * current version, and absent from the target or, where a rule calls it, asynchronous there. A call the
 * current version does not answer either is not the move's doing and holds nothing.
 */
export function missingActions(
  current: Actions,
  target: Actions,
  calls: readonly CallingDefinition[],
): MissingAction[] {
  const byKey = new Map<string, MissingAction>();
  for (const call of calls) {
    for (const action of call.actions) {
      if (!answers(current, action, call.kind) || answers(target, action, call.kind)) continue;
      const reason = target.actions.some((a) => a.name === action) ? 'asynchronous' : 'absent';
      const key = `${action}\0${reason}`;
      const entry = byKey.get(key) ?? { action, reason, calledBy: [] };
      entry.calledBy.push({ kind: call.kind, key: call.key, version: call.version });
      byKey.set(key, entry);
    }
  }
  return [...byKey.values()].sort(
    (a, b) => a.action.localeCompare(b.action) || a.reason.localeCompare(b.reason),
  );
}

type MoveManifest = Pick<Manifest, 'actions' | 'needs' | 'documentsFromConfig' | 'handles'>;

/** What a move is decided on: the install as it runs, the target and what the install's config gives there. */
export interface MoveFacts {
  current: { manifest: MoveManifest; config: unknown; hosts: readonly string[] };
  target: {
    id: string;
    manifest: MoveManifest;
    /** The install's config checked under the target (plan.ts configIssues): its issues and the hosts it gives. */
    checked: { issues: readonly ConfigIssue[]; hosts: readonly string[] };
    /** The target's required secrets under the install's config (plan.ts missingSecrets) not stored. */
    missingSecrets: readonly string[];
  };
  calls: readonly CallingDefinition[];
  /** The install's open change, if any. */
  openChange: { origin: 'save' | 'auto_upgrade'; versionId: string } | null;
  /**
   * A change with origin auto_upgrade asking for the target was rejected (or withdrawn by someone): it is
   * not asked again.
   */
  declined: boolean;
}

/**
 * apply: the sweep moves the install now. hold: the sweep opens a change with origin auto_upgrade. wait:
 * nothing moves until an administrator acts (waitingFor says on what).
 */
export type MoveAction = 'apply' | 'hold' | 'wait';

export interface MoveDecision {
  action: MoveAction;
  waitingFor: WaitingFor | null;
  hostsAdded: string[];
  /** Hosts the target no longer calls: dropped with the move. */
  hostsRemoved: string[];
  needsAdded: Need[];
  handlesAdded: Handle[];
  issues: ConfigIssue[];
  missingSecrets: string[];
  missingActions: MissingAction[];
  /**
   * The open change the platform asked for (origin auto_upgrade) no longer stands: it asks for another
   * version than the target, or the move applies without it. The sweep withdraws it (superseded).
   */
  supersedesOpenChange: boolean;
}

/**
 * Whether and how the install moves to the target, in this order: a saved change awaiting approval, or the
 * platform's own change for this target, holds the move (approval); a rejected automatic upgrade to this target is not asked again (declined); a config
 * the target refuses (config, with its issues), a required secret missing (secrets), an action the target
 * lacks or answers through a webhook where a rule calls it (actions) wait for an administrator; a move that
 * adds hosts or capabilities (needs documents, webhook handling, hand-off) is held for approval — a change
 * with origin auto_upgrade opens (hold); anything else applies at once,
 * dropping the hosts the target no longer calls. Whether the tenant requires approvals plays no part.
 */
export function decideMove(facts: MoveFacts): MoveDecision {
  const { current, target, openChange } = facts;
  const currentState = { manifest: current.manifest, config: current.config };
  const targetState = { manifest: target.manifest, config: current.config };
  // A config the target refuses gives no hosts there: what the move would add or drop is not known yet.
  const hosts = target.checked.issues.length === 0 ? target.checked.hosts : null;
  const details = {
    hostsAdded: hosts ? addedHosts(current.hosts, hosts) : [],
    hostsRemoved: hosts ? removedHosts(current.hosts, hosts) : [],
    needsAdded: needsAdded(currentState, targetState),
    handlesAdded: handlesAdded(currentState, targetState),
    issues: [...target.checked.issues],
    missingSecrets: [...target.missingSecrets],
    missingActions: missingActions(current.manifest, target.manifest, facts.calls),
  };
  const ownOpen = openChange?.origin === 'auto_upgrade' ? openChange : null;
  const stale = ownOpen !== null && ownOpen.versionId !== target.id;
  const wait = (waitingFor: WaitingFor) => ({
    ...details,
    action: 'wait' as const,
    waitingFor,
    supersedesOpenChange: stale,
  });
  if (openChange?.origin === 'save' || (ownOpen && !stale)) {
    return { ...wait('approval'), supersedesOpenChange: false };
  }
  if (facts.declined) return wait('declined');
  if (details.issues.length > 0) return wait('config');
  if (details.missingSecrets.length > 0) return wait('secrets');
  if (details.missingActions.length > 0) return wait('actions');
  const adds = details.hostsAdded.length + details.needsAdded.length + details.handlesAdded.length > 0;
  if (adds) return { ...details, action: 'hold', waitingFor: 'approval', supersedesOpenChange: stale };
  return { ...details, action: 'apply', waitingFor: null, supersedesOpenChange: ownOpen !== null };
}

/** The install view's upgrade (present when autoUpgrade is compatible). */
export interface UpgradeView {
  /** The version the platform moves the install to next, or null when there is none. */
  target: { id: string; version: string } | null;
  rollback: boolean;
  hostsAdded: string[];
  hostsRemoved: string[];
  needsAdded: Need[];
  handlesAdded: Handle[];
  /** What the move waits for; null when the next sweep moves it (or there is nothing to move to). */
  waitingFor: WaitingFor | null;
  issues: ConfigIssue[];
  missingSecrets: string[];
  missingActions: MissingAction[];
}

/** The view of an opted-in install with nothing to move to. */
export const NO_UPGRADE: UpgradeView = {
  target: null,
  rollback: false,
  hostsAdded: [],
  hostsRemoved: [],
  needsAdded: [],
  handlesAdded: [],
  waitingFor: null,
  issues: [],
  missingSecrets: [],
  missingActions: [],
};

/** The view of a move to `target` as decided. */
export function upgradeView(
  target: { id: string; version: string },
  rollback: boolean,
  decision: MoveDecision,
): UpgradeView {
  return {
    target: { id: target.id, version: target.version },
    rollback,
    hostsAdded: decision.hostsAdded,
    hostsRemoved: decision.hostsRemoved,
    needsAdded: decision.needsAdded,
    handlesAdded: decision.handlesAdded,
    waitingFor: decision.waitingFor,
    issues: decision.issues,
    missingSecrets: decision.missingSecrets,
    missingActions: decision.missingActions,
  };
}
