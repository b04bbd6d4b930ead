// The vendor's webhook: { sessionId, eventId?, status, decision?, reasons?, error? } signed with
// x-idv-signature: hex HMAC-SHA256 of the raw body under WEBHOOK_SECRET. Nothing of the body is read
// before the signature is checked; the event id and status come only from the signed body.
import {
  Answer,
  defaultEventId,
  error,
  eventCompleted,
  eventFailed,
  eventPending,
  ignored,
  rejected,
  Value,
  verifySignature,
  WebhookRequest,
} from '@apps-platform/app-sdk';

export const SIGNATURE_HEADER = 'x-idv-signature';
const FAILED = ['error', 'expired', 'cancelled'];

function reasonsOf(body: Value): Value {
  const reasons = Value.array();
  const given = body.getArray('reasons');
  if (given === null) return reasons;
  for (let k = 0; k < given.length; k++) {
    const item = given.at(k);
    if (item.isString()) reasons.push(item);
    else if (item.isObject() && item.getStringOrNull('description') !== null) {
      reasons.push(Value.string(item.getString('description')));
    } else if (item.isObject() && item.getStringOrNull('code') !== null)
      reasons.push(Value.string(item.getString('code')));
  }
  return reasons;
}

export function onWebhook(request: WebhookRequest): Answer {
  const checked = verifySignature(request, request.call.secret('WEBHOOK_SECRET'), SIGNATURE_HEADER);
  if (!checked.valid) {
    const why = checked.error;
    return rejected(
      why !== null
        ? 'bad signature: ' + why
        : 'bad signature: ' + SIGNATURE_HEADER + ' does not match the body',
    );
  }
  const body = request.json();
  if (body === null || !body.isObject()) return error('the signed webhook body is not a JSON object');
  const sessionId = body.getString('sessionId');
  if (sessionId.length < 1 || sessionId.length > 200) return error('the webhook names no sessionId');

  const given = body.getString('eventId');
  const eventId = given.length >= 1 && given.length <= 200 ? given : defaultEventId(sessionId, request);
  const status = body.getString('status');

  if (status == 'approved' || status == 'declined') {
    const decision = body.getString('decision');
    const output = Value.object()
      .setString('decision', decision == 'approved' || decision == 'declined' ? decision : status)
      .set('reasons', reasonsOf(body))
      .setString('sessionId', sessionId);
    return eventCompleted(sessionId, eventId, output);
  }
  if (status == 'review' || status == 'pending') return eventPending(sessionId, eventId);
  if (FAILED.includes(status)) {
    const said = body.getString('error');
    return eventFailed(
      sessionId,
      eventId,
      'the vendor reported ' + status + (said.length > 0 ? ': ' + said : ''),
    );
  }
  // Another event type (session opened, applicant started...): nothing to record.
  return ignored();
}
