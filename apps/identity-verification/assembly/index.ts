// identity-verification: a hosted identity-verification flow against a sessions API (see README.md).
//   invoke start_verification  POST {baseUrl}/v1/sessions → pending with the session id
//   handoff                    GET  {baseUrl}/v1/sessions/{id}?redirectUrl=<returnUrl> → the hosted page
//   handle_webhook             x-idv-signature checked; approved/declined complete, review/pending wait
import {
  Actions,
  Answer,
  documentRead,
  error,
  HandoffRequest,
  handoffPage,
  HttpRequest,
  InvokeRequest,
  noHandoff,
  pending,
  runHandoff,
  runInvoke,
  runWebhook,
  sendManifest,
  Value,
  failureOf,
} from '@apps-platform/app-sdk';
import { MANIFEST } from './manifest';

import { onWebhook } from './webhook';

const VENDOR = 'the verification API';
const DEFAULT_WAIT_SECONDS: i64 = 86400;
const MAX_WAIT_SECONDS: i64 = 604800;
/** Session states after which there is no page to hand the applicant to. */
const SETTLED = ['approved', 'declined', 'error', 'expired', 'cancelled'];

export function manifest(): i32 {
  return sendManifest(MANIFEST);
}

function baseUrlOf(config: Value): string {
  let url = config.getString('baseUrl');
  while (url.endsWith('/')) url = url.substring(0, url.length - 1);
  return url;
}

function waitSeconds(config: Value): i32 {
  const v = config.get('callbackTimeoutSeconds');
  if (v === null || !v.isInteger()) return <i32>DEFAULT_WAIT_SECONDS;
  const s = v.asInteger();
  return <i32>(s < 1 ? 1 : s > MAX_WAIT_SECONDS ? MAX_WAIT_SECONDS : s);
}

function copyText(from: Value, field: string, to: Value, as: string): void {
  const text = from.getString(field).trim();
  if (text.length > 0) to.setString(as, text);
}

/**
 * The documents to send: read with document_read only while the install enables documents
 * (documentsEnabled true); otherwise documentIds are left alone and nothing is read. An error answer
 * when a document cannot be read.
 */
class Documents {
  list: Value = Value.array();
  failure: Answer | null = null;
}

function readDocuments(request: InvokeRequest): Documents {
  const out = new Documents();
  const ids = request.input.getArray('documentIds');
  if (ids === null || ids.length == 0) return out;
  if (!request.config.getBool('documentsEnabled')) return out;
  for (let k = 0; k < ids.length; k++) {
    if (!ids.at(k).isString()) continue;
    const id = ids.at(k).asString();
    const d = documentRead(id);
    if (d.notFound) {
      out.failure = error('document ' + id + ' does not exist for this subject');
      return out;
    }
    if (d.failed) {
      // A refusal (no document access, too many reads) will not change on another attempt.
      out.failure = error('document ' + id + ' could not be read: ' + d.error!, !d.refused);
      return out;
    }
    const name = d.name;
    out.list.push(
      Value.object()
        .setString('id', id)
        .setString('name', name === null ? id : name)
        .setString('contentType', d.contentType)
        .setString('contentBase64', d.bodyBase64),
    );
  }
  return out;
}

function startVerification(request: InvokeRequest): Answer {
  const input = request.input;
  const baseUrl = baseUrlOf(request.config);
  if (baseUrl.length == 0)
    return error('the install has no baseUrl: set the verification API address in config');
  const applicant = Value.object();
  copyText(input, 'firstName', applicant, 'firstName');
  copyText(input, 'lastName', applicant, 'lastName');
  copyText(input, 'email', applicant, 'email');
  copyText(input, 'country', applicant, 'country');
  if (!applicant.has('firstName') || !applicant.has('lastName'))
    return error('firstName and lastName are required');

  const documents = readDocuments(request);
  if (documents.failure !== null) return documents.failure!;

  const body = Value.object();
  copyText(input, 'subjectId', body, 'reference');
  body.set('applicant', applicant);
  if (documents.list.length > 0) body.set('documents', documents.list);
  const callbackUrl = request.call.callbackUrl;
  if (callbackUrl !== null) body.setString('callbackUrl', callbackUrl);

  const post = HttpRequest.post(baseUrl + '/v1/sessions')
    .bearer(request.call.secret('API_KEY'))
    .header('accept', 'application/json')
    .timeout(20000)
    .json(body);
  const key = request.idempotencyKey;
  if (key !== null) post.header('idempotency-key', key);
  const response = post.send();
  // A session may have been opened when no answer came: another attempt is safe only with the key.
  const failure = failureOf(response, VENDOR, key !== null);
  if (failure !== null) return failure;

  const session = response.json();
  const id = session === null ? '' : session.getString('id');
  if (id.length < 1 || id.length > 200) {
    return error(
      VENDOR + ' answered ' + response.status.toString() + ' without a session id of 1 to 200 characters',
    );
  }
  return pending(id, waitSeconds(request.config));
}

const ACTIONS = new Actions().on('start_verification', startVerification);

export function invoke(): i32 {
  return runInvoke(ACTIONS);
}

export function handle_webhook(): i32 {
  return runWebhook(onWebhook);
}

/** The hosted page of the session, fetched fresh (the module keeps nothing between calls). */
function onHandoff(request: HandoffRequest): Answer {
  const baseUrl = baseUrlOf(request.config);
  if (baseUrl.length == 0) return error('the install has no baseUrl');
  let url = baseUrl + '/v1/sessions/' + encodeURIComponent(request.externalId);
  if (request.returnUrl.length > 0) url += '?redirectUrl=' + encodeURIComponent(request.returnUrl);
  const response = HttpRequest.get(url)
    .bearer(request.call.secret('API_KEY'))
    .header('accept', 'application/json')
    .timeout(10000)
    .send();
  if (response.status == 404) return error(VENDOR + ' has no session ' + request.externalId);
  const failure = failureOf(response, VENDOR, true);
  if (failure !== null) return failure;
  const session = response.json();
  if (session === null || !session.isObject()) return error(VENDOR + ' answered a session that is not JSON');
  if (SETTLED.includes(session.getString('status'))) return noHandoff();
  const page = session.getString('url');
  const expiresAt = session.getString('expiresAt');
  if (page.length == 0 || expiresAt.length == 0)
    return error(VENDOR + ' answered a session without url and expiresAt');
  return handoffPage(page, expiresAt);
}

export function handoff(): i32 {
  return runHandoff(onHandoff);
}
