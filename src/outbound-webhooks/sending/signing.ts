// The signature of a delivery (docs/outbound-webhooks.md): X-Service-Signature `t=<unix seconds>,v1=<hex>`,
// one v1 per active secret, each an HMAC-SHA256 keyed with the secret's text (its UTF-8 bytes, exactly as
// it was shown) over `<t>.<raw body>`. Pure.
import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` and 32 random bytes in base64url, shown once. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signatureHeader(unixSeconds: number, rawBody: string, secrets: readonly string[]): string {
  const signed = `${unixSeconds}.${rawBody}`;
  const v1 = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(signed, 'utf8').digest('hex')}`,
  );
  return [`t=${unixSeconds}`, ...v1].join(',');
}
