// The trust policy (docs/provenance.md "The policy"): APP_TRUSTED_SIGNERS parsed, and which entry, if
// any, trusts a recorded signer. Pure.
import crypto from 'node:crypto';

/** A keyless entry trusts certificates of one OIDC issuer whose subject alternative name fits a glob. */
export interface KeylessEntry {
  name: string;
  issuer: string;
  identity: string;
}

/** A key entry trusts one ECDSA P-256 key; `keyId` is its fingerprint (sha256 of the DER SPKI, hex). */
export interface KeyEntry {
  name: string;
  publicKey: string;
  keyId: string;
}

export type TrustedSigner = KeylessEntry | KeyEntry;

/**
 * Who signed, as recorded: the certificate's issuer and identity, or the key's fingerprint; or the
 * platform's release, which ships its versions with the platform itself and no policy entry names.
 */
export type SignerRecord =
  | { kind: 'keyless'; issuer: string; identity: string }
  | { kind: 'key'; keyId: string }
  | { kind: 'release' };

/** The fingerprint a key entry and a key signer share: `sha256:` and the hex of the DER SPKI's hash. */
export function keyIdOf(key: crypto.KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return `sha256:${crypto.createHash('sha256').update(der).digest('hex')}`;
}

/** APP_TRUSTED_SIGNERS as entries, or the problems that make it invalid (each naming the setting). */
export function parsePolicy(raw: string | null): { signers: TrustedSigner[]; problems: string[] } {
  if (raw === null) return { signers: [], problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { signers: [], problems: ['APP_TRUSTED_SIGNERS: expected a JSON array of trusted signers'] };
  }
  if (!Array.isArray(parsed))
    return { signers: [], problems: ['APP_TRUSTED_SIGNERS: expected a JSON array of trusted signers'] };
  const signers: TrustedSigner[] = [];
  const problems: string[] = [];
  parsed.forEach((item, index) => {
    const entry = parseEntry(item);
    if (typeof entry === 'string') problems.push(`APP_TRUSTED_SIGNERS[${index}]: ${entry}`);
    else if (signers.some((s) => s.name === entry.name))
      problems.push(`APP_TRUSTED_SIGNERS[${index}]: the name "${entry.name}" is used twice`);
    else signers.push(entry);
  });
  return { signers, problems };
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** One entry, or why it is not one. */
function parseEntry(item: unknown): TrustedSigner | string {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'expected an object';
  const { name, issuer, identity, publicKey, ...rest } = item as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unknown field ${Object.keys(rest)[0]}`;
  if (!isText(name)) return 'expected a name';
  if (publicKey !== undefined) {
    if (issuer !== undefined || identity !== undefined) return 'a key entry takes name and publicKey only';
    return parseKeyEntry(name, publicKey);
  }
  if (!isText(issuer) || !isText(identity)) return 'expected issuer and identity, or publicKey';
  return { name, issuer, identity };
}

function parseKeyEntry(name: string, publicKey: unknown): KeyEntry | string {
  if (!isText(publicKey)) return 'expected publicKey as PEM';
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey(publicKey);
  } catch {
    return 'publicKey is not a PEM public key';
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    return 'publicKey must be an ECDSA P-256 key';
  return { name, publicKey, keyId: keyIdOf(key) };
}

/**
 * Whether a subject alternative name fits an identity glob: `*` matches within a path segment (no `/`),
 * `**` across segments; every other character stands for itself.
 */
export function identityMatches(glob: string, identity: string): boolean {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**', i)) {
      pattern += '.*';
      i++;
    } else if (glob[i] === '*') pattern += '[^/]*';
    else pattern += (glob[i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`, 's').test(identity);
}

/** The policy entry that trusts a signer, or null: the first that fits, in the policy's order. */
export function trustedSignerOf(
  signer: SignerRecord,
  policy: readonly TrustedSigner[],
): TrustedSigner | null {
  for (const entry of policy) {
    if (signer.kind === 'key' && 'keyId' in entry && entry.keyId === signer.keyId) return entry;
    if (
      signer.kind === 'keyless' &&
      'issuer' in entry &&
      entry.issuer === signer.issuer &&
      identityMatches(entry.identity, signer.identity)
    )
      return entry;
  }
  return null;
}
