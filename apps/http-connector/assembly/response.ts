// The vendor's answer as the action's answer: { status, headers, body } for a success, an error answer
// otherwise — retryable for 429, 5xx and transport failures that cannot have repeated anything.
import { Answer, error, HttpResponse, JSON, ok, Value } from '@apps-platform/app-sdk';
import { retryAfterMs } from './clock';
import { Outbound } from './outbound';

/** An answer carries at most 1 MiB; the vendor's body must leave room for the rest and for redaction. */
const MAX_BODY_CHARS = 900_000;
const SNIPPET_CHARS = 300;

/** The answer of a failed exchange, or null when the vendor answered below 400. */
export function failure(response: HttpResponse, sent: Outbound): Answer | null {
  if (response.failed) {
    const message = 'http_request: ' + response.error!;
    if (response.refused) return error(message);
    const network = response.network;
    // not_sent: no connection was made, so the vendor cannot have it. unknown: it may have arrived.
    if (network == 'not_sent') return error(message, true);
    return error(message + (sent.repeatable ? '' : ' (not retried: ' + sent.method + ' may have reached the vendor)'), sent.repeatable);
  }
  const status = response.status;
  if (status < 400) return null;
  let snippet = response.body;
  if (snippet.length > SNIPPET_CHARS) snippet = snippet.substring(0, SNIPPET_CHARS) + '…';
  const message = 'the vendor answered ' + status.toString() + (snippet.length > 0 ? ': ' + snippet : '');
  if (status == 429 || status >= 500) return error(message, true, retryAfterMs(response.header('retry-after')));
  return error(message);
}

function isJsonType(contentType: string | null): bool {
  if (contentType === null) return false;
  const type = contentType.toLowerCase();
  const end = type.indexOf(';');
  const media = (end < 0 ? type : type.substring(0, end)).trim();
  return media == 'application/json' || media.endsWith('+json');
}

/** { status, headers, body, bodyBase64? } of a response, or an error answer when it is too large. */
export function responseOutput(response: HttpResponse): Answer {
  const out = Value.object().setInteger('status', response.status).set('headers', response.headers);
  const b64 = response.raw.getStringOrNull('bodyBase64');
  if (b64 !== null) {
    if (b64.length > MAX_BODY_CHARS) return tooLarge();
    return ok(out.setNull('body').setString('bodyBase64', b64));
  }
  const text = response.body;
  if (text.length > MAX_BODY_CHARS) return tooLarge();
  if (text.length > 0 && isJsonType(response.header('content-type'))) {
    const parsed = JSON.parse(text);
    if (parsed !== null) return ok(out.set('body', parsed));
  }
  return ok(out.setString('body', text));
}

function tooLarge(): Answer {
  return error('the vendor answered more than the 900000 characters an answer may carry');
}

/** An id as the platform reads one: text of 1 to 200 characters, or an integer as its decimal text. */
export function idText(value: Value | null): string | null {
  if (value === null) return null;
  if (value.isString()) {
    const text = value.asString();
    return text.length >= 1 && text.length <= 200 ? text : null;
  }
  if (value.isInteger()) return value.asInteger().toString();
  return null;
}

/** The vendor's id for a started job, read at the config's asyncExternalId (default /id). */
export function startedId(response: HttpResponse, pointer: string): string | null {
  const parsed = JSON.parse(response.body);
  if (parsed === null) return null;
  return idText(parsed.pointer(pointer));
}
