// The rules a save of an install is checked against (docs/installs.md "Rules, in the order they are
// checked"), shared by create, PUT and the approval of a held save. Reads only; the callers write.
import { eq } from 'drizzle-orm';
import semver from 'semver';
import { assertNotBlocked } from '../catalogue/blocks.ts';
import { assertProvenanceAllows, type SignatureMode } from '../catalogue/provenance/provenance-gate.ts';
import { appVersions } from '../catalogue/tables.ts';
import type { Tx } from '../db/pool.ts';
import { ApiError, validationError } from '../http/errors.ts';
import { compiledSchema, type Manifest } from '../module/index.ts';
import { addedHosts, type HostRuleOptions, installHosts } from './hosts.ts';
import { schemaIssues, withRuleIssues } from './schema-issues.ts';
import { checkSecretReferences, checkSecretVariables, requiredSecrets } from './secrets/secrets-rules.ts';
import type { AutoUpgrade } from './tables.ts';
import type { VersionRow } from './view.ts';
import { webhookSourceIssues } from './webhook-source-rules.ts';

/** What a save of an install asks for (POST and PUT /app-installs bodies, as the routes read them). */
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

/** What of an install route's context the rules read (an InstallContext is one). */
export interface PlanContext {
  principal: { tenantId: string };
  settings: { hostRules: HostRuleOptions; signatures?: SignatureMode };
}

/** The version a tenant may install: the platform's or its own; anything else is not a version it sees. */
async function visibleVersion(tx: Tx, tenantId: string, versionId: string): Promise<VersionRow | null> {
  const [row] = await tx.select().from(appVersions).where(eq(appVersions.id, versionId));
  if (!row) return null;
  if (row.publisher === 'platform' ? row.tenantId !== null : row.tenantId !== tenantId) return null;
  return row;
}

const versionIssue = (message: string) => validationError([{ path: '/versionId', message }], message);

export const blockTarget = (v: VersionRow) => ({
  sha256: v.sha256,
  publisher: v.publisher,
  tenantId: v.tenantId,
  name: v.name,
});

/** Whether two versions are of one app: same name, same publisher (and the same tenant for its own). */
export const sameApp = (a: VersionRow, b: VersionRow) =>
  a.name === b.name && a.publisher === b.publisher && a.tenantId === b.tenantId;

/**
 * The config's issues under a manifest: its schema and its secret variables first (the variables' rules
 * point more precisely than a schema can), then its URLs, secret references and webhook id source.
 */
export function configIssues(
  manifest: Manifest,
  config: Record<string, unknown>,
  hostRules: HostRuleOptions,
) {
  const schema = manifest.configSchema;
  const validate = compiledSchema(`config:${JSON.stringify(schema)}`, schema, {
    allErrors: true,
    verbose: true,
  });
  const variables = checkSecretVariables(manifest, config);
  if (!validate(config)) {
    return { issues: withRuleIssues(schemaIssues(validate.errors ?? []), variables), hosts: [] as string[] };
  }
  const issues = [
    ...variables,
    ...checkSecretReferences(manifest, config),
    ...webhookSourceIssues(manifest, config),
  ];
  const hosts = installHosts(manifest, config, hostRules);
  if (!hosts.ok) issues.push(...hosts.issues);
  return { issues, hosts: hosts.ok ? hosts.hosts : [] };
}

export interface Planned {
  version: VersionRow;
  /** The hosts the install has once the save applies. */
  hosts: string[];
  /** Hosts the save adds to the install's current ones (all of them for a new install). */
  added: string[];
}

/**
 * Whether a save may ask for a version of this status: published; or withdrawn when it is the version the
 * install's last automatic upgrade left (upgradedFromVersionId) and autoUpgrade is off once saved. Blocks
 * are checked apart (a blocked version is refused whatever its status).
 */
export const saveMayAsk = (
  version: Pick<VersionRow, 'id' | 'status'>,
  upgradedFromVersionId: string | null,
  autoUpgrade: AutoUpgrade,
) =>
  version.status === 'published' ||
  (version.status === 'withdrawn' && version.id === upgradedFromVersionId && autoUpgrade === 'off');

/**
 * Checks a save of `body` against the rules shared by create and PUT, from the install's current hosts:
 * the version, autoUpgrade, the config, and that approveHosts lists every host the save adds. Whether the
 * save then waits for approval, and whether its required secrets are stored, the caller decides
 * (assertConfigured): a save that waits is enabled only once approved.
 */
export async function plan(
  tx: Tx,
  ctx: PlanContext,
  body: SaveBody,
  autoUpgrade: AutoUpgrade,
  current: { hosts: string[]; version?: VersionRow; upgradedFromVersionId?: string | null },
): Promise<Planned> {
  const version = await visibleVersion(tx, ctx.principal.tenantId, body.versionId);
  if (!version) throw versionIssue('no version of that id is available to this tenant');
  if (current.version && !sameApp(version, current.version)) {
    throw versionIssue(`the version must be a version of the install's own app ${current.version.name}`);
  }
  const upgradedFrom = current.upgradedFromVersionId ?? null;
  if (!saveMayAsk(version, upgradedFrom, autoUpgrade)) {
    throw versionIssue(
      version.id === upgradedFrom && version.status === 'withdrawn'
        ? `version ${version.version} is withdrawn: moving back to the version the last automatic upgrade left needs autoUpgrade off in the same save`
        : `version ${version.version} is ${version.status}, not published`,
    );
  }
  await assertNotBlocked(tx, blockTarget(version));
  // A save staying on its version is not gated: the install runs it already.
  if (current.version?.id !== version.id) assertProvenanceAllows(ctx.settings.signatures ?? 'off', version);
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
      'hosts_not_approved',
      `approveHosts must list every host the save adds: ${notApproved.join(', ')}`,
      { added, notApproved },
    );
  }
  return { version, hosts, added };
}

/** The required secrets of that version under that config that are not stored. */
export const missingSecrets = (manifest: Manifest, config: unknown, stored: readonly string[]) =>
  requiredSecrets(manifest, config).filter((name) => !stored.includes(name));

/** 409 install_not_configured when a save applying now asks enabled true with a required secret missing. */
export function assertConfigured(planned: Planned, body: SaveBody, stored: readonly string[]) {
  if (!body.enabled) return;
  const missing = missingSecrets(planned.version.manifest, body.config, stored);
  if (missing.length > 0) {
    throw new ApiError('install_not_configured', `store the required secrets first: ${missing.join(', ')}`, {
      missingSecrets: missing,
    });
  }
}
