// The gate of APP_SIGNATURES=required (docs/provenance.md "The gates"): a tenant's version publishes, is
// approved, installs and is moved to only with a signer the policy trusts.
import { ApiError } from '../../http/errors.ts';
import { provenanceRefusal, provenanceView } from '../../provenance/index.ts';
import type { appVersions } from '../tables.ts';

export type SignatureMode = 'off' | 'optional' | 'required';

type Gated = Pick<typeof appVersions.$inferSelect, 'publisher' | 'provenance'>;

/** Why the version may not pass the gate (unsigned, untrusted), or null. */
export const gateRefusal = (signatures: SignatureMode, version: Gated) =>
  provenanceRefusal(signatures, {
    publisher: version.publisher,
    provenance: provenanceView(version.provenance),
  });

/** 409 provenance_required (details.reason unsigned or untrusted) unless the version passes. */
export function assertProvenanceAllows(signatures: SignatureMode, version: Gated): void {
  const reason = gateRefusal(signatures, version);
  if (reason)
    throw new ApiError(
      'provenance_required',
      'APP_SIGNATURES is required: the version has no trusted signer',
      {
        reason,
      },
    );
}
