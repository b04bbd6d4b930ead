// Installs on Home's attention list (docs/notifications.md "Home's attention list"): open install
// changes, and opted-in installs whose upgrade waits. A tenant has at most 50 installs, so each reads
// every item it has.
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { changeHref, installHref, pendingChangeTitle, upgradeWaitingTitle } from './attention-rules.ts';
import { appInstallChanges, appInstalls } from './tables.ts';
import { readUpgradePlans, type UpgradeReading } from './upgrade/upgrade-store.ts';

/** One thing waiting for someone: what it is about, a title, its console page, since when. */
export interface AttentionEntry {
  resource: { type: string; id: string };
  title: string;
  href: string | null;
  since: Date;
}

/** install_change_pending: the tenant's open install changes, oldest first. */
export async function pendingInstallChanges(db: Queryable, tenantId: string): Promise<AttentionEntry[]> {
  const asked = alias(appVersions, 'asked');
  const rows = await db
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
  return rows.map((row) => ({
    resource: { type: 'app_install_change', id: row.id },
    title: pendingChangeTitle(row),
    href: changeHref(row.installName, row.id),
    since: row.requestedAt,
  }));
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
): Promise<AttentionEntry[]> {
  const installs = await db
    .select()
    .from(appInstalls)
    .where(and(eq(appInstalls.tenantId, tenantId), eq(appInstalls.autoUpgrade, 'compatible')));
  const entries: AttentionEntry[] = [];
  for (const plan of (await readUpgradePlans(db, installs, reading)).values()) {
    const waitingFor = plan.view.waitingFor;
    if (!plan.target || waitingFor === null) continue;
    if (waitingFor === 'approval' && plan.openChange) continue;
    const published = plan.target.publishedAt ?? plan.target.createdAt;
    entries.push({
      resource: { type: 'app_install', id: plan.install.id },
      title: upgradeWaitingTitle({
        name: plan.install.name,
        appName: plan.install.appName,
        running: plan.running.version,
        target: plan.target.version,
        rollback: plan.rollback,
        waitingFor,
      }),
      href: installHref(plan.install.name),
      since: new Date(Math.max(published.getTime(), plan.install.createdAt.getTime())),
    });
  }
  return entries.sort((a, b) => a.since.getTime() - b.since.getTime());
}
