// Sealing of install secrets and cached values (docs/installs.md "Secrets"): AES-256-GCM under
// SECRET_STORE_KEY, bound to tenant, install id and name as associated data, so a sealed value copied to
// another tenant, install or name no longer opens. Pure apart from the random IV.
//
// Format (version 1): 1 byte version | 12-byte random IV | ciphertext | 16-byte GCM tag.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SEAL_VERSION = 1;
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';
/** The shortest sealed value: an empty plaintext. */
export const MIN_SEALED_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** What a sealed value is bound to. */
export interface SealBinding {
  tenantId: string;
  installId: string;
  name: string;
}

/**
 * The binding of a cached value. Cached values and secrets share one key and one install, so the cache
 * name is prefixed ("cache:" cannot start a secret name): a sealed secret copied into the cache never
 * opens there, nor a cached value as a secret.
 */
export function cacheBinding(tenantId: string, installId: string, name: string): SealBinding {
  return { tenantId, installId, name: `cache:${name}` };
}

/** The associated data: the format version and the binding, unambiguously (a JSON array of strings). */
function associatedData(version: number, binding: SealBinding): Buffer {
  return Buffer.from(
    JSON.stringify(['install-seal', version, binding.tenantId, binding.installId, binding.name]),
    'utf8',
  );
}

/** Seals `plaintext` under `key` (32 bytes; anything else throws) for this binding. */
export function seal(key: Buffer, aad: SealBinding, plaintext: string): Buffer {
  if (key.length !== KEY_BYTES) throw new RangeError(`a sealing key has ${KEY_BYTES} bytes`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(SEAL_VERSION, aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([SEAL_VERSION]), iv, ciphertext, cipher.getAuthTag()]);
}

/**
 * The plaintext of a sealed value, or null when the key, the binding or the bytes do not match (another
 * version, too short, tampered). Never throws on a bad value.
 */
export function open(key: Buffer, aad: SealBinding, sealed: Uint8Array): string | null {
  if (!(sealed instanceof Uint8Array) || sealed.length < MIN_SEALED_BYTES) return null;
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) return null;
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes[0] !== SEAL_VERSION) return null;
  try {
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(SEAL_VERSION, aad));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([
      decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plaintext.toString('utf8');
  } catch {
    return null;
  }
}
