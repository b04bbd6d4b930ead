// Sealing of install secrets and cached values (docs/installs.md "Secrets"): the shared sealing
// (src/crypto/seal.ts) bound to tenant, install id and name, so a sealed value copied to another tenant,
// install or name no longer opens.
import * as sealing from '../../crypto/seal.ts';

export { KEY_BYTES, MIN_SEALED_BYTES, SEAL_VERSION } from '../../crypto/seal.ts';

/** What an install's sealed value is bound to. */
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

/** The scope `install-seal`: the associated data values sealed before the shared sealing carry. */
const bound = (b: SealBinding): sealing.SealBinding => ['install-seal', b.tenantId, b.installId, b.name];

/** Seals `plaintext` under `key` (32 bytes; anything else throws) for this install binding. */
export function seal(key: Buffer, binding: SealBinding, plaintext: string): Buffer {
  return sealing.seal(key, bound(binding), plaintext);
}

/** The plaintext, or null when the key, the binding or the bytes do not match. Never throws. */
export function open(key: Buffer, binding: SealBinding, sealed: Uint8Array): string | null {
  if (typeof binding !== 'object' || binding === null) return null;
  return sealing.open(key, bound(binding), sealed);
}
