// The vendor sessions' front door: what other layers use of callbacks. Files outside src/callbacks import
// this file rather than the files behind it. Each group's comment stands apart (a blank line under it) so
// that sorting the exports keeps the groups.
//
// Two importers stay direct, since through this file they would close an import circle (the webhook
// reads installs and the catalogue): src/db/schema.ts (gathers tables.ts for Drizzle) and
// src/installs/service.ts (install_in_use and a forced removal read and fail an install's sessions).

// The api: the vendor webhook route, and how it wakes a run whose session it settled.

export type { Wake } from './webhook.ts';
export { MAX_WEBHOOK_BODY_BYTES, type WebhookRouteDeps, webhookRoutes } from './webhook-routes.ts';

// The api: listing sessions (GET /app-callbacks), which answers where apps are off too.

export { callbackRoutes } from './session-routes.ts';

// The worker: the retention sweep of sessions and webhook events.

export { startRetentionSweep } from './retention.ts';

// Sessions as runs open, settle, time out and resume them.

export {
  failPendingCallbacks,
  failRunSessions,
  markResumed,
  openSession,
  pendingCallbacksOf,
  runsWaitingOn,
  SESSION_ENDS,
  type SessionEnd,
  type SessionOpening,
  type SessionRow,
  type SessionStart,
  type SettledSession,
  sessionByExternalId,
  settleSession,
  timeOutDueSessions,
} from './session-store.ts';
export {
  appCallbacks,
  appWebhookEvents,
  type CallbackStatus,
  type WebhookEventOutcome,
} from './tables.ts';
