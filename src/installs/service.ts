import { isDeepStrictEqual } from 'node:util';
// Installs of a tenant (spec part 1 §3.5, §4.2, §4.8 "Install rules", "Hosts of an install", "Secrets of
// an install"): create, save, delete, and store or remove a secret. Every write runs in one transaction
// with its audit record; a write to an install locks its row (for update), so two saves of one install
// take turns and the second starts from the first's result: no lost update.
//
// Renames and aliases: rename.ts; circuit settings: circuit.ts.
// Not here yet, with their seams marked: approvals of saves that add hosts (a tenant requiring approvals
// for apps gets 409 conflict for such a save rather than a silent bypass), limits, cached values (nothing to clear yet), callbacks (install_in_use), provenance_required.
import { and, asc, count, eq, sql } from 'drizzle-orm';
import semver from 'semver';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import { assertNotBlocked } from '../catalogue/blocks.ts';
import { appVersions } from '../catalogue/tables.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { ApiError, conflict, issuesFromAjv, validationError } from '../http/errors.ts';
import type { Manifest } from '../module/manifest-types.ts';
import { createSchemaAjv } from '../module/schemas.ts';
import { approvalRequired } from '../tenants/settings.ts';
import { tenants } from '../tenants/tables.ts';
import type { ConfigIssue } from './config-pointers.ts';
import { addedHosts, type HostRuleOptions, installHosts, removedHosts } from './hosts.ts';
import { checkSecretReferences, checkSecretVariables, requiredSecrets } from './secret-rules.ts';
import { type AutoUpgrade, appInstallAliases, appInstallSecrets, appInstalls } from './tables.ts';
import {
  type InstallRow,
  type InstallView,
  storedSecretNames,
  type VersionRow,
  type ViewSettings,
  viewsOf,
} from './view.ts';

export const MAX_INSTALLS_PER_TENANT = 50;
/** Install names the api's own paths take (spec part 1 §2.1). */
export const RESERVED_INSTALL_NAMES: readonly string[] = ['approvals', 'health', 'metering', 'uploads'];

export interface InstallSettings extends ViewSettings {
  hostRules: HostRuleOptions;
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
}

export interface SaveBody {
  versionId: string;
  enabled: boolean;
  config: Record<string, unknown>;
  approveHosts: string[];
  comment: string | null;
  /** Absent on PUT: keep the install's current value. */
  autoUpgrade?: AutoUpgrade;
}

export interface CreateBody extends SaveBody {
  name: string;
}

export const unknownInstall = (name: string, renamedTo?: string) =>
  renamedTo === undefined
    ? new ApiError(404, 'unknown_install', `no install named ${name} in this tenant`)
    : new ApiError(404, 'unknown_install', `install ${name} was renamed to ${renamedTo}`, { renamedTo });

/**
 * The 404 for a name no install has now: a kept alias (a former name, spec §4.8 "Renames and aliases")
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

export const audit = (
  tx: Tx,
  ctx: InstallContext,
  action: string,
  install: InstallRow,
  data: Record<string, unknown>,
) =>
  recordAudit(tx, {
    tenantId: ctx.principal.tenantId,
    action,
    actor: actorOf(ctx.principal),
    resource: { type: 'app_install', id: install.id },
    data: { name: install.name, appName: install.appName, ...data },
    requestId: ctx.requestId,
  });

// ---- reading ----------------------------------------------------------------------------------------

export async function listInstalls(ctx: InstallContext, appName?: string): Promise<InstallView[]> {
  const db = ctx.database.db;
  const where = appName
    ? and(eq(appInstalls.tenantId, ctx.principal.tenantId), eq(appInstalls.appName, appName))
    : eq(appInstalls.tenantId, ctx.principal.tenantId);
  const rows = await db.select().from(appInstalls).where(where).orderBy(asc(appInstalls.name));
  return viewsOf(db, rows, ctx.settings);
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
  return (await viewsOf(db, [row], ctx.settings))[0] as InstallView;
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
    throw new ApiError(409, 'install_name_taken', `an install named ${name} already exists`, {
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
    throw new ApiError(
      409,
      'install_name_taken',
      `${name} is a former name install ${alias.installName} keeps`,
      {
        name,
        aliasOf: alias.installName,
      },
    );
  }
}

/** The version a tenant may install: the platform's or its own; anything else is not a version it sees. */
async function visibleVersion(tx: Tx, tenantId: string, versionId: string): Promise<VersionRow | null> {
  const [row] = await tx.select().from(appVersions).where(eq(appVersions.id, versionId));
  if (!row) return null;
  if (row.publisher === 'platform' ? row.tenantId !== null : row.tenantId !== tenantId) return null;
  return row;
}

const versionIssue = (message: string) => validationError([{ path: '/versionId', message }], message);

const blockTarget = (v: VersionRow) => ({
  sha256: v.sha256,
  publisher: v.publisher,
  tenantId: v.tenantId,
  name: v.name,
});

/** The config's issues under a manifest: its schema first, then its URLs and secret references. */
function configIssues(manifest: Manifest, config: Record<string, unknown>, hostRules: HostRuleOptions) {
  const validate = createSchemaAjv({ allErrors: true }).compile(manifest.configSchema);
  if (!validate(config)) {
    return { issues: issuesFromAjv(validate.errors ?? [], 'body') as ConfigIssue[], hosts: [] as string[] };
  }
  const issues = [...checkSecretVariables(manifest, config), ...checkSecretReferences(manifest, config)];
  const hosts = installHosts(manifest, config, hostRules);
  if (!hosts.ok) issues.push(...hosts.issues);
  return { issues, hosts: hosts.ok ? hosts.hosts : [] };
}

interface Planned {
  version: VersionRow;
  hosts: string[];
  added: string[];
}

/**
 * Checks a save of `body` against the rules shared by create and PUT, from the install's current hosts
 * and stored secrets; answers the version and the hosts the install will have.
 */
async function plan(
  tx: Tx,
  ctx: InstallContext,
  body: SaveBody,
  autoUpgrade: AutoUpgrade,
  current: { hosts: string[]; stored: string[]; appName?: string; version?: VersionRow },
): Promise<Planned> {
  const version = await visibleVersion(tx, ctx.principal.tenantId, body.versionId);
  if (!version) throw versionIssue('no version of that id is available to this tenant');
  if (current.version) {
    const own = current.version;
    if (
      version.name !== own.name ||
      version.publisher !== own.publisher ||
      version.tenantId !== own.tenantId
    ) {
      throw versionIssue(`the version must be a version of the install's own app ${own.name}`);
    }
  }
  if (version.status !== 'published')
    throw versionIssue(`version ${version.version} is ${version.status}, not published`);
  await assertNotBlocked(tx, blockTarget(version));
  if (autoUpgrade === 'compatible') {
    if (version.publisher !== 'platform') {
      throw validationError(
        [{ path: '/autoUpgrade', message: 'automatic upgrades are for platform apps only' }],
        'autoUpgrade compatible is for platform apps only',
      );
    }
    if (current.version && semver.lt(version.version, current.version.version)) {
      throw validationError(
        [{ path: '/versionId', message: 'moving to a lower version needs autoUpgrade off in the same save' }],
        'a lower version while autoUpgrade stays on',
      );
    }
  }
  const { issues, hosts } = configIssues(version.manifest, body.config, ctx.settings.hostRules);
  if (issues.length > 0) throw validationError(issues, 'config is not valid for this version');

  const added = addedHosts(current.hosts, hosts);
  const notApproved = added.filter((host) => !body.approveHosts.includes(host));
  if (notApproved.length > 0) {
    throw new ApiError(
      409,
      'hosts_not_approved',
      `approveHosts must list every host the save adds: ${notApproved.join(', ')}`,
      {
        added,
        notApproved,
      },
    );
  }
  if (added.length > 0) await refuseWhenApprovalRequired(tx, ctx.principal.tenantId, added);

  if (body.enabled) {
    const missing = requiredSecrets(version.manifest, body.config).filter((n) => !current.stored.includes(n));
    if (missing.length > 0) {
      throw new ApiError(
        409,
        'install_not_configured',
        `store the required secrets first: ${missing.join(', ')}`,
        {
          missingSecrets: missing,
        },
      );
    }
  }
  return { version, hosts, added };
}

/**
 * Seam for approvals of install saves (spec part 1 §4.8 "Approvals of install saves", a later change):
 * when the tenant requires approvals for apps a save that adds hosts must wait for a decision (202 with a
 * change). Until that flow exists such a save is refused rather than applied past the tenant's setting.
 */
async function refuseWhenApprovalRequired(tx: Tx, tenantId: string, added: string[]) {
  const [tenant] = await tx
    .select({ settings: tenants.settings })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  if (tenant && approvalRequired(tenant.settings, 'apps')) {
    throw conflict(
      'this tenant requires approval of app installs that add hosts; install approvals are not available yet',
      { added, approvalRequired: true },
    );
  }
}

export const view = async (tx: Tx, ctx: InstallContext, row: InstallRow) =>
  (await viewsOf(tx, [row], ctx.settings))[0] as InstallView;

// ---- writes -----------------------------------------------------------------------------------------

export async function createInstall(ctx: InstallContext, body: CreateBody): Promise<InstallView> {
  const tenantId = ctx.principal.tenantId;
  if (RESERVED_INSTALL_NAMES.includes(body.name)) {
    throw validationError(
      [{ path: '/name', message: `${body.name} is reserved` }],
      `${body.name} is reserved`,
    );
  }
  try {
    return await ctx.database.db.transaction(async (tx) => {
      await lockTenantInstalls(tx, tenantId);
      await assertNameFree(tx, tenantId, body.name);
      const [counted] = await tx
        .select({ n: count() })
        .from(appInstalls)
        .where(eq(appInstalls.tenantId, tenantId));
      if ((counted?.n ?? 0) >= MAX_INSTALLS_PER_TENANT) {
        throw new ApiError(
          409,
          'install_limit_reached',
          `a tenant has at most ${MAX_INSTALLS_PER_TENANT} installs`,
          {
            max: MAX_INSTALLS_PER_TENANT,
          },
        );
      }
      const autoUpgrade = body.autoUpgrade ?? 'off';
      const planned = await plan(tx, ctx, body, autoUpgrade, { hosts: [], stored: [] });
      const [row] = await tx
        .insert(appInstalls)
        .values({
          tenantId,
          name: body.name,
          appName: planned.version.name,
          versionId: planned.version.id,
          autoUpgrade,
          enabled: body.enabled,
          config: body.config,
          hosts: planned.hosts,
        })
        .returning();
      const install = row as InstallRow;
      await audit(tx, ctx, 'app.installed', install, {
        versionId: install.versionId,
        version: planned.version.version,
        publisher: planned.version.publisher,
        autoUpgrade,
        enabled: install.enabled,
        hosts: install.hosts,
        comment: body.comment,
      });
      return view(tx, ctx, install);
    });
  } catch (error) {
    // The advisory lock makes this unreachable in practice; the unique index still has the last word.
    if (isUniqueViolation(error)) {
      throw new ApiError(409, 'install_name_taken', `an install named ${body.name} already exists`, {
        name: body.name,
        aliasOf: null,
      });
    }
    throw error;
  }
}

export async function versionById(tx: Tx, id: string): Promise<VersionRow> {
  const [row] = await tx.select().from(appVersions).where(eq(appVersions.id, id));
  if (!row) throw new Error(`version ${id} does not exist`);
  return row;
}

/** PUT /app-installs/:install: the whole state the install should have (autoUpgrade absent keeps it). */
export async function saveInstall(ctx: InstallContext, name: string, body: SaveBody): Promise<InstallView> {
  const tenantId = ctx.principal.tenantId;
  return ctx.database.db.transaction(async (tx) => {
    const current = await requireInstall(tx, tenantId, name, true);
    const autoUpgrade = body.autoUpgrade ?? current.autoUpgrade;
    const currentVersion = await versionById(tx, current.versionId);
    const configChanged = !isDeepStrictEqual(current.config, body.config);
    const versionChanged = body.versionId !== current.versionId;

    // A save that only switches the install off is never refused: not by a withdrawn or blocked version,
    // nor by a config the version would now refuse.
    const onlySwitchOff =
      !body.enabled && !versionChanged && !configChanged && autoUpgrade === current.autoUpgrade;
    let hosts = current.hosts;
    let version = currentVersion;
    if (!onlySwitchOff) {
      const stored = (await storedSecretNames(tx, [current.id])).get(current.id) ?? [];
      const planned = await plan(tx, ctx, body, autoUpgrade, {
        hosts: current.hosts,
        stored,
        version: currentVersion,
      });
      hosts = planned.hosts;
      version = planned.version;
    }
    const [row] = await tx
      .update(appInstalls)
      .set({
        versionId: version.id,
        enabled: body.enabled,
        config: onlySwitchOff ? current.config : body.config,
        hosts,
        autoUpgrade,
        // Strictly later than the save before, even when both transactions started in the same instant.
        updatedAt: sql`greatest(now(), ${appInstalls.updatedAt} + interval '1 millisecond')`,
      })
      .where(eq(appInstalls.id, current.id))
      .returning();
    const install = row as InstallRow;
    // Cached values: a save changing version or config clears them (spec §4.8); the cache arrives with a
    // later change, so there is nothing to clear yet.
    await audit(tx, ctx, 'app.configured', install, {
      previousUpdatedAt: current.updatedAt.toISOString(),
      updatedAt: install.updatedAt.toISOString(),
      versionId: install.versionId,
      version: version.version,
      previousVersionId: current.versionId,
      configChanged,
      enabled: install.enabled,
      previousEnabled: current.enabled,
      autoUpgrade,
      hostsAdded: addedHosts(current.hosts, hosts),
      hostsRemoved: removedHosts(current.hosts, hosts),
      comment: body.comment,
    });
    return view(tx, ctx, install);
  });
}

/**
 * Seam for install_in_use (spec §4.8): runs waiting on the install's callbacks. Callbacks arrive with the
 * calls issue; until then no run can wait on one, so there are none.
 */
async function pendingCallbacks(_tx: Tx, _installId: string): Promise<number> {
  return 0;
}

/** DELETE /app-installs/:install: the install with its secrets and aliases; its names become free. */
export async function deleteInstall(ctx: InstallContext, name: string, force: boolean): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const pending = await pendingCallbacks(tx, install.id);
    if (pending > 0 && !force) {
      throw new ApiError(409, 'install_in_use', 'runs wait on this install’s callbacks', {
        pendingCallbacks: pending,
      });
    }
    const secrets = await tx
      .delete(appInstallSecrets)
      .where(eq(appInstallSecrets.installId, install.id))
      .returning({ name: appInstallSecrets.name });
    await tx.delete(appInstallAliases).where(eq(appInstallAliases.installId, install.id));
    await tx.delete(appInstalls).where(eq(appInstalls.id, install.id));
    await audit(tx, ctx, 'app.uninstalled', install, {
      versionId: install.versionId,
      secretsRemoved: secrets.map((s) => s.name).sort(),
      force,
    });
  });
}
