// What a tenant's receiver does with a delivery (docs/outbound-webhooks.md "Verifying a delivery"): the
// HMAC-SHA256 of "<t>.<raw body>" keyed with the secret's text, compared in constant time with each v1,
// and t within five minutes of now. The development listener (`platform webhooks listen`) uses it. Pure.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type Verdict = { ok: true } | { ok: false; reason: string };

export function verifyDelivery(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowMs: number,
): Verdict {
  if (!header) return { ok: false, reason: 'no X-Service-Signature header' };
  let t: string | undefined;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const [key, value] = [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 't') t = value;
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) given.push(Buffer.from(value, 'hex'));
  }
  if (!t || !/^[0-9]+$/.test(t)) return { ok: false, reason: 'no timestamp' };
  if (Math.abs(nowMs / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'timestamp more than five minutes from now' };
  }
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest();
  return given.some((v1) => timingSafeEqual(v1, expected))
    ? { ok: true }
    : { ok: false, reason: 'no signature matches the secret' };
}
