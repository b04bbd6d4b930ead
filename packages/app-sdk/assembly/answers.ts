// The answers each export may give (docs/module-contract.md). The runner reads them strictly: no other
// top-level field, externalId and eventId 1 to 200 characters, retryAfterMs at most one hour, an
// answer of at most 1 MiB. Anything else fails the call as bad_output.
import { Value } from './json';

/** One export's answer. */
export class Answer {
  constructor(public value: Value) {}

  toString(): string {
    return this.value.toString();
  }
}

// ---- invoke ------------------------------------------------------------------------------------------

/** A synchronous success: the output is validated against the action's output schema. */
export function ok(output: Value): Answer {
  return new Answer(Value.object().setString('status', 'ok').set('output', output));
}

/**
 * An asynchronous start: the action completes through handle_webhook with this externalId (at most 200
 * characters). callbackTimeoutSeconds (1 to 604800) shortens the wait; 0 leaves the action's.
 */
export function pending(externalId: string, callbackTimeoutSeconds: i32 = 0): Answer {
  const v = Value.object().setString('status', 'pending').setString('externalId', externalId);
  if (callbackTimeoutSeconds > 0) v.setInteger('callbackTimeoutSeconds', callbackTimeoutSeconds);
  return new Answer(v);
}

/** The longest wait an error may ask for: one hour. */
export const MAX_RETRY_AFTER_MS: i64 = 3_600_000;

/**
 * A failure. retryable: another attempt may succeed (a vendor outage, 429, 5xx, a request not sent);
 * only then does the platform retry and count it against the install's circuit. retryAfterMs (0 to one
 * hour; negative leaves it out) asks for a longer wait before the next attempt.
 */
export function error(message: string, retryable: bool = false, retryAfterMs: i64 = -1): Answer {
  const v = Value.object().setString('status', 'error').setString('message', message);
  if (retryable) v.setBool('retryable', true);
  if (retryAfterMs >= 0)
    v.setInteger('retryAfterMs', retryAfterMs > MAX_RETRY_AFTER_MS ? MAX_RETRY_AFTER_MS : retryAfterMs);
  return new Answer(v);
}

// ---- handle_webhook ----------------------------------------------------------------------------------

export const EVENT_COMPLETED = 'completed';
export const EVENT_FAILED = 'failed';
export const EVENT_PENDING = 'pending';

/**
 * A vendor event for the session of externalId (the one the platform found the session by). eventId is
 * unique per install (see defaultEventId); status completed, failed or pending; output for completed
 * (null leaves it out), error text for failed.
 */
export function event(
  externalId: string,
  eventId: string,
  status: string,
  output: Value | null = null,
  errorMessage: string | null = null,
): Answer {
  const e = Value.object()
    .setString('externalId', externalId)
    .setString('eventId', eventId)
    .setString('status', status);
  if (output !== null) e.set('output', output);
  if (errorMessage !== null) e.setString('error', errorMessage);
  return new Answer(Value.object().setString('status', 'event').set('event', e));
}

export function eventCompleted(externalId: string, eventId: string, output: Value): Answer {
  return event(externalId, eventId, EVENT_COMPLETED, output);
}

export function eventFailed(externalId: string, eventId: string, errorMessage: string): Answer {
  return event(externalId, eventId, EVENT_FAILED, null, errorMessage);
}

/** A progress event: recorded, the session stays pending. */
export function eventPending(externalId: string, eventId: string): Answer {
  return event(externalId, eventId, EVENT_PENDING);
}

/** Not an event the app acts on (a ping, another event type): 202, nothing recorded. */
export function ignored(): Answer {
  return new Answer(Value.object().setString('status', 'ignored'));
}

/** Not from the vendor (a bad signature): 401 webhook_rejected, nothing recorded. */
export function rejected(message: string): Answer {
  return new Answer(Value.object().setString('status', 'rejected').setString('message', message));
}

// ---- handoff -----------------------------------------------------------------------------------------

/** The vendor's hosted page for the applicant: an https URL on an approved host, and when it expires. */
export function handoffPage(url: string, expiresAt: string): Answer {
  const page = Value.object().setString('url', url).setString('expiresAt', expiresAt);
  return new Answer(Value.object().setString('status', 'ok').set('handoff', page));
}

/** No page to send the applicant to; the run waits for the webhook. */
export function noHandoff(): Answer {
  return new Answer(Value.object().setString('status', 'ok').set('handoff', Value.null()));
}
