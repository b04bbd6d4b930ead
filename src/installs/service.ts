// Installs of a tenant (docs/installs.md): the context every install write takes, reading
// installs, the name rules shared by create and rename, and removal. Every write runs in one transaction
// with its audit record; a write to an install locks its row (for update), so two writes of one install
// (a save, a decision on its change) take turns and the second starts from the first's result.
//
// Create and save: saves.ts (the rules of a save: plan.ts); saves held for approval open a change
// (changes/changes-store.ts), decided in changes/changes.ts; secrets: secrets/secrets.ts; renames and
// aliases: rename.ts; circuit settings: circuit/circuit.ts. An install's vendor sessions (install_in_use)
// and metering rows are reached through the records port (records.ts).
import { isDeepStrictEqual } from 'node:util';
import { and, asc, eq, sql } from 'drizzle-orm';
import { actorOf } from '../audit/actor.ts';
import { type Actor, type AuditEntry, recordAudit } from '../audit/trail.ts';
import { appVersions } from '../catalogue/tables.ts';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import type { InstallCallers } from './callers.ts';
import { addedHosts, type HostRuleOptions, removedHosts } from './hosts.ts';
import type { InstallRecords } from './records.ts';
import { appInstallAliases, appInstallChanges, appInstallSecrets, appInstalls } from './tables.ts';
import type { UpgradeTrigger } from './upgrade/trigger.ts';
import { readUpgradePlans } from './upgrade/upgrade-store.ts';
import { type InstallRow, type InstallView, type VersionRow, type ViewSettings, viewsOf } from './view.ts';

export const MAX_INSTALLS_PER_TENANT = 50;
/** Install names the api's own paths take, so no install may be named by them. */
export const RESERVED_INSTALL_NAMES: readonly string[] = ['approvals', 'health', 'metering', 'uploads'];

export interface InstallSettings extends ViewSettings {
  hostRules: HostRuleOptions;
  /** APP_SIGNATURES: under required a tenant's version installs only with a trusted signer. */
  signatures?: 'off' | 'optional' | 'required';
  /** SECRET_STORE_KEY; null: secrets can be neither stored nor removed (503 secret_store_unavailable). */
  secretStoreKey: Buffer | null;
  /** APP_CACHE_ENTRIES and APP_CACHE_TOTAL_BYTES. */
  cacheBudget: { entries: number; totalBytes: number };
}

export interface InstallContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
  settings: InstallSettings;
  /** Who calls an install's names (the definitions layer; NO_CALLERS without it). */
  callers: InstallCallers;
  /** Moves an install at once after a write of it (the upgrades layer; NO_UPGRADE_TRIGGER without it). */
  upgrades: UpgradeTrigger;
  /** The install's vendor sessions and metering rows (the layers that keep them, wired in by the api). */
  records: InstallRecords;
}

export type { CreateBody, SaveBody } from './plan.ts';

export const unknownInstall = (name: string, renamedTo?: string) =>
  renamedTo === undefined
    ? new ApiError('unknown_install', `no install named ${name} in this tenant`)
    : new ApiError('unknown_install', `install ${name} was renamed to ${renamedTo}`, { renamedTo });

/**
 * The 404 for a name no install has now: a kept alias (a former name it still answers to)
 * names the install's current name in details.renamedTo. The /app-installs/:install routes take the
 * current name only; calls by definitions (a later issue) are the ones that follow aliases.
 */
export async function unknownInstallOf(db: Queryable, tenantId: string, name: string): Promise<ApiError> {
  const [alias] = await db
    .select({ installName: appInstalls.name })
    .from(appInstallAliases)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallAliases.installId))
    .where(and(eq(appInstallAliases.tenantId, tenantId), eq(appInstallAliases.alias, name)));
  return unknownInstall(name, alias?.installName);
}

/** The install of that current name (locked for update when asked), else 404 unknown_install. */
export async function requireInstall(db: Queryable, tenantId: string, name: string, lock: boolean) {
  const row = await findInstall(db, tenantId, name, lock);
  if (!row) throw await unknownInstallOf(db, tenantId, name);
  return row;
}

/**
 * updated_at of a write to an install: strictly later than the write before, even when both transactions
 * started in the same instant (the audit's previousUpdatedAt relies on it).
 */
export const nextUpdatedAt = () => sql`greatest(now(), ${appInstalls.updatedAt} + interval '1 millisecond')`;

/** The data of app.installed: the install as it comes into service. */
export const installedData = (install: InstallRow, version: VersionRow) => ({
  versionId: install.versionId,
  version: version.version,
  publisher: version.publisher,
  autoUpgrade: install.autoUpgrade,
  enabled: install.enabled,
  hosts: install.hosts,
});

/** The data of app.configured: what a save or an approved change moved, `after` running `version`. */
export const configuredData = (before: InstallRow, after: InstallRow, version: VersionRow) => ({
  previousUpdatedAt: before.updatedAt.toISOString(),
  updatedAt: after.updatedAt.toISOString(),
  versionId: after.versionId,
  version: version.version,
  previousVersionId: before.versionId,
  configChanged: !isDeepStrictEqual(before.config, after.config),
  enabled: after.enabled,
  previousEnabled: before.enabled,
  autoUpgrade: after.autoUpgrade,
  hostsAdded: addedHosts(before.hosts, after.hosts),
  hostsRemoved: removedHosts(before.hosts, after.hosts),
});

/**
 * Who writes to an install: a request's principal, or the platform itself (an automatic upgrade,
 * upgrade/sweeps). Audit records name its actor; changes record its subject as requester or decider.
 */
export interface Writer {
  tenantId: string;
  actor: Actor;
  /** The token's subject, or the platform's own subject (docs/upgrades.md "Who asks"). */
  subject: string;
  /** The display name recorded beside the subject. */
  name: string | null;
  requestId: string | null;
}

/** A request's install context, or a writer that is no request (the platform). */
export type WrittenBy = InstallContext | Writer;

export const writerOf = (by: WrittenBy): Writer =>
  'principal' in by
    ? {
        tenantId: by.principal.tenantId,
        actor: actorOf(by.principal),
        subject: by.principal.subject,
        name: by.principal.name,
        requestId: by.requestId,
      }
    : by;

/** Who a request's side effects are audited as: its principal and request id. */
export const auditBy = (by: WrittenBy) => {
  const writer = writerOf(by);
  return { actor: writer.actor, requestId: writer.requestId };
};

/** The audit record of `action` on the install, by the request's caller or the writer named. */
export const auditEntryOf = (
  by: WrittenBy,
  action: string,
  install: Pick<InstallRow, 'id' | 'name' | 'appName'>,
  data: Record<string, unknown>,
): AuditEntry => {
  const writer = writerOf(by);
  return {
    tenantId: writer.tenantId,
    action,
    actor: writer.actor,
    resource: { type: 'app_install', id: install.id },
    data: { name: install.name, appName: install.appName, ...data },
    requestId: writer.requestId,
  };
};

export const audit = (
  tx: Queryable,
  by: WrittenBy,
  action: string,
  install: Pick<InstallRow, 'id' | 'name' | 'appName'>,
  data: Record<string, unknown>,
) => recordAudit(tx, auditEntryOf(by, action, install, data));

// ---- reading ----------------------------------------------------------------------------------------

export async function listInstalls(ctx: InstallContext, appName?: string): Promise<InstallView[]> {
  const db = ctx.database.db;
  const where = appName
    ? and(eq(appInstalls.tenantId, ctx.principal.tenantId), eq(appInstalls.appName, appName))
    : eq(appInstalls.tenantId, ctx.principal.tenantId);
  const rows = await db.select().from(appInstalls).where(where).orderBy(asc(appInstalls.name));
  return installViews(db, ctx, rows);
}

export async function findInstall(db: Queryable, tenantId: string, name: string, lock: boolean) {
  const query = db
    .select()
    .from(appInstalls)
    .where(and(eq(appInstalls.tenantId, tenantId), eq(appInstalls.name, name)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function getInstall(ctx: InstallContext, name: string): Promise<InstallView> {
  const db = ctx.database.db;
  const row = await requireInstall(db, ctx.principal.tenantId, name, false);
  return (await installViews(db, ctx, [row]))[0] as InstallView;
}

/** The view of the install of that id (it exists: the caller just wrote it). */
export async function viewOfId(ctx: InstallContext, id: string): Promise<InstallView> {
  const db = ctx.database.db;
  const [row] = await db.select().from(appInstalls).where(eq(appInstalls.id, id));
  if (!row) throw new Error(`install ${id} does not exist`);
  return (await installViews(db, ctx, [row]))[0] as InstallView;
}

/** Install names of the tenant by app name, for the catalogue's entries (GET /apps). */
export function installNamesOf(database: Database) {
  return async (tenantId: string) => {
    const rows = await database.db
      .select({ name: appInstalls.name, appName: appInstalls.appName })
      .from(appInstalls)
      .where(eq(appInstalls.tenantId, tenantId))
      .orderBy(asc(appInstalls.name));
    return (app: string) => rows.filter((r) => r.appName === app).map((r) => r.name);
  };
}

// ---- the rules of a save ----------------------------------------------------------------------------

/**
 * Serializes the tenant's writes that take or count names (create and rename): names and aliases
 * live in two tables, and the 50-install limit counts rows, so neither a unique index nor a row lock
 * alone can keep them; this transaction-scoped advisory lock can.
 */
export async function lockTenantInstalls(tx: Tx, tenantId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`app-installs:${tenantId}`}, 0))`);
}

/** 409 install_name_taken when the name is an install's name or a kept alias in the tenant. */
export async function assertNameFree(tx: Tx, tenantId: string, name: string) {
  if (await findInstall(tx, tenantId, name, false)) {
    throw new ApiError('install_name_taken', `an install named ${name} already exists`, {
      name,
      aliasOf: null,
    });
  }
  const [alias] = await tx
    .select({ installName: appInstalls.name })
    .from(appInstallAliases)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallAliases.installId))
    .where(and(eq(appInstallAliases.tenantId, tenantId), eq(appInstallAliases.alias, name)));
  if (alias) {
    throw new ApiError('install_name_taken', `${name} is a former name install ${alias.installName} keeps`, {
      name,
      aliasOf: alias.installName,
    });
  }
}

export const readView = async (tx: Tx, ctx: InstallContext, row: InstallRow) =>
  (await installViews(tx, ctx, [row]))[0] as InstallView;

/** The views of these installs with their automatic upgrades, decided as the sweep decides them. */
async function installViews(db: Queryable, ctx: InstallContext, rows: readonly InstallRow[]) {
  const plans = await readUpgradePlans(db, rows, {
    callers: ctx.callers,
    hostRules: ctx.settings.hostRules,
  });
  const upgrades = new Map([...plans].map(([id, plan]) => [id, plan.view]));
  return viewsOf(db, rows, ctx.settings, upgrades);
}

export async function readVersion(tx: Queryable, id: string): Promise<VersionRow> {
  const [row] = await tx.select().from(appVersions).where(eq(appVersions.id, id));
  if (!row) throw new Error(`version ${id} does not exist`);
  return row;
}

// ---- removal --------------------------------------------------------------------------------------

/**
 * DELETE /app-installs/:install: the install with its secrets, aliases, changes, limits, circuit and
 * cached values (the last two by cascade); its names become free. Invocations, vendor sessions and
 * metering stay. While runs wait on its sessions: 409 install_in_use naming them (details.runs, as a
 * rename's refusal names runs in flight), unless force fails them with install_removed.
 */
export async function deleteInstall(ctx: InstallContext, name: string, force: boolean): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const { sessions, metering } = ctx.records;
    const pending = await sessions.pendingOf(tx, install.id);
    if (pending > 0 && !force) {
      throw new ApiError('install_in_use', 'runs wait on this install’s callbacks', {
        pendingCallbacks: pending,
        runs: await sessions.runsWaitingOn(tx, install.id),
      });
    }
    const secrets = await tx
      .delete(appInstallSecrets)
      .where(eq(appInstallSecrets.installId, install.id))
      .returning({ name: appInstallSecrets.name });
    await tx.delete(appInstallAliases).where(eq(appInstallAliases.installId, install.id));
    // Its changes go with it (the foreign key only sets null, for decided changes of a rejected new install).
    const changes = await tx
      .delete(appInstallChanges)
      .where(eq(appInstallChanges.installId, install.id))
      .returning({ id: appInstallChanges.id });
    const failedCallbacks = force ? await sessions.failPending(tx, install.id) : 0;
    await metering.nameRows(tx, install.id, install.name);
    await tx.delete(appInstalls).where(eq(appInstalls.id, install.id));
    await audit(tx, ctx, 'app.uninstalled', install, {
      versionId: install.versionId,
      secretsRemoved: secrets.map((s) => s.name).sort(),
      changesRemoved: changes.length,
      failedCallbacks,
      force,
    });
  });
}
