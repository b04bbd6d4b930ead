// http-connector: the generic HTTP connector of the release catalogue. `request` calls the install's
// vendor API once; `request_async` starts a vendor job and completes through the vendor's signed
// webhook. See ../README.md for the config, the actions and the webhook schemes.
import {
  Actions,
  Answer,
  error,
  InvokeRequest,
  pending,
  runInvoke,
  runWebhook,
  sendManifest,
} from '@apps-platform/app-sdk';
import { MANIFEST } from './manifest';
import { outbound } from './outbound';
import { failure, responseOutput, startedId } from './response';
import { onWebhook } from './webhook';

export function manifest(): i32 {
  return sendManifest(MANIFEST);
}

function request(call: InvokeRequest): Answer {
  const sent = outbound(call);
  const r = sent.request;
  if (r === null) return error(sent.problem);
  const response = r.send();
  const failed = failure(response, sent);
  if (failed !== null) return failed;
  return responseOutput(response);
}

function requestAsync(call: InvokeRequest): Answer {
  const webhook = call.config.getObject('webhook');
  if (webhook === null || webhook.getObject('externalIdFrom') === null) {
    return error('request_async needs config webhook (scheme and externalIdFrom): the install receives no webhooks');
  }
  const sent = outbound(call);
  const r = sent.request;
  if (r === null) return error(sent.problem);
  const response = r.send();
  const failed = failure(response, sent);
  if (failed !== null) return failed;
  const pointer = call.config.getString('asyncExternalId', '/id');
  const externalId = startedId(response, pointer);
  if (externalId === null) {
    // The vendor may have started the job: trying again could start another.
    return error(
      'the vendor answered ' + response.status.toString() + ' without an id at ' + (pointer.length > 0 ? pointer : 'the root') +
        ' (asyncExternalId): text of 1 to 200 characters or an integer',
    );
  }
  const wait = call.input.getInteger('callbackTimeoutSeconds', 0);
  return pending(externalId, wait > 0 && wait <= 604800 ? <i32>wait : 0);
}

const ACTIONS = new Actions().on('request', request).on('request_async', requestAsync);

export function invoke(): i32 {
  return runInvoke(ACTIONS);
}

export function handle_webhook(): i32 {
  return runWebhook(onWebhook);
}
