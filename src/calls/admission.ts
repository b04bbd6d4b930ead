// Step 1 of an attempt (docs/calls.md, the order of an attempt): the install may take the call — enabled
// (unless the caller runs it either way, as a test call does), its module not blocked (read every
// attempt), the action declared, the input mapping within what the action lets run data fill, the input
// valid, and every required secret opened. A refusal throws its API error; nothing has been sent,
// metered or recorded.
import type { ValidateFunction } from 'ajv';
import { appBlocked, findBlock } from '../catalogue/blocks.ts';
import type { Queryable } from '../db/pool.ts';
import { ApiError, issuesUnder, validationError } from '../http/errors.ts';
import {
  childPointer,
  type InstallRow,
  open,
  readStoredSecrets,
  requiredSecrets,
  type StoredSecret,
  type VersionRow,
} from '../installs/index.ts';
import { type ActionDeclaration, compiledSchema, type JsonSchema, unmappableKeys } from '../module/index.ts';

export interface Admitted {
  install: InstallRow;
  version: VersionRow;
  action: ActionDeclaration;
  /** The required secrets, opened: only these go to the runner. */
  secrets: Record<string, string>;
  /** Checks an ok answer's output against the action's output schema. */
  checkOutput: ValidateFunction;
}

export interface AdmissionOptions {
  /** False for a test call: it runs enabled or not. */
  requireEnabled: boolean;
  secretStoreKey: Buffer | null;
}

/** Compiled schemas by version and action: a version is immutable, so its schemas never change. */
const compiled = (versionId: string, part: string, schema: JsonSchema): ValidateFunction =>
  compiledSchema(`${versionId}:${part}`, schema, { allErrors: true });

const notConfigured = (message: string, missingSecrets: string[]) =>
  new ApiError('install_not_configured', message, { missingSecrets });

export async function admit(
  db: Queryable,
  install: InstallRow,
  version: VersionRow,
  /**
   * blockReason: as read with the install (null: none); absent, read here. inputMapping: the mapping a
   * step's or rule's input was built with (absent for a test call, whose input is all literal).
   * secrets: the install's sealed secrets as read with it; absent, read here (when any is required).
   */
  call: {
    action: string;
    input: unknown;
    inputMapping?: Record<string, string>;
    blockReason?: string | null;
    secrets?: readonly StoredSecret[];
  },
  options: AdmissionOptions,
): Promise<Admitted> {
  if (options.requireEnabled && !install.enabled) {
    throw notConfigured(`install ${install.name} is disabled`, []);
  }
  // Read beside the block check, awaited in the order of the refusals: blocked, action, input, secrets.
  const opening = openRequiredSecrets(db, install, version, options.secretStoreKey, call.secrets);
  opening.catch(() => {}); // a refusal before it is awaited must not leave it unhandled
  const blockReason = call.blockReason !== undefined ? call.blockReason : await blockReasonOf(db, version);
  if (blockReason !== null) throw appBlocked(version.sha256, blockReason);
  const action = version.manifest.actions.find((a) => a.name === call.action);
  if (!action) {
    throw validationError(
      [{ path: '/action', message: `${version.name} ${version.version} declares no action ${call.action}` }],
      `unknown action ${call.action}`,
    );
  }
  // Checked on every call, not only when a definition is validated: the install may have moved since to
  // a version whose action lets run data fill fewer fields.
  const unmappable = unmappableKeys(action.mappable, call.inputMapping);
  if (unmappable.length > 0) {
    const fields = action.mappable?.join(', ');
    throw validationError(
      unmappable.map((key) => ({
        path: childPointer('/inputMapping', key),
        message: `${version.name} ${version.version} lets run data fill only ${fields} of action ${action.name}`,
      })),
      `the input mapping sets fields action ${action.name} does not let run data fill`,
    );
  }
  const checkInput = compiled(version.id, `${action.name}:input`, action.input);
  if (!checkInput(call.input)) {
    throw validationError(
      issuesUnder('/input', checkInput.errors ?? []),
      `the input does not match action ${action.name}'s input schema`,
    );
  }
  const secrets = await opening;
  return {
    install,
    version,
    action,
    secrets,
    checkOutput: outputCheckOf(version, action),
  };
}

/** The reason of a block covering the version (its hash, or its publisher's app); null: none. */
async function blockReasonOf(db: Queryable, version: VersionRow): Promise<string | null> {
  return (await findBlock(db, version))?.reason ?? null;
}

/** Checks an output against the version's action's output schema (compiled once per version and action). */
export const outputCheckOf = (version: VersionRow, action: ActionDeclaration): ValidateFunction =>
  compiled(version.id, `${action.name}:output`, action.output);

/**
 * The install's required secrets under `version`, opened (an attempt's, a vendor webhook's and a
 * hand-off's, whose session's version may not be the one the install runs). A required secret without a
 * stored value — or one that no longer opens with the deployment's key — is 409 install_not_configured
 * naming them all.
 */
export async function openRequiredSecrets(
  db: Queryable,
  install: InstallRow,
  version: VersionRow,
  key: Buffer | null,
  /** The install's sealed secrets as read with it (resolveCall, a vendor webhook's); absent: read here. */
  stored?: readonly StoredSecret[],
): Promise<Record<string, string>> {
  const required = requiredSecrets(version.manifest, install.config);
  if (required.length === 0) return {};
  if (!key) {
    throw new ApiError(
      'secret_store_unavailable',
      'this deployment has no secret store key (SECRET_STORE_KEY)',
    );
  }
  const rows = stored ?? (await readStoredSecrets(db, install.id));
  const secrets: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of required) {
    const row = rows.find((r) => r.name === name);
    const value = row
      ? open(key, { tenantId: install.tenantId, installId: install.id, name }, row.sealed)
      : null;
    if (value === null) missing.push(name);
    else secrets[name] = value;
  }
  if (missing.length > 0) {
    throw notConfigured(`store the required secrets first: ${missing.join(', ')}`, missing);
  }
  return secrets;
}
