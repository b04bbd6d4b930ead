// An endpoint's signing secrets, sealed with SECRET_STORE_KEY bound to tenant and endpoint
// (src/crypto/seal.ts): a sealed secret copied to another endpoint or tenant never opens.
import { open, type SealBinding, seal } from '../../crypto/seal.ts';

/** The overlap after a rotation, during which the previous secret signs too (docs/outbound-webhooks.md). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const binding = (tenantId: string, endpointId: string): SealBinding => [
  'webhook-endpoint-secret',
  tenantId,
  endpointId,
];

export function sealEndpointSecret(
  key: Buffer,
  tenantId: string,
  endpointId: string,
  secret: string,
): Buffer {
  return seal(key, binding(tenantId, endpointId), secret);
}

export interface SealedSecrets {
  tenantId: string;
  id: string;
  secretSealed: Buffer;
  previousSecretSealed: Buffer | null;
  previousSecretUntil: Date | null;
}

/**
 * The secrets that sign a delivery now: the current one, and the previous one while its overlap lasts.
 * Null when the current one does not open (another key): the delivery then waits.
 */
export function signingSecrets(key: Buffer, endpoint: SealedSecrets, now: Date): string[] | null {
  const bound = binding(endpoint.tenantId, endpoint.id);
  const current = open(key, bound, endpoint.secretSealed);
  if (current === null) return null;
  const previous =
    endpoint.previousSecretSealed && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now
      ? open(key, bound, endpoint.previousSecretSealed)
      : null;
  return previous === null ? [current] : [current, previous];
}
