// Handing an applicant off to the vendor's hosted page (docs/handoff.md), in the order the platform
// takes the steps; each refusal names its answer:
//   1. the caller: only the submission's applicant (403 forbidden);
//   2. the submission, in the caller's tenant (404) and sent (409 handoff_unavailable);
//   3. apps on: a runner and module storage (409 handoff_unavailable);
//   4. the session: of the run's newest pending sessions while the run waits, the newest whose version
//      hands off and is not blocked, on a present, enabled install (409 handoff_unavailable);
//   5. the return address: the tenant's collection.flowUrl, else COLLECTION_FLOW_URL, then
//      /flow/<submission id>, never from the request (409 handoff_unavailable when neither is set);
//   6. the required secrets of the session's version, opened as calls open them (502 handoff_failed);
//   7. the module's handoff export through the runner with the install's config, secrets, approved hosts,
//      cached values, the session's external id and the return address, without a document token; the
//      hand-off is metered (handoffs, never limited) once the module ran or may have;
//   8. its answer: null (200, the run waits for its webhook), or a page the platform sends applicants to
//      (200, audited collection.submission.handoff_started with its host); anything else 502 handoff_failed.
import { randomUUID } from 'node:crypto';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import { openRequiredSecrets } from '../calls/admission.ts';
import { meterApart } from '../calls/metering.ts';
import { mayHaveRun } from '../calls/outcome.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { readLiveCache, storeCacheChanges, webhookUrl } from '../installs/index.ts';
import type { RunnerClient } from '../runner/index.ts';
import { findTenantById } from '../tenants/service.ts';
import { pageDecision, returnUrlOf } from './handoff-rules.ts';
import { findHandoffSession, type HandoffSession } from './handoff-sessions.ts';
import { applicantSubmission, type SubmissionRow } from './submissions.ts';

export interface HandoffDeps {
  database: Database;
  /** Read at each request: COLLECTION_FLOW_URL, WEBHOOK_PUBLIC_URL (set late on a development stack)… */
  config: Config;
  /** null: apps are off (no runner or no module storage). */
  runner: RunnerClient | null;
}

export interface HandoffRequest {
  principal: AuthenticatedPrincipal;
  submissionId: string;
  requestId: string;
}

export interface HandoffAnswer {
  handoff: { url: string; expiresAt: string } | null;
}

export interface SubmissionStatus {
  id: string;
  status: SubmissionRow['status'];
  handoff: boolean;
}

const unavailable = (message: string) => new ApiError('handoff_unavailable', message);
const failed = (message: string, reason: string, more: Record<string, unknown> = {}) =>
  new ApiError('handoff_failed', message, { reason, ...more });

/**
 * What the applicant's page asks while it waits: whether GET …/handoff would try now (the submission is
 * sent, apps are on and steps 3 and 4 find a session). The return address and the module are not tried.
 */
export async function submissionStatus(
  deps: HandoffDeps,
  request: HandoffRequest,
): Promise<SubmissionStatus> {
  const submission = await applicantSubmission(deps.database.db, request.principal, request.submissionId);
  const handoff =
    submission.status === 'sent' &&
    deps.runner !== null &&
    (await findHandoffSession(deps.database.db, submission.tenantId, submission.workflowRunId)) !== null;
  return { id: submission.id, status: submission.status, handoff };
}

export async function handOff(deps: HandoffDeps, request: HandoffRequest): Promise<HandoffAnswer> {
  const db = deps.database.db;
  // 1 and 2.
  const submission = await applicantSubmission(db, request.principal, request.submissionId);
  if (submission.status !== 'sent') throw unavailable('the submission is not sent yet');
  // 3.
  const runner = deps.runner;
  if (!runner) throw unavailable('this deployment has no app runner or no module storage');
  // 4.
  const found = await findHandoffSession(db, submission.tenantId, submission.workflowRunId);
  if (!found) throw unavailable('the submission’s run waits for no vendor session that hands off');
  // 5.
  const tenant = await findTenantById(db, submission.tenantId);
  const returnUrl = returnUrlOf(
    { tenant: tenant?.settings.collection?.flowUrl ?? null, deployment: deps.config.collectionFlowUrl },
    submission.id,
  );
  if (!returnUrl.ok) throw unavailable(`the applicant has no address to return to: ${returnUrl.reason}`);
  // 6.
  const secrets = await openedSecrets(deps, found);
  // 7.
  const answer = await runHandoff(deps, runner, found, secrets, returnUrl.url);
  // 8.
  return answerOf(deps, request, submission, found, answer);
}

/** The required secrets of the session's version under the install's config; a refusal is 502. */
async function openedSecrets(deps: HandoffDeps, { install, version }: HandoffSession) {
  try {
    return await openRequiredSecrets(deps.database.db, install, version, deps.config.secretStoreKey);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'install_not_configured') {
      throw failed(`the install ${install.name} lacks a required secret`, 'missing_secrets', {
        missingSecrets: error.details?.missingSecrets ?? [],
      });
    }
    if (error.code === 'secret_store_unavailable') {
      throw failed(
        'the install needs secrets and this deployment has no secret store key',
        'secret_store_unavailable',
      );
    }
    throw error;
  }
}

/** Step 7: the module's answer (not yet read), or the runner's failure as 502 handoff_failed. */
async function runHandoff(
  deps: HandoffDeps,
  runner: RunnerClient,
  { session, install, version }: HandoffSession,
  secrets: Record<string, string>,
  returnUrl: string,
): Promise<unknown> {
  const key = deps.config.secretStoreKey;
  const cache = key ? await readLiveCache(deps.database.db, key, install) : null;
  const sent = await runner.handoff({
    module: { sha256: version.sha256 },
    call: {
      id: randomUUID(),
      tenantId: install.tenantId,
      callbackUrl: webhookUrl(version.manifest, install.config, install.id, deps.config.webhookPublicUrl),
    },
    config: install.config,
    secrets,
    hosts: install.hosts,
    cache: cache?.entries ?? null,
    externalId: session.externalId,
    returnUrl,
  });
  if (sent.ok || mayHaveRun(sent.code)) {
    const { tenantId, id: installId, name: installName, appName } = install;
    const metered = { tenantId, installId, installName, appName, action: session.action };
    await meterApart(deps.database.db, metered, 'handoffs');
  }
  if (!sent.ok) throw failed(`the runner could not hand off: ${sent.code}`, sent.code);
  // Whatever the module answered, what it changed in its cached values is kept (as after a call).
  if (key && cache && sent.value.cacheChanges.length > 0) {
    await storeCacheChanges(
      deps.database,
      key,
      install,
      cache,
      sent.value.cacheChanges,
      deps.config.cacheBudget,
    );
  }
  return sent.value.answer;
}

/** Step 8. The module's message (it may quote the vendor) is not passed on, nor is a refused page. */
async function answerOf(
  deps: HandoffDeps,
  request: HandoffRequest,
  submission: SubmissionRow,
  { session, install }: HandoffSession,
  answer: unknown,
): Promise<HandoffAnswer> {
  // The runner checked the answer against the export's shapes: { status: ok, handoff } or an error answer.
  const read = answer as { status: string; handoff?: { url: string; expiresAt: string } | null };
  if (read.status !== 'ok') throw failed(`the app ${install.appName} answered an error`, 'error');
  if (!read.handoff) return { handoff: null };
  const page = pageDecision(read.handoff.url, install.hosts, deps.config.allowPrivateNetworks);
  if (!page.ok) {
    throw failed(`the app answered a page the platform does not send applicants to: ${page.reason}`, 'page');
  }
  await recordAudit(deps.database.db, {
    tenantId: submission.tenantId,
    action: 'collection.submission.handoff_started',
    actor: actorOf(request.principal),
    resource: { type: 'collection_submission', id: submission.id },
    data: {
      workflowRunId: submission.workflowRunId,
      callbackId: session.id,
      install: install.name,
      app: install.appName,
      action: session.action,
      externalId: session.externalId,
      host: page.host,
      expiresAt: read.handoff.expiresAt,
    },
    requestId: request.requestId,
  });
  return { handoff: { url: read.handoff.url, expiresAt: read.handoff.expiresAt } };
}
