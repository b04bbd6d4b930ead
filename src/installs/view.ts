// The install view (docs/installs.md): the install row unfolded with its version, the secrets it needs
// and has, whether a higher version waits, where vendors send webhooks, its aliases and its
// circuit, and the change waiting for approval. Reading only: a view never changes anything.
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import semver from 'semver';
import { appVersions } from '../catalogue/tables.ts';
import { type VersionSummary, versionSummary } from '../catalogue/views.ts';
import type { Queryable } from '../db/pool.ts';
import type { Manifest } from '../module/index.ts';
import { receivesWebhooks } from './capabilities.ts';
import { type ChangeRow, type ChangeView, changeView } from './changes/changes-rules.ts';
import { type CircuitRow, settingsInForce, shownCircuit } from './circuit/circuit-rules.ts';
import { readCircuits } from './circuit/circuit-store.ts';
import { requiredSecrets } from './secrets/secrets-rules.ts';
import { appInstallAliases, appInstallChanges, appInstallSecrets, type appInstalls } from './tables.ts';
import { NO_UPGRADE, type UpgradeView } from './upgrade/upgrade-rules.ts';

export type InstallRow = typeof appInstalls.$inferSelect;
export type VersionRow = typeof appVersions.$inferSelect;

/** What the view reads of the deployment. */
export interface ViewSettings {
  /** WEBHOOK_PUBLIC_URL; null: the deployment has no public webhook address. */
  webhookBase: string | null;
  /** APP_CIRCUIT_FAILURE_THRESHOLD and APP_CIRCUIT_OPEN_SECONDS. */
  circuitDefaults: { failureThreshold: number; openSeconds: number };
}

export interface InstallView {
  id: string;
  tenantId: string;
  name: string;
  appName: string;
  versionId: string;
  version: VersionSummary;
  autoUpgrade: 'off' | 'compatible';
  upgradedFromVersionId: string | null;
  enabled: boolean;
  config: Record<string, unknown>;
  hosts: string[];
  createdAt: string;
  updatedAt: string;
  requiredSecrets: string[];
  storedSecrets: string[];
  missingSecrets: string[];
  updateAvailable: boolean;
  webhookUrl: string | null;
  /** The open install change (a save waiting for approval), or null. */
  pendingChange: ChangeView | null;
  aliases: string[];
  /** Present when autoUpgrade is compatible: where the platform moves it next (docs/upgrades.md). */
  upgrade?: UpgradeView;
  circuit: {
    state: 'closed' | 'open' | 'half_open';
    failures: number;
    since: string | null;
    settings: { failureThreshold: number | null; openSeconds: number | null } | null;
    defaults: { failureThreshold: number; openSeconds: number };
  };
}

/** What the view needs beyond the row: its version, its publisher's published versions, names stored. */
export interface ViewParts {
  version: VersionRow;
  /** Published versions of the same app and publisher. */
  published: readonly Pick<VersionRow, 'version'>[];
  storedSecrets: readonly string[];
  aliases: readonly string[];
  /** The install's open change, if any. */
  pendingChange?: ChangeRow | null;
  /** Its circuit row (null: none yet) and the database's now, which decides an open time's end. */
  circuit?: { row: CircuitRow | null; now: Date };
  /** Its automatic upgrade (upgrade/upgrade-store.ts); absent: nothing to move to. */
  upgrade?: UpgradeView;
}

/**
 * Whether the publisher has published a higher version than `running`: a prerelease counts
 * only for an install that runs a prerelease.
 */
export function updateAvailable(running: string, published: readonly { version: string }[]): boolean {
  const onPrerelease = semver.prerelease(running) !== null;
  return published.some(
    (v) => semver.gt(v.version, running) && (onPrerelease || semver.prerelease(v.version) === null),
  );
}

/**
 * Where vendors send this install's webhooks, or null when it receives none: the deployment has no public
 * webhook address (WEBHOOK_PUBLIC_URL), the version handles no webhooks, or it reads the id source from
 * config (webhookExternalIdFromConfig) and the config holds none.
 */
export function webhookUrl(
  manifest: Pick<Manifest, 'handles'>,
  config: unknown,
  installId: string,
  base: string | null,
): string | null {
  if (base === null || !receivesWebhooks(manifest, config)) return null;
  return `${base.replace(/\/+$/, '')}/webhooks/app-installs/${installId}`;
}

export function installView(row: InstallRow, parts: ViewParts, settings: ViewSettings): InstallView {
  const manifest = parts.version.manifest;
  const required = requiredSecrets(manifest, row.config);
  const stored = [...parts.storedSecrets].sort();
  const own =
    row.circuitFailureThreshold === null && row.circuitOpenSeconds === null
      ? null
      : { failureThreshold: row.circuitFailureThreshold, openSeconds: row.circuitOpenSeconds };
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    appName: row.appName,
    versionId: row.versionId,
    version: versionSummary(parts.version),
    autoUpgrade: row.autoUpgrade,
    upgradedFromVersionId: row.upgradedFromVersionId,
    enabled: row.enabled,
    config: row.config,
    hosts: row.hosts,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    requiredSecrets: required,
    storedSecrets: stored,
    missingSecrets: required.filter((name) => !stored.includes(name)),
    updateAvailable: updateAvailable(parts.version.version, parts.published),
    webhookUrl: webhookUrl(manifest, row.config, row.id, settings.webhookBase),
    pendingChange: parts.pendingChange ? changeView(parts.pendingChange, row.name) : null,
    aliases: [...parts.aliases],
    ...(row.autoUpgrade === 'compatible' ? { upgrade: parts.upgrade ?? NO_UPGRADE } : {}),
    circuit: {
      ...circuitShown(row, parts.circuit, settings),
      settings: own,
      defaults: { ...settings.circuitDefaults },
    },
  };
}

function circuitShown(row: InstallRow, circuit: ViewParts['circuit'], settings: ViewSettings) {
  const shown = shownCircuit(
    circuit?.row ?? null,
    settingsInForce(row, settings.circuitDefaults),
    circuit?.now ?? new Date(),
  );
  return { state: shown.state, failures: shown.failures, since: shown.since?.toISOString() ?? null };
}

/** The published versions of a version's app and publisher (the tenant's own, or the platform's). */
export async function publishedVersionsOf(db: Queryable, version: VersionRow): Promise<VersionRow[]> {
  return db
    .select()
    .from(appVersions)
    .where(
      and(
        eq(appVersions.name, version.name),
        eq(appVersions.publisher, version.publisher),
        version.tenantId === null ? isNull(appVersions.tenantId) : eq(appVersions.tenantId, version.tenantId),
        eq(appVersions.status, 'published'),
      ),
    );
}

/** Names of the secrets stored for each install, by install id. */
export async function readStoredSecretNames(db: Queryable, installIds: readonly string[]) {
  const byInstall = new Map<string, string[]>();
  if (installIds.length === 0) return byInstall;
  const rows = await db
    .select({ installId: appInstallSecrets.installId, name: appInstallSecrets.name })
    .from(appInstallSecrets)
    .where(inArray(appInstallSecrets.installId, [...installIds]));
  for (const row of rows) byInstall.set(row.installId, [...(byInstall.get(row.installId) ?? []), row.name]);
  return byInstall;
}

/** The open change of each install, by install id. */
export async function openChangesOf(db: Queryable, installIds: readonly string[]) {
  const byInstall = new Map<string, ChangeRow>();
  if (installIds.length === 0) return byInstall;
  const rows = await db
    .select()
    .from(appInstallChanges)
    .where(and(inArray(appInstallChanges.installId, [...installIds]), isNull(appInstallChanges.decision)));
  for (const row of rows) if (row.installId) byInstall.set(row.installId, row);
  return byInstall;
}

/** The aliases of each install, oldest first, by install id. */
export async function aliasesByInstall(db: Queryable, installIds: readonly string[]) {
  const byInstall = new Map<string, string[]>();
  if (installIds.length === 0) return byInstall;
  const rows = await db
    .select({ installId: appInstallAliases.installId, alias: appInstallAliases.alias })
    .from(appInstallAliases)
    .where(inArray(appInstallAliases.installId, [...installIds]))
    .orderBy(asc(appInstallAliases.createdAt));
  for (const row of rows) byInstall.set(row.installId, [...(byInstall.get(row.installId) ?? []), row.alias]);
  return byInstall;
}

/**
 * The views of these installs, in their order, reading what they need in a few queries; `upgrades` are
 * their automatic upgrades by install id (upgrade/upgrade-store.ts readUpgradePlans).
 */
export async function viewsOf(
  db: Queryable,
  rows: readonly InstallRow[],
  settings: ViewSettings,
  upgrades: ReadonlyMap<string, UpgradeView> = new Map(),
): Promise<InstallView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const versions = await db
    .select()
    .from(appVersions)
    .where(inArray(appVersions.id, [...new Set(rows.map((r) => r.versionId))]));
  const versionById = new Map(versions.map((v) => [v.id, v]));
  const publishedByVersion = new Map<string, VersionRow[]>();
  for (const version of versions) publishedByVersion.set(version.id, await publishedVersionsOf(db, version));
  const secrets = await readStoredSecretNames(db, ids);
  const aliases = await aliasesByInstall(db, ids);
  const changes = await openChangesOf(db, ids);
  const circuits = await readCircuits(db, ids);
  return rows.map((row) => {
    const version = versionById.get(row.versionId);
    if (!version) throw new Error(`install ${row.id} runs a version that does not exist`);
    return installView(
      row,
      {
        version,
        published: publishedByVersion.get(version.id) ?? [],
        storedSecrets: secrets.get(row.id) ?? [],
        aliases: aliases.get(row.id) ?? [],
        pendingChange: changes.get(row.id) ?? null,
        circuit: { row: circuits.byInstall.get(row.id) ?? null, now: circuits.now },
        ...(upgrades.has(row.id) ? { upgrade: upgrades.get(row.id) } : {}),
      },
      settings,
    );
  });
}
