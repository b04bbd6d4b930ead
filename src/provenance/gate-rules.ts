// The gate of APP_SIGNATURES=required (docs/provenance.md "The gates"), as a pure rule: which versions may
// publish, be approved, install and be moved to. The catalogue applies it (catalogue/provenance/
// provenance-gate.ts answers 409 provenance_required).

/**
 * Why a version may not publish, be approved, install or be upgraded to under the deployment's
 * APP_SIGNATURES, or null when it may: only `required` gates, and only a tenant's version (platform
 * versions are never gated). `provenance` is the version's as shown, with trust from the policy.
 */
export function provenanceRefusal(
  signatures: 'off' | 'optional' | 'required',
  version: { publisher: 'platform' | 'tenant'; provenance: { trusted: boolean } | null },
): 'unsigned' | 'untrusted' | null {
  if (signatures !== 'required' || version.publisher === 'platform') return null;
  if (version.provenance === null) return 'unsigned';
  return version.provenance.trusted ? null : 'untrusted';
}
