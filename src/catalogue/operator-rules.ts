// Pure rules of the operator's catalogue commands (docs/operations.md "ops apps …"): what a block covers
// and is called, which versions the provenance filters of `apps list` keep, and which stopped installs the
// automatic upgrades must roll back. (Whether a version passes APP_SIGNATURES: src/provenance/gate-rules.ts.)

import type { ProvenanceView } from '../provenance/index.ts';

export type BlockScope = 'module' | 'app';

/** An id as the operator may type it (any case): anything else names nothing (404, never a query error). */
export { isUuid } from '../uuid.ts';

/** A block's target as stored: a module hash, or a publisher's app (tenant id, or null for the platform). */
export interface BlockTargetRow {
  sha256: string | null;
  publisher: 'platform' | 'tenant' | null;
  publisherTenantId: string | null;
  appName: string | null;
}

/** `module` for a block by hash, `app` for one over every version of a publisher's app. */
export const scopeOf = (block: BlockTargetRow): BlockScope => (block.sha256 !== null ? 'module' : 'app');

/** Whether two blocks stop the same thing: the same hash, or the same publisher's same app. */
export function sameTarget(a: BlockTargetRow, b: BlockTargetRow): boolean {
  if (scopeOf(a) !== scopeOf(b)) return false;
  if (scopeOf(a) === 'module') return a.sha256 === b.sha256;
  return (
    a.publisher === b.publisher && a.publisherTenantId === b.publisherTenantId && a.appName === b.appName
  );
}

/** Whether a block covers a version: by its hash, or by its publisher and app name. */
export function covers(
  block: BlockTargetRow,
  version: { sha256: string; publisher: 'platform' | 'tenant'; tenantId: string | null; name: string },
): boolean {
  if (block.sha256 !== null) return block.sha256 === version.sha256;
  return (
    block.publisher === version.publisher &&
    block.publisherTenantId === version.tenantId &&
    block.appName === version.name
  );
}

/** A version's provenance as shown (with trust from the policy), or null when it has none. */
export type Provenance = ProvenanceView | null;

export interface ProvenanceFilter {
  /** Only versions without provenance. */
  unsigned?: boolean;
  /** Only versions with provenance whose signer the policy does not trust. */
  untrusted?: boolean;
  /** Only versions the policy entry of this name trusts (their trustedSigner). */
  signer?: string;
}

/**
 * The signer a provenance shows: the name of the policy entry that trusts it, else the certificate's
 * identity (with its issuer) or the key's fingerprint.
 */
export function signerOf(provenance: Provenance): string | null {
  if (provenance === null) return null;
  if (provenance.trustedSigner !== null) return provenance.trustedSigner;
  const signer = provenance.signer;
  if (signer.kind === 'release') return 'platform';
  return signer.kind === 'keyless' ? `${signer.identity} (${signer.issuer})` : signer.keyId;
}

/** Whether a version's provenance passes every provenance filter given (all must hold). */
export function provenanceMatches(provenance: Provenance, filter: ProvenanceFilter): boolean {
  if (filter.unsigned && provenance !== null) return false;
  if (filter.untrusted && (provenance === null || provenance.trusted)) return false;
  if (filter.signer !== undefined && provenance?.trustedSigner !== filter.signer) return false;
  return true;
}

/** An install a block or an operator's withdraw left on a version it may no longer move to. */
export interface StoppedInstall {
  id: string;
  tenantId: string;
  name: string;
  autoUpgrade: 'off' | 'compatible';
}

/**
 * The installs the automatic upgrades must move back (rollback): those that upgrade automatically. The
 * others stay on their version until someone moves them.
 */
export const rollbackCandidates = (installs: readonly StoppedInstall[]): string[] =>
  installs.filter((install) => install.autoUpgrade === 'compatible').map((install) => install.id);
