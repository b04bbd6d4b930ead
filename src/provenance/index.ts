// Provenance's front door (docs/provenance.md): the trust policy and the gate of APP_SIGNATURES (pure,
// policy-rules.ts, gate-rules.ts), the trusted roots, verifying a Sigstore bundle against a module, and the
// record a version keeps with the view that shows it. The catalogue's side (the route attaching a bundle,
// its writes, the gate its writes call) is src/catalogue/provenance/: it writes catalogue versions, and
// this folder sits below the catalogue and the settings, which read it.
export { checkContent, type InvalidReason, ProvenanceInvalid } from './content.ts';
export { provenanceRefusal } from './gate-rules.ts';
export {
  identityMatches,
  type KeyEntry,
  type KeylessEntry,
  keyIdOf,
  parsePolicy,
  type SignerRecord,
  type TrustedSigner,
  trustedSignerOf,
} from './policy-rules.ts';
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
