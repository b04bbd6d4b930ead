// Installs on Home's attention list (docs/notifications.md "Home's attention list"): open install
// changes, and opted-in installs whose upgrade waits. A tenant has at most 50 installs, so each reads
// every item it has.
import { and, asc, eq, inArray, isNull, not, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { blocksOfVersionRow } from '../catalogue/blocks.ts';
import { appBlocks, appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import {
  changeHref,
  compatibleTarget,
  installHref,
  pendingChangeTitle,
  upgradeWaitingTitle,
} from './attention-rules.ts';
import { appInstallChanges, appInstalls } from './tables.ts';

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
 * install_upgrade_waiting. Automatic upgrades are not applied by this service yet (no sweep moves an
 * install), so an install opted in (autoUpgrade compatible) waits whenever a release it may move to
 * (compatibleTarget among published, unblocked versions of its publisher's app) is higher than the one it
 * runs; an install with an open change is left out (the change holds the move and is listed itself).
 * Since: the later of the target's publication and the install's creation. Oldest first.
 */
export async function waitingUpgrades(db: Queryable, tenantId: string): Promise<AttentionEntry[]> {
  const openChange = db
    .select({ one: sql`1` })
    .from(appInstallChanges)
    .where(and(eq(appInstallChanges.installId, appInstalls.id), isNull(appInstallChanges.decision)));
  const installs = await db
    .select({
      id: appInstalls.id,
      name: appInstalls.name,
      appName: appInstalls.appName,
      createdAt: appInstalls.createdAt,
      running: appVersions.version,
      publisher: appVersions.publisher,
      publisherTenantId: appVersions.tenantId,
    })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .where(
      and(
        eq(appInstalls.tenantId, tenantId),
        eq(appInstalls.autoUpgrade, 'compatible'),
        not(sql`exists (${openChange})`),
      ),
    );
  if (installs.length === 0) return [];
  const blocked = db.select({ one: sql`1` }).from(appBlocks).where(blocksOfVersionRow());
  const candidates = await db
    .select({
      name: appVersions.name,
      version: appVersions.version,
      publisher: appVersions.publisher,
      tenantId: appVersions.tenantId,
      publishedAt: sql<Date>`coalesce(${appVersions.publishedAt}, ${appVersions.createdAt})`.mapWith(
        (value: string | Date) => new Date(value),
      ),
    })
    .from(appVersions)
    .where(
      and(
        inArray(appVersions.name, [...new Set(installs.map((i) => i.appName))]),
        eq(appVersions.status, 'published'),
        not(sql`exists (${blocked})`),
      ),
    );
  const entries: AttentionEntry[] = [];
  for (const install of installs) {
    const target = compatibleTarget(
      install.running,
      candidates.filter(
        (c) =>
          c.name === install.appName &&
          c.publisher === install.publisher &&
          c.tenantId === install.publisherTenantId,
      ),
    );
    if (!target) continue;
    entries.push({
      resource: { type: 'app_install', id: install.id },
      title: upgradeWaitingTitle({ ...install, target: target.version }),
      href: installHref(install.name),
      since: new Date(Math.max(target.publishedAt.getTime(), install.createdAt.getTime())),
    });
  }
  return entries.sort((a, b) => a.since.getTime() - b.since.getTime());
}
