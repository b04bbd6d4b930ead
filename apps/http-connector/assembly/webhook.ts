// handle_webhook: the vendor's signed event completing a request_async session (docs/writing-apps.md).
// The signature is checked by the host (hmac_verify, constant time) under the WEBHOOK_SECRET
// placeholder; the external id and the event id are read only from the body or a header the scheme
// signs, the status only from the body.
import {
  Answer,
  base64Encode,
  defaultEventId,
  error,
  event,
  EVENT_COMPLETED,
  EVENT_FAILED,
  EVENT_PENDING,
  HmacOptions,
  hmacVerify,
  ignored,
  JSON,
  rejected,
  utf8,
  Value,
  WebhookRequest,
} from '@apps-platform/app-sdk';
import { digitsValue, nowSeconds } from './clock';
import { idText } from './response';

const HMAC = 'hmac';
const TIMESTAMPED = 'hmac-timestamped';
const STANDARD = 'standard-webhooks';
const DEFAULT_TOLERANCE_SECONDS: i64 = 300;
/** Signatures tried from one webhook-signature header (each is one host call). */
const MAX_SIGNATURES = 5;

const COMPLETED = ['completed', 'complete', 'succeeded', 'success', 'successful', 'done', 'ok'];
const FAILED = ['failed', 'failure', 'error', 'errored', 'canceled', 'cancelled', 'rejected', 'expired'];
const PENDING = ['pending', 'processing', 'in_progress', 'running', 'queued', 'created', 'started'];

/** Outcome of the signature check: passed, rejected (with why), or the host failed (error). */
class Check {
  constructor(
    public passed: bool,
    public reason: string = '',
    public hostError: bool = false,
  ) {}
}

const PASSED = new Check(true);

function reject(reason: string): Check {
  return new Check(false, reason);
}

/** The bytes of prefix followed by the body, as base64 for hmac_verify. */
function signedContent(prefix: string, body: Uint8Array): string {
  const head = utf8(prefix);
  const all = new Uint8Array(head.length + body.length);
  all.set(head, 0);
  all.set(body, head.length);
  return base64Encode(all);
}

/** Whether one signature matches under WEBHOOK_SECRET; the host compares in constant time. */
function macMatches(request: WebhookRequest, config: Value, message: string, signature: string, encoding: string): Check {
  const options = HmacOptions.base64Message();
  options.keyEncoding = config.getString('secretEncoding', 'utf8');
  options.encoding = encoding;
  const result = hmacVerify(request.call.secret('WEBHOOK_SECRET'), message, signature, options);
  if (result.failed) return new Check(false, 'hmac_verify: ' + result.error!, true);
  return result.valid ? PASSED : reject('the signature does not match');
}

function headerName(config: Value, field: string, fallback: string): string {
  return config.getString(field, fallback).toLowerCase();
}

/** The timestamp header's seconds, checked against the clock within the tolerance. */
function freshTimestamp(text: string | null, name: string, config: Value): Check {
  if (text === null) return reject('no ' + name + ' header');
  const seconds = digitsValue(text.trim());
  if (seconds < 0) return reject(name + ' is not unix seconds');
  const now = nowSeconds();
  if (now < 0) return new Check(false, 'the clock cannot be read to check ' + name, true);
  const tolerance = config.getInteger('toleranceSeconds', DEFAULT_TOLERANCE_SECONDS);
  const drift = now > seconds ? now - seconds : seconds - now;
  if (drift > tolerance) return reject(name + ' is more than ' + tolerance.toString() + ' seconds from now');
  return PASSED;
}

/** hmac and hmac-timestamped: <prefix><hex or base64 HMAC-SHA256> of the body or "<seconds>.<body>". */
function checkHmac(request: WebhookRequest, config: Value, timestamped: bool): Check {
  const name = headerName(config, 'signatureHeader', 'x-signature');
  const given = request.header(name);
  if (given === null) return reject('no ' + name + ' header');
  let signature = given.trim();
  const prefix = config.getString('signaturePrefix');
  if (prefix.length > 0) {
    if (!signature.startsWith(prefix)) return reject(name + ' does not start with ' + prefix);
    signature = signature.substring(prefix.length);
  }
  if (signature.length == 0) return reject(name + ' is empty');
  let signed = '';
  if (timestamped) {
    const tsName = headerName(config, 'timestampHeader', 'x-timestamp');
    const ts = request.header(tsName);
    const fresh = freshTimestamp(ts, tsName, config);
    if (!fresh.passed) return fresh;
    signed = ts!.trim() + '.';
  }
  return macMatches(request, config, signedContent(signed, request.body()), signature, config.getString('signatureEncoding', 'hex'));
}

/** Standard Webhooks: webhook-signature holds space-separated "v1,<base64>" of "<id>.<timestamp>.<body>". */
function checkStandard(request: WebhookRequest, config: Value): Check {
  const id = request.header('webhook-id');
  if (id === null || id.length == 0) return reject('no webhook-id header');
  const ts = request.header('webhook-timestamp');
  const fresh = freshTimestamp(ts, 'webhook-timestamp', config);
  if (!fresh.passed) return fresh;
  const given = request.header('webhook-signature');
  if (given === null) return reject('no webhook-signature header');
  const message = signedContent(id + '.' + ts!.trim() + '.', request.body());
  const entries = given.trim().split(' ');
  let tried = 0;
  for (let k = 0; k < entries.length && tried < MAX_SIGNATURES; k++) {
    const entry = entries[k].trim();
    if (!entry.startsWith('v1,') || entry.length == 3) continue;
    tried++;
    const check = macMatches(request, config, message, entry.substring(3), 'base64');
    if (check.passed || check.hostError) return check;
  }
  return reject(tried == 0 ? 'webhook-signature holds no v1 signature' : 'no v1 signature matches');
}

/** The headers a scheme's signature covers: the only headers an id may be read from. */
function signedHeaders(scheme: string, config: Value): Array<string> {
  if (scheme == STANDARD) return ['webhook-id', 'webhook-timestamp'];
  if (scheme == TIMESTAMPED) return [headerName(config, 'timestampHeader', 'x-timestamp')];
  return [];
}

/** Reads an id at a { json } or { header } source; `problem` names a config error. */
class IdRead {
  value: string | null = null;
  problem: string = '';
}

function readId(source: Value, body: Value | null, request: WebhookRequest, signed: Array<string>, field: string): IdRead {
  const read = new IdRead();
  const pointer = source.getStringOrNull('json');
  if (pointer !== null) {
    if (body !== null) read.value = idText(body.pointer(pointer));
    return read;
  }
  const name = source.getString('header').toLowerCase();
  if (!signed.includes(name)) {
    read.problem = 'config webhook.' + field + ' names header ' + name + ', which the signature scheme does not cover';
    return read;
  }
  read.value = idText(Value.stringOrNull(request.header(name)));
  return read;
}

function listOr(config: Value, field: string, fallback: Array<string>): Array<string> {
  const list = config.getArray(field);
  if (list === null) return fallback;
  const out = new Array<string>();
  for (let k = 0; k < list.length; k++) if (list.at(k).isString()) out.push(list.at(k).asString().toLowerCase());
  return out;
}

/** The body's status text ('' when it gives none), lower-cased. */
function statusText(config: Value, body: Value | null): string {
  if (body === null) return '';
  const source = config.getObject('statusFrom');
  const found = body.pointer(source === null ? '/status' : source.getString('json', '/status'));
  if (found === null || found.isNull()) return '';
  return (found.isString() ? found.asString() : found.toString()).toLowerCase();
}

/** completed, failed or pending for a status text, '' for one the install does not map (ignored). */
function statusOf(config: Value, text: string): string {
  if (text.length == 0) return EVENT_COMPLETED;
  if (listOr(config, 'completedValues', COMPLETED).includes(text)) return EVENT_COMPLETED;
  if (listOr(config, 'failedValues', FAILED).includes(text)) return EVENT_FAILED;
  if (listOr(config, 'pendingValues', PENDING).includes(text)) return EVENT_PENDING;
  return '';
}

function pointed(config: Value, field: string, fallback: string, body: Value | null): Value | null {
  if (body === null) return null;
  const source = config.getObject(field);
  return body.pointer(source === null ? fallback : source.getString('json', fallback));
}

/** The completed output: the JSON object at outputFrom, else the body; anything else as { body }. */
function outputOf(config: Value, body: Value | null, request: WebhookRequest): Value {
  const chosen = pointed(config, 'outputFrom', '', body);
  if (chosen !== null && chosen.isObject()) return chosen;
  if (body !== null && body.isObject()) return body;
  return Value.object().set('body', body !== null ? body : Value.string(request.text()));
}

function errorOf(config: Value, body: Value | null, status: string): string {
  const found = pointed(config, 'errorFrom', '/error', body);
  if (found !== null && found.isString() && found.asString().length > 0) return found.asString();
  if (found !== null && !found.isNull()) {
    const text = found.toString();
    return text.length > 1000 ? text.substring(0, 1000) + '…' : text;
  }
  return 'the vendor reported ' + status;
}

export function onWebhook(request: WebhookRequest): Answer {
  const config = request.config.getObject('webhook');
  if (config === null) return rejected('this install receives no webhooks: config webhook is not set');
  const scheme = config.getString('scheme');
  let check: Check;
  if (scheme == HMAC) check = checkHmac(request, config, false);
  else if (scheme == TIMESTAMPED) check = checkHmac(request, config, true);
  else if (scheme == STANDARD) check = checkStandard(request, config);
  else return error('config webhook.scheme ' + scheme + ' is not one of hmac, hmac-timestamped, standard-webhooks');
  if (check.hostError) return error(check.reason);
  if (!check.passed) return rejected(check.reason);

  // Signed: from here on the body and the signed headers are the vendor's.
  const body = JSON.parse(request.text());
  const signed = signedHeaders(scheme, config);
  const source = config.getObject('externalIdFrom');
  if (source === null) return error('config webhook.externalIdFrom is not set');
  const external = readId(source, body, request, signed, 'externalIdFrom');
  if (external.problem.length > 0) return error(external.problem);
  const externalId = external.value;
  if (externalId === null) return rejected('the webhook names no external id where webhook.externalIdFrom says');

  let eventId: string | null = null;
  const eventSource = config.getObject('eventIdFrom');
  if (eventSource !== null) {
    const read = readId(eventSource, body, request, signed, 'eventIdFrom');
    if (read.problem.length > 0) return error(read.problem);
    eventId = read.value;
  }
  // Standard Webhooks signs a message id that stays the same when the vendor sends the message again.
  if (eventId === null && scheme == STANDARD) eventId = idText(Value.stringOrNull(request.header('webhook-id')));

  const given = statusText(config, body);
  const status = statusOf(config, given);
  if (status.length == 0) return ignored();
  const id: string = eventId !== null ? eventId : defaultEventId(externalId, request);
  if (status == EVENT_COMPLETED) return event(externalId, id, status, outputOf(config, body, request));
  if (status == EVENT_FAILED) return event(externalId, id, status, null, errorOf(config, body, given));
  return event(externalId, id, status);
}
