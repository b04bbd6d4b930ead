// Verifying a Sigstore bundle against a module (docs/provenance.md): its content must name the module,
// then @sigstore/verify checks signature, certificate or key, log entries and timestamps under one of the
// trusted roots. The result is what a version records.
import crypto from 'node:crypto';
import { type Bundle, bundleFromJSON } from '@sigstore/bundle';

export type { Bundle };

import { RFC3161Timestamp, X509Certificate } from '@sigstore/core';
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { type Signer, toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { checkContent, ProvenanceInvalid } from './content.ts';
import { type KeyEntry, keyIdOf, type SignerRecord, type TrustedSigner } from './policy-rules.ts';
import type { LogEntryRecord, ProvenanceRecord } from './record.ts';

/** Fulcio's source repository URI extension (v2, a DER UTF8String). */
const OID_SOURCE_REPOSITORY = '1.3.6.1.4.1.57264.1.12';

export interface Subject {
  module: Uint8Array;
  /** The module's sha256 as the version row holds it (lower-case hex). */
  sha256: string;
}

/** The bundle's JSON parsed, or ProvenanceInvalid malformed. */
export function parseBundle(json: unknown): Bundle {
  try {
    return bundleFromJSON(json);
  } catch {
    throw new ProvenanceInvalid('malformed', 'the body is not a Sigstore bundle');
  }
}

/** What the module's version records of a bundle that proves it; ProvenanceInvalid otherwise. */
export function verifyBundle(
  bundle: Bundle,
  subject: Subject,
  roots: readonly TrustedRoot[],
  policy: readonly TrustedSigner[],
): ProvenanceRecord {
  const kind = checkContent(bundle, subject.sha256);
  const artifact = kind === 'signature' ? Buffer.from(subject.module) : undefined;
  const entity = toSignedEntity(bundle, artifact);
  const keys = candidateKeys(bundle, policy);
  for (const root of roots) {
    for (const key of keys) {
      const signer = tryVerify(root, key, entity);
      if (signer) return recordOf(kind, bundle, signer);
    }
  }
  throw new ProvenanceInvalid('signature', 'the bundle’s signature does not verify under the trusted roots');
}

/**
 * The keys a key-signed bundle may verify with: the policy's key entry its hint names (by name or
 * fingerprint), else every key entry. A key the policy does not hold cannot be verified at all. A
 * certificate brings its own key: one pass without.
 */
function candidateKeys(bundle: Bundle, policy: readonly TrustedSigner[]): (KeyEntry | null)[] {
  const material = bundle.verificationMaterial.content;
  if (material.$case !== 'publicKey') return [null];
  const entries = policy.filter((e): e is KeyEntry => 'keyId' in e);
  const hint = material.publicKey.hint;
  const named = entries.filter((e) => e.name === hint || hintsKey(hint, e.keyId));
  return named.length > 0 ? named : entries;
}

/** A hint naming a key by its sha256: hex (with or without `sha256:`) or base64, as cosign writes it. */
function hintsKey(hint: string, keyId: string): boolean {
  const hex = keyId.slice('sha256:'.length);
  return hint === keyId || hint === hex || hint === Buffer.from(hex, 'hex').toString('base64');
}

function tryVerify(
  root: TrustedRoot,
  key: KeyEntry | null,
  entity: ReturnType<typeof toSignedEntity>,
): Signer | null {
  const finder = (_hint: string) => {
    if (!key) throw new ProvenanceInvalid('signature', 'no key of the policy');
    return { publicKey: crypto.createPublicKey(key.publicKey), validFor: () => true };
  };
  // A log entry and a certificate timestamp are asked for only where the root lists such logs; a time
  // (a log entry's or an RFC 3161 timestamp) always.
  const verifier = new Verifier(toTrustMaterial(root, finder), {
    tlogThreshold: root.tlogs.length > 0 ? 1 : 0,
    ctlogThreshold: root.ctlogs.length > 0 ? 1 : 0,
    timestampThreshold: 1,
  });
  try {
    return verifier.verify(entity);
  } catch {
    // Every failure of @sigstore/verify (signature, chain, log, timestamp) means the same to the author.
    return null;
  }
}

function recordOf(kind: ProvenanceRecord['kind'], bundle: Bundle, signer: Signer): ProvenanceRecord {
  const log = bundle.verificationMaterial.tlogEntries[0];
  const transparencyLog: LogEntryRecord | null = log
    ? {
        logId: Buffer.from(log.logId.keyId).toString('hex'),
        logIndex: String(log.logIndex),
        integratedTime: Number(log.integratedTime) > 0 ? seconds(log.integratedTime) : null,
      }
    : null;
  return {
    kind,
    signer: signerRecord(signer),
    source: sourceOf(bundle),
    transparencyLog,
    signedAt: transparencyLog?.integratedTime ?? timestampOf(bundle),
  };
}

const seconds = (value: string | number): string => new Date(Number(value) * 1000).toISOString();

function signerRecord(signer: Signer): SignerRecord {
  const identity = signer.identity;
  if (identity?.subjectAlternativeName !== undefined)
    return {
      kind: 'keyless',
      issuer: identity.extensions?.issuer ?? '',
      identity: identity.subjectAlternativeName,
    };
  return { kind: 'key', keyId: keyIdOf(signer.key) };
}

function leafCertificate(bundle: Bundle): X509Certificate | null {
  const material = bundle.verificationMaterial.content;
  if (material.$case === 'certificate')
    return X509Certificate.parse(Buffer.from(material.certificate.rawBytes));
  if (material.$case === 'x509CertificateChain') {
    const leaf = material.x509CertificateChain.certificates[0];
    return leaf ? X509Certificate.parse(Buffer.from(leaf.rawBytes)) : null;
  }
  return null;
}

function sourceOf(bundle: Bundle): string | null {
  const extension = leafCertificate(bundle)?.extension(OID_SOURCE_REPOSITORY);
  const value = extension?.valueObj.subs?.[0]?.value;
  return value ? value.toString('utf8') : null;
}

function timestampOf(bundle: Bundle): string | null {
  const signed = bundle.verificationMaterial.timestampVerificationData?.rfc3161Timestamps[0];
  if (!signed) return null;
  return RFC3161Timestamp.parse(Buffer.from(signed.signedTimestamp)).signingTime.toISOString();
}
