// What an opted-in install's automatic upgrade is decided on (docs/upgrades.md), read for a few installs
// at once: the version each runs and whether it is withdrawn or blocked, the published releases of its app
// no block stops, its stored secrets, its open change and rejected automatic upgrades, and who calls it.
// The install view, Home's attention list and the sweep (sweeps/) all decide through readUpgradePlans,
// so what the view says waits is what the sweep leaves.
import { and, eq, inArray, isNull, not, or, sql } from 'drizzle-orm';
import { blocksOfVersionRow } from '../../catalogue/blocks.ts';
import { appBlocks, appVersions } from '../../catalogue/tables.ts';
import type { Queryable } from '../../db/pool.ts';
import type { InstallCallers } from '../callers.ts';
import { type ChangeRow, SUPERSEDED } from '../changes/changes-rules.ts';
import type { HostRuleOptions } from '../hosts.ts';
import { configIssues, missingSecrets, sameApp } from '../plan.ts';
import { appInstallChanges } from '../tables.ts';
import { aliasesByInstall, type InstallRow, readStoredSecretNames, type VersionRow } from '../view.ts';
import {
  decideMove,
  type MoveDecision,
  NO_UPGRADE,
  type UpgradeView,
  upgradeTargets,
  upgradeView,
} from './upgrade-rules.ts';

/** What deciding an upgrade reads beyond the database: who calls installs, and the deployment's host rules. */
export interface UpgradeReading {
  callers: InstallCallers;
  hostRules: HostRuleOptions;
}

export interface UpgradePlan {
  install: InstallRow;
  running: VersionRow;
  /** The release it moves to next, or null when there is none. */
  target: VersionRow | null;
  rollback: boolean;
  /** The hosts the install has once moved: what its config gives under the target. */
  targetHosts: string[];
  /** How the move goes; null without a target. */
  decision: MoveDecision | null;
  openChange: ChangeRow | null;
  /**
   * The open change the platform asked for no longer stands (it asks for another version than the
   * target, there is no target any more, or the move applies without it): the sweep withdraws it.
   */
  supersedesOpenChange: boolean;
  view: UpgradeView;
}

/** Versions of these ids, each with whether a block covers it. */
async function versionsWithBlocks(db: Queryable, ids: readonly string[]) {
  const blocked = db.select({ one: sql`1` }).from(appBlocks).where(blocksOfVersionRow());
  return db
    .select({ version: appVersions, blocked: sql<boolean>`exists (${blocked})` })
    .from(appVersions)
    .where(inArray(appVersions.id, [...ids]));
}

/** The published versions of these apps that no block stops (the candidates of a move). */
async function movableVersions(db: Queryable, names: readonly string[]) {
  const blocked = db.select({ one: sql`1` }).from(appBlocks).where(blocksOfVersionRow());
  return db
    .select()
    .from(appVersions)
    .where(
      and(
        inArray(appVersions.name, [...names]),
        eq(appVersions.status, 'published'),
        not(sql`exists (${blocked})`),
      ),
    );
}

/**
 * The open change of each install, and the versions of its declined automatic upgrades: a change with
 * origin auto_upgrade that was rejected, or withdrawn by someone (not superseded by a save or by the
 * platform's own newer request) — asking again at once would undo the withdrawal.
 */
async function changesOf(db: Queryable, installIds: readonly string[]) {
  const c = appInstallChanges;
  const rows = await db
    .select()
    .from(c)
    .where(
      and(
        inArray(c.installId, [...installIds]),
        or(
          isNull(c.decision),
          and(
            eq(c.origin, 'auto_upgrade'),
            or(
              eq(c.decision, 'rejected'),
              and(eq(c.decision, 'withdrawn'), sql`${c.decisionComment} is distinct from ${SUPERSEDED}`),
            ),
          ),
        ),
      ),
    );
  const open = new Map<string, ChangeRow>();
  const declined = new Set<string>();
  for (const row of rows) {
    if (!row.installId) continue;
    if (row.decision === null) open.set(row.installId, row);
    else declined.add(`${row.installId}/${row.versionId}`);
  }
  return { open, declined };
}

/**
 * The upgrade plan of each of these installs that is opted in (autoUpgrade compatible), by install id;
 * the others have none. Reads in a few queries, plus one per install with a target (who calls it).
 */
export async function readUpgradePlans(
  db: Queryable,
  installs: readonly InstallRow[],
  reading: UpgradeReading,
): Promise<Map<string, UpgradePlan>> {
  const plans = new Map<string, UpgradePlan>();
  const opted = installs.filter((install) => install.autoUpgrade === 'compatible');
  if (opted.length === 0) return plans;
  const ids = opted.map((install) => install.id);
  const running = new Map(
    (await versionsWithBlocks(db, [...new Set(opted.map((i) => i.versionId))])).map((r) => [r.version.id, r]),
  );
  const candidates = await movableVersions(db, [...new Set(opted.map((i) => i.appName))]);
  const changes = await changesOf(db, ids);
  const secrets = await readStoredSecretNames(db, ids);
  const aliases = await aliasesByInstall(db, ids);
  for (const install of opted) {
    const runs = running.get(install.versionId);
    if (!runs) throw new Error(`install ${install.id} runs a version that does not exist`);
    const openChange = changes.open.get(install.id) ?? null;
    const ownOpen = openChange?.origin === 'auto_upgrade';
    const stopped = runs.version.status === 'withdrawn' || runs.blocked;
    const targets = upgradeTargets(
      runs.version.version,
      stopped,
      candidates.filter((c) => sameApp(c, runs.version)),
    );
    if (targets.length === 0) {
      plans.set(install.id, {
        install,
        running: runs.version,
        target: null,
        rollback: false,
        targetHosts: install.hosts,
        decision: null,
        openChange,
        supersedesOpenChange: ownOpen,
        view: NO_UPGRADE,
      });
      continue;
    }
    const names = [install.name, ...(aliases.get(install.id) ?? [])];
    const usage = await reading.callers.usage(db, install.tenantId, names);
    const decided = (found: (typeof targets)[number]) => {
      const checked = configIssues(found.target.manifest, install.config, reading.hostRules);
      const decision = decideMove({
        current: { manifest: runs.version.manifest, config: install.config, hosts: install.hosts },
        target: {
          id: found.target.id,
          manifest: found.target.manifest,
          checked,
          missingSecrets: missingSecrets(
            found.target.manifest,
            install.config,
            secrets.get(install.id) ?? [],
          ),
        },
        calls: usage.map(({ kind, key, version, actions }) => ({ kind, key, version, actions })),
        openChange: openChange ? { origin: openChange.origin, versionId: openChange.versionId } : null,
        declined: changes.declined.has(`${install.id}/${found.target.id}`),
      });
      return { ...found, checked, decision };
    };
    // Off a withdrawn or blocked version, the highest release the install can move to at once, lower if
    // need be (a higher one waiting for approval or an administrator would leave it running the stopped
    // version meanwhile); when none can, the highest, waiting or held as decided.
    const choices = stopped ? targets.map(decided) : [decided(targets[0] as (typeof targets)[number])];
    const chosen =
      choices.find((c) => c.decision.action === 'apply') ?? (choices[0] as (typeof choices)[number]);
    const { target, checked, decision } = chosen;
    const found = chosen;
    plans.set(install.id, {
      install,
      running: runs.version,
      target,
      rollback: found.rollback,
      targetHosts: checked.hosts,
      decision,
      openChange,
      supersedesOpenChange: decision.supersedesOpenChange,
      view: upgradeView(target, found.rollback, decision),
    });
  }
  return plans;
}
