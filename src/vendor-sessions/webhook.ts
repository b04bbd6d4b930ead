// A vendor webhook, POST /webhooks/app-installs/:installId (docs/callbacks.md "Vendor webhooks"), as one
// pipeline in the order the platform promises:
//   1. the install by id (404 unknown_install); its tenant is the webhook's;
//   2. the external id: ?externalId=, else where the running version, or the install's config, says it
//      is (400 missing_external_id) — read by the platform's own rule, before any module code runs;
//   3. the install's session of that id (404 not_found) and the version it started on, which handles it
//      whatever upgrades came since; a block of that version is 409 app_blocked, without details;
//   4. that version's handle_webhook (webhook-call.ts), and what its answer means (webhook-rules.ts):
//      ignored 202, rejected or an event naming another session 401, an error or a broken completion 502;
//      so is a module that cannot be run (apps off, its secrets missing: the table has only 502 for it);
//   5. the event recorded in one transaction (webhook-store.ts): first completion wins, a repeated event
//      id rolls back as a duplicate; then the settled session's run is woken (its continuation starts).
// Nothing of the delivery (body, headers, output, error text) is logged: only ids, codes and the install.
import type { FastifyBaseLogger } from 'fastify';
import { outputCheckOf } from '../calls/index.ts';
import { ApiError } from '../http/errors.ts';
import { isUnstorable } from '../http/unstorable-text.ts';
import type { VersionRow } from '../installs/index.ts';
import { webhookExternalId } from '../module/index.ts';
import { recordCallbackWait } from '../telemetry/index.ts';
import { isUuid } from '../uuid.ts';
import type { SessionRow } from './session-store.ts';
import { type Delivery, runHandleWebhook, type WebhookCallDeps, webhookFailed } from './webhook-call.ts';
import { DUPLICATE, IGNORED, recordedAnswer, verdictOf, type WebhookAnswer } from './webhook-rules.ts';
import { installAndRunningVersion, recordEvent, SessionGone, sessionAndVersion } from './webhook-store.ts';

/**
 * Starts the continuation of a run whose session a webhook settled (RunsEngine.resume in the api). Its
 * failure is only logged: the worker's resumer starts continuations of settled sessions nobody resumed.
 */
export type Wake = (workflowRunId: string, sessionId: string) => Promise<void>;

export interface WebhookDeps extends WebhookCallDeps {
  /** Null: no engine to wake runs with here; the worker's resumer moves them on. */
  wake: Wake | null;
}

export interface VendorWebhook extends Delivery {
  installId: string;
}

const unknownInstall = () => new ApiError('unknown_install', 'no install has the id this webhook URL names');
const noSession = () => new ApiError('not_found', 'no session of this install has that external id');

export async function receiveWebhook(
  deps: WebhookDeps,
  received: VendorWebhook,
  context: { requestId: string; log: FastifyBaseLogger },
): Promise<WebhookAnswer> {
  const db = deps.database.db;
  // 1. A URL that names no install id at all names no install either.
  const installed = isUuid(received.installId)
    ? await installAndRunningVersion(db, received.installId)
    : null;
  if (!installed) throw unknownInstall();
  const { install, running, stored } = installed;

  // 2.
  const externalId = webhookExternalId(running.manifest, install.config, received);
  if (externalId === null) {
    throw new ApiError(
      'missing_external_id',
      'no external id: send ?externalId=, or the id where this install reads it',
    );
  }

  // 3. An id PostgreSQL cannot store is no session's id (and is not sent to it).
  const found = isUnstorable(externalId) ? null : await sessionAndVersion(db, install.id, externalId);
  if (!found) throw noSession();
  const { session, version } = found;
  if (!version) throw new Error(`session ${session.id} names version ${session.versionId}, which is gone`);
  // The vendor is told the module is blocked, never why or which module.
  if (found.blocked) throw new ApiError('app_blocked', 'this app is blocked by the operator');

  // 4.
  const answer = await runHandleWebhook(deps, { install, running, stored, session, version }, received);
  const verdict = verdictOf(answer, externalId, outputCheck(version, session));
  const log = context.log.child({ installId: install.id, callbackId: session.id });
  if (verdict.kind === 'ignored') return IGNORED;
  if (verdict.kind === 'rejected') {
    log.info({ why: verdict.why }, 'vendor webhook rejected');
    throw new ApiError(
      'webhook_rejected',
      verdict.why === 'module'
        ? 'the app refused this webhook'
        : 'the event names another session than the one this webhook was found for',
    );
  }
  if (verdict.kind === 'failed') throw webhookFailed(verdict.reason);

  // 5.
  let recorded: Awaited<ReturnType<typeof recordEvent>>;
  try {
    recorded = await recordEvent(deps.database, install, session, verdict.event, context.requestId);
  } catch (error) {
    if (error instanceof SessionGone) throw noSession();
    throw error;
  }
  if (recorded.kind === 'duplicate') return DUPLICATE;
  log.info({ outcome: recorded.outcome }, 'vendor webhook recorded');
  if (recorded.won) recordCallbackWait(Date.now() - session.createdAt.getTime());
  if (recorded.won) await wakeRun(deps.wake, session, log);
  return recordedAnswer(recorded.outcome, session.id, recorded.status);
}

/**
 * The check of a completion's output: the output schema of the session's action in the session's
 * version. A version that no longer declares the action (it cannot: versions are immutable) passes none.
 */
function outputCheck(version: VersionRow, session: SessionRow): (output: unknown) => boolean {
  const action = version.manifest.actions.find((a) => a.name === session.action);
  if (!action) return () => false;
  const check = outputCheckOf(version, action);
  return (output) => check(output);
}

/** Only the delivery that settled the session wakes its run, once it committed. */
async function wakeRun(wake: Wake | null, session: SessionRow, log: FastifyBaseLogger): Promise<void> {
  if (!wake || !session.workflowRunId) return;
  try {
    await wake(session.workflowRunId, session.id);
  } catch (err) {
    log.warn({ workflowRunId: session.workflowRunId, err }, 'waking the run failed; the resumer will');
  }
}
