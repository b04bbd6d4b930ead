// What a version records of its bundle, and how it is shown with trust computed against the policy the
// process read at start (docs/provenance.md "What is recorded and shown").
import { type SignerRecord, type TrustedSigner, trustedSignerOf } from './policy-rules.ts';

/** The transparency-log entry a bundle carries: the log's id (hex), the entry's index and its time. */
export interface LogEntryRecord {
  logId: string;
  logIndex: string;
  integratedTime: string | null;
}

/**
 * Stored in app_versions.provenance. Trust is never stored: the policy may change between starts. Kind
 * `signature` or `attestation`: a verified bundle; `release`: a version of the release catalogue.
 */
export interface ProvenanceRecord {
  kind: 'signature' | 'attestation' | 'release';
  signer: SignerRecord;
  /** The source repository a keyless certificate names (Fulcio's extension), else null. */
  source: string | null;
  transparencyLog: LogEntryRecord | null;
  /** The earliest verified time: a log entry's integrated time or an RFC 3161 timestamp. */
  signedAt: string | null;
}

export type ProvenanceView = ProvenanceRecord & { trusted: boolean; trustedSigner: string | null };

/**
 * What a release version records: it is built and shipped with the platform, so it is proven by where it
 * comes from rather than by a bundle, and trusted whatever the policy (which names no release signer).
 */
export const RELEASE_PROVENANCE: ProvenanceRecord = {
  kind: 'release',
  signer: { kind: 'release' },
  source: null,
  transparencyLog: null,
  signedAt: null,
};

const KINDS: readonly unknown[] = [
  'signature',
  'attestation',
  'release',
] satisfies ProvenanceRecord['kind'][];

/**
 * The policy every view computes trust with: set once when a process reads its settings (the api at
 * start, an `ops` command per run), so trust is computed as at start wherever shown.
 */
let policy: readonly TrustedSigner[] = [];

export function useTrustPolicy(signers: readonly TrustedSigner[]): void {
  policy = signers;
}

export const trustPolicy = (): readonly TrustedSigner[] => policy;

/** A stored record read back: null for anything not shaped as one (rows from before provenance). */
export function asRecord(value: unknown): ProvenanceRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Partial<ProvenanceRecord>;
  if (!KINDS.includes(record.kind)) return null;
  if (typeof record.signer !== 'object' || record.signer === null) return null;
  return record as ProvenanceRecord;
}

/** A record as shown, with trust against the given policy (the process's by default). */
export function provenanceView(
  value: unknown,
  signers: readonly TrustedSigner[] = policy,
): ProvenanceView | null {
  const record = asRecord(value);
  if (record === null) return null;
  const entry = trustedSignerOf(record.signer, signers);
  return {
    kind: record.kind,
    signer: record.signer,
    source: record.source ?? null,
    transparencyLog: record.transparencyLog ?? null,
    signedAt: record.signedAt ?? null,
    trusted: record.kind === 'release' || entry !== null,
    trustedSigner: entry?.name ?? null,
  };
}
