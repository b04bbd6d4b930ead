// The decisions of a vendor webhook (docs/callbacks.md "Vendor webhooks"), pure: what the module's answer
// means for the session the platform found, what a recorded event came to, and the answer the vendor
// gets for it. The service (webhook.ts) does the reading and writing around them.

import type { WebhookResult } from '../telemetry/index.ts';
import type { CallbackStatus, WebhookEventOutcome } from './tables.ts';

/** The event of a handle_webhook answer (the runner has checked its shape against the contract). */
export interface ModuleEvent {
  externalId: string;
  eventId: string;
  status: 'completed' | 'failed' | 'pending';
  output?: unknown;
  error?: string;
}

/** What the module's answer means for the session found by the external id. */
export type Verdict =
  /** The module has nothing for the platform: 202, nothing recorded. */
  | { kind: 'ignored' }
  /** The module refused the delivery (its signature check), or its event names another session: 401. */
  | { kind: 'rejected'; why: 'module' | 'another_session' }
  /** The module answered an error, or broke its contract with a completion's output: 502. */
  | { kind: 'failed'; reason: 'error' | 'output' }
  /** An event for the session: recorded (step 5). */
  | { kind: 'event'; event: ModuleEvent };

type Answer =
  | { status: 'ignored' }
  | { status: 'rejected'; message: string }
  | { status: 'error'; message: string }
  | { status: 'event'; event: ModuleEvent };

/**
 * The verdict on a module's answer. `externalId` is the one the session was found by: an event naming
 * another is refused, since the platform found the session by an id the vendor's signature may not
 * cover (the query, an unsigned header) while the module read the event from what it verified.
 * `outputValid` checks a completion's output against the session's action's output schema: a module
 * completing with output its action does not promise broke its contract, and nothing is recorded (the
 * vendor's retry may meet a fixed module; the session stays pending meanwhile).
 */
export function verdictOf(
  answer: unknown,
  externalId: string,
  outputValid: (output: unknown) => boolean,
): Verdict {
  const given = answer as Answer;
  if (given.status === 'ignored') return { kind: 'ignored' };
  if (given.status === 'rejected') return { kind: 'rejected', why: 'module' };
  if (given.status === 'error') return { kind: 'failed', reason: 'error' };
  const { event } = given;
  if (event.externalId !== externalId) return { kind: 'rejected', why: 'another_session' };
  if (event.status === 'completed' && !outputValid(event.output ?? null))
    return { kind: 'failed', reason: 'output' };
  return { kind: 'event', event };
}

/**
 * What a recorded event came to: a completion or failure that settled the session (`won`) is that
 * status; a pending event on a pending session is accepted; anything arriving once the session settled
 * (completed, failed or timed out, by this event's rivals or before) is stale.
 */
export function eventOutcome(
  eventStatus: ModuleEvent['status'],
  won: boolean,
  sessionStatus: CallbackStatus,
): WebhookEventOutcome {
  if (won) return eventStatus === 'failed' ? 'failed' : 'completed';
  if (eventStatus === 'pending' && sessionStatus === 'pending') return 'accepted';
  return 'stale';
}

/** The vendor's answer: its status and body. */
export interface WebhookAnswer {
  statusCode: 200 | 202;
  body:
    | { received: false; ignored: true }
    | { received: false; duplicate: true }
    | { received: true; accepted: true; callbackId: string; status: CallbackStatus }
    | { received: true; callbackId: string; status: CallbackStatus }
    | { received: false; stale: true; callbackId: string; status: CallbackStatus };
}

export const IGNORED: WebhookAnswer = { statusCode: 202, body: { received: false, ignored: true } };
export const DUPLICATE: WebhookAnswer = { statusCode: 200, body: { received: false, duplicate: true } };

/** The answer for a recorded event: `status` is the session's status once the event's transaction ended. */
export function recordedAnswer(
  outcome: WebhookEventOutcome,
  callbackId: string,
  status: CallbackStatus,
): WebhookAnswer {
  if (outcome === 'accepted')
    return { statusCode: 202, body: { received: true, accepted: true, callbackId, status } };
  if (outcome === 'stale')
    return { statusCode: 200, body: { received: false, stale: true, callbackId, status } };
  return { statusCode: 202, body: { received: true, callbackId, status } };
}

/** What a delivery came to, as service.app.webhooks counts it: its answer, or what it was refused with. */
export function webhookResultOf(
  ended: { answer: WebhookAnswer } | { errorCode: string | null },
): WebhookResult {
  if ('errorCode' in ended) {
    if (ended.errorCode === 'webhook_rejected') return 'rejected';
    // The module failed or broke its contract (app_webhook_failed), or the platform did (no code).
    if (ended.errorCode === 'app_webhook_failed' || ended.errorCode === null) return 'error';
    return 'refused';
  }
  const body = ended.answer.body;
  if ('ignored' in body) return 'ignored';
  if ('duplicate' in body) return 'duplicate';
  if ('stale' in body) return 'stale';
  if ('accepted' in body) return 'accepted';
  return body.status === 'failed' ? 'failed' : 'completed';
}
