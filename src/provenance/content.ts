// What a bundle says it signs, checked against the module before any signature is (docs/provenance.md
// "Answers"): a message signature's digest, or an in-toto statement's subjects. Pure.
import type { Bundle } from '@sigstore/bundle';
import { HashAlgorithm } from '@sigstore/protobuf-specs';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export type InvalidReason = 'malformed' | 'unsupported' | 'digest_mismatch' | 'signature';

/** A bundle that does not prove the module, and why (400 provenance_invalid). */
export class ProvenanceInvalid extends Error {
  constructor(
    readonly reason: InvalidReason,
    message: string,
  ) {
    super(message);
  }
}

/** The kind of a bundle that names the module by its sha256 (hex); throws ProvenanceInvalid otherwise. */
export function checkContent(bundle: Bundle, sha256: string): 'signature' | 'attestation' {
  const content = bundle.content;
  if (content.$case === 'messageSignature') {
    const digest = content.messageSignature.messageDigest;
    if (!digest || digest.algorithm !== HashAlgorithm.SHA2_256)
      throw new ProvenanceInvalid('unsupported', 'a message signature must carry a sha256 digest');
    if (Buffer.from(digest.digest).toString('hex') !== sha256)
      throw new ProvenanceInvalid('digest_mismatch', 'the signature is over another module');
    return 'signature';
  }
  const envelope = content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new ProvenanceInvalid('unsupported', `an attestation must carry ${IN_TOTO_PAYLOAD_TYPE}`);
  if (!subjectDigests(envelope.payload).includes(sha256))
    throw new ProvenanceInvalid('digest_mismatch', 'no subject of the statement is the module');
  return 'attestation';
}

/** The sha256 digests (lower-case hex) an in-toto statement's subjects name. */
export function subjectDigests(payload: Buffer): string[] {
  let statement: unknown;
  try {
    statement = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new ProvenanceInvalid('malformed', 'the attestation’s payload is not JSON');
  }
  const subjects = (statement as { subject?: unknown } | null)?.subject;
  if (!Array.isArray(subjects))
    throw new ProvenanceInvalid('malformed', 'the attestation’s statement has no subject list');
  return subjects
    .map((s) => (s as { digest?: { sha256?: unknown } } | null)?.digest?.sha256)
    .filter((d): d is string => typeof d === 'string')
    .map((d) => d.toLowerCase());
}
