// Provenance settings (docs/provenance.md "Settings"): the trust policy APP_TRUSTED_SIGNERS, the trusted
// roots APP_TRANSPARENCY_TRUSTED_ROOTS (absolute paths; unset: the public-good root over TUF) and the TUF
// client's cache APP_TRANSPARENCY_TUF_CACHE.
import path from 'node:path';
// Past the door: every command reads the settings, and the door would load Sigstore's code with them.
import { parsePolicy, type TrustedSigner } from '../provenance/policy-rules.ts';
import type { Reader } from './reader.ts';

export interface ProvenanceSettings {
  signers: TrustedSigner[];
  /** Absolute paths of trusted-root JSON files; null: the public-good root over TUF. */
  trustedRoots: string[] | null;
  tufCache: string;
}

export function readProvenance(read: Reader, dataDir: string, cwd: string): ProvenanceSettings {
  const policy = parsePolicy(read.text('APP_TRUSTED_SIGNERS'));
  read.problems.push(...policy.problems);
  const tufCache = read.text('APP_TRANSPARENCY_TUF_CACHE');
  return {
    signers: policy.signers,
    trustedRoots: trustedRoots(read),
    tufCache: tufCache ? path.resolve(cwd, tufCache) : path.join(dataDir, 'tuf-cache'),
  };
}

function trustedRoots(read: Reader): string[] | null {
  const raw = read.text('APP_TRANSPARENCY_TRUSTED_ROOTS');
  if (raw === null) return null;
  const files = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const relative = files.find((file) => !path.isAbsolute(file));
  if (files.length === 0 || relative !== undefined) {
    read.problems.push(
      `APP_TRANSPARENCY_TRUSTED_ROOTS: expected a comma list of absolute paths of trusted-root files, got "${relative ?? raw}"`,
    );
    return null;
  }
  return files;
}
