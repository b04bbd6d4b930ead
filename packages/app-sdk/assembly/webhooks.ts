// Vendor webhooks (docs/writing-apps.md): checking the vendor's signature over the exact body through
// hmac_verify, and the default event id for vendors that sign none.
import { base64Encode } from './base64';
import { WebhookRequest } from './envelope';
import { hmac, HmacOptions, hmacVerify, VerifyResult } from './host';
import { utf8 } from './io';
import { Value } from './json';

/** The fixed key of the default event id. */
export const EVENT_ID_KEY = 'service-webhook-event-id';

/**
 * Checks a signature header: HMAC of the raw body under key (normally the secret's placeholder,
 * request.call.secret('WEBHOOK_SECRET')), compared in constant time by the host. prefix is stripped
 * from the header first (e.g. "sha256="). A missing header is not valid.
 */
export function verifySignature(
  request: WebhookRequest,
  key: string,
  header: string = 'x-signature',
  prefix: string = '',
  algorithm: string = 'sha256',
  encoding: string = 'hex',
): VerifyResult {
  const given = request.header(header);
  if (given === null) {
    return new VerifyResult(
      Value.object()
        .setBool('valid', false)
        .setString('error', 'no ' + header + ' header'),
    );
  }
  let signature = given.trim();
  if (prefix.length > 0) {
    if (!signature.startsWith(prefix)) {
      return new VerifyResult(
        Value.object()
          .setBool('valid', false)
          .setString('error', header + ' lacks ' + prefix),
      );
    }
    signature = signature.substring(prefix.length);
  }
  const options = HmacOptions.base64Message();
  options.algorithm = algorithm;
  options.encoding = encoding;
  return hmacVerify(key, request.bodyBase64, signature, options);
}

/** Hex HMAC-SHA256 under EVENT_ID_KEY of the external id, one NUL byte and the body, through hmac. */
export function defaultEventIdOf(externalId: string, body: Uint8Array): string {
  const id = utf8(externalId);
  const message = new Uint8Array(id.length + 1 + body.length);
  message.set(id, 0);
  message[id.length] = 0;
  message.set(body, id.length + 1);
  const result = hmac(EVENT_ID_KEY, base64Encode(message), HmacOptions.base64Message());
  if (result.failed) abort('defaultEventId: ' + result.error!);
  return result.signature;
}

/** The default event id, for a vendor that signs none: HMAC-SHA256 of the external id, a NUL and the body. */
export function defaultEventId(externalId: string, request: WebhookRequest): string {
  return defaultEventIdOf(externalId, request.body());
}
