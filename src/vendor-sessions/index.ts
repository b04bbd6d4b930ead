// Vendor sessions' front door (docs/callbacks.md): an asynchronous action's pending work at a vendor, from
// the session a run's step opens, through the vendor's webhooks that settle it, the wait that times it out
// and the resumer that moves its run on, to the hand-off's export (the retention sweep that times out
// orphans and deletes settled sessions stands above, in src/retention, beside the collections' rows it
// deletes too). Files outside src/vendor-sessions import this file rather than the files behind it. Each
// group's comment stands apart (a blank line under it) so that sorting the exports keeps the groups.
//
// The specification's words and the code's: a vendor session is an app callback there, so the API keeps
// its names: the route GET /app-callbacks (session-routes.ts), the table app_callbacks (`appCallbacks`,
// tables.ts), a session's id `callbackId`, the run status waiting_callback, the errors CallbackTimeout and
// AppCallbackFailed, the audit action app.callback.received. Here: a session (`SessionRow`), opened
// (session-store.ts openSession, step-sessions.ts openStepSession), settled by a webhook (webhook.ts, the
// numbered pipeline), timed out (timeOutDueSessions), taken by its run's continuation
// (takenSession, stepEndOf) and resumed (resumer.ts).
//
// Left with their owners, since each writes or reads its owner's rows in the same statement: the run's
// side of a wait (runs/waits.ts moves the run to waiting_callback and back) and the hand-off's choice of
// session (collections/handoff-sessions.ts, by the hand-off's rule).
//
// The importer that stays direct: src/db/schema.ts (gathers tables.ts for Drizzle).

// The api: the vendor webhook route, and how it wakes a run whose session it settled.

export type { Wake } from './webhook.ts';
export { MAX_WEBHOOK_BODY_BYTES, type WebhookRouteDeps, webhookRoutes } from './webhook-routes.ts';

// The api: listing sessions (GET /app-callbacks), which answers where apps are off too.

export { callbackRoutes } from './session-routes.ts';

// The worker: the resumer of waiting runs.

export { type ResumerDeps, startResumer } from './resumer.ts';

// A run's step waiting on its session: opened for a pending answer, taken once settled, its step's end.

export {
  openStepSession,
  type SessionStepEnd,
  stepEndOf,
  type TakenSessionRow,
  takenSession,
  takenSessionOf,
} from './step-sessions.ts';

// The hand-off: the applicant's session exported through the module, as a webhook's is.

export { callSessionExport, openExportSecrets } from './session-export.ts';

// Sessions as runs open, settle, time out and resume them, and as an install's removal reads and fails
// them (installSessionRecords answers the installs' port; the api wires it in).

export {
  failRunSessions,
  installSessionRecords,
  markResumed,
  openSession,
  SESSION_ENDS,
  type SessionEnd,
  type SessionOpening,
  type SessionRow,
  type SessionStart,
  type SettledSession,
  settleSession,
  timeOutDueSessions,
} from './session-store.ts';
export {
  appCallbacks,
  appWebhookEvents,
  type CallbackStatus,
  type WebhookEventOutcome,
} from './tables.ts';
