// Installs' sources of Home's attention list (docs/notifications.md "Home's attention list"): open install
// changes, and opted-in installs whose upgrade waits, as facts; src/attention words them. A tenant has at
// most 50 installs, so each reads every item it has.
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { appInstallChanges, appInstalls } from './tables.ts';
import type { WaitingFor } from './upgrade/upgrade-rules.ts';
import { readUpgradePlans, type UpgradeReading } from './upgrade/upgrade-store.ts';

/** install_change_pending: the tenant's open install changes, oldest first. */
export async function pendingInstallChanges(db: Queryable, tenantId: string) {
  const asked = alias(appVersions, 'asked');
  return db
    .select({
      id: appInstallChanges.id,
      installName: appInstalls.name,
      appName: appInstalls.appName,
      version: asked.version,
      movesVersion: sql<boolean>`${appInstallChanges.versionId} <> ${appInstalls.versionId}`,
      newInstall: appInstallChanges.newInstall,
      origin: appInstallChanges.origin,
      requestedBy: appInstallChanges.requestedBy,
      requestedByName: appInstallChanges.requestedByName,
      requestedAt: appInstallChanges.requestedAt,
    })
    .from(appInstallChanges)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallChanges.installId))
    .innerJoin(asked, eq(asked.id, appInstallChanges.versionId))
    .where(and(eq(appInstallChanges.tenantId, tenantId), isNull(appInstallChanges.decision)))
    .orderBy(asc(appInstallChanges.requestedAt), asc(appInstallChanges.id));
}

/** An opted-in install whose automatic upgrade waits for someone, and since when. */
export interface WaitingUpgrade {
  id: string;
  name: string;
  appName: string;
  running: string;
  target: string;
  rollback: boolean;
  waitingFor: WaitingFor;
  since: Date;
}

/**
 * install_upgrade_waiting: opted-in installs of the tenant whose automatic upgrade waits for someone (the
 * view's upgrade.waitingFor non-null), decided exactly as the sweep decides them (readUpgradePlans). A
 * move waiting on an open change (its own, or a saved one) is left out: that change is listed itself.
 * Since: the later of the target's publication and the install's creation. Oldest first.
 */
export async function waitingUpgrades(
  db: Queryable,
  tenantId: string,
  reading: UpgradeReading,
): Promise<WaitingUpgrade[]> {
  const installs = await db
    .select()
    .from(appInstalls)
    .where(and(eq(appInstalls.tenantId, tenantId), eq(appInstalls.autoUpgrade, 'compatible')));
  const entries: WaitingUpgrade[] = [];
  for (const plan of (await readUpgradePlans(db, installs, reading)).values()) {
    const waitingFor = plan.view.waitingFor;
    if (!plan.target || waitingFor === null) continue;
    if (waitingFor === 'approval' && plan.openChange) continue;
    const published = plan.target.publishedAt ?? plan.target.createdAt;
    entries.push({
      id: plan.install.id,
      name: plan.install.name,
      appName: plan.install.appName,
      running: plan.running.version,
      target: plan.target.version,
      rollback: plan.rollback,
      waitingFor,
      since: new Date(Math.max(published.getTime(), plan.install.createdAt.getTime())),
    });
  }
  return entries.sort((a, b) => a.since.getTime() - b.since.getTime());
}
