// Provenance (docs/provenance.md): the trust policy, the trusted roots, verifying a Sigstore bundle
// against a module, and the record a version keeps with the view that shows it.
export { checkContent, type InvalidReason, ProvenanceInvalid } from './content.ts';
export {
  identityMatches,
  type KeyEntry,
  type KeylessEntry,
  keyIdOf,
  parsePolicy,
  type SignerRecord,
  type TrustedSigner,
  trustedSignerOf,
} from './policy.ts';
export {
  asRecord,
  type ProvenanceRecord,
  type ProvenanceView,
  provenanceView,
  RELEASE_PROVENANCE,
  trustPolicy,
  useTrustPolicy,
} from './record.ts';
export { type RootLoader, type RootSettings, RootsUnavailable, rootLoader } from './roots.ts';
export { type Bundle, parseBundle, type Subject, verifyBundle } from './verify.ts';
