import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import type { RunnerClient } from '../runner/index.ts';
import { findTenantById } from '../tenants/service.ts';
import { callSessionExport, openExportSecrets } from '../vendor-sessions/index.ts';
import { pageDecision, returnUrlOf } from './handoff-rules.ts';
import { findHandoffSession, type HandoffSession } from './handoff-sessions.ts';
import { applicantSubmission, type SubmissionRow } from './submissions-store.ts';

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
  const opened = await openExportSecrets(deps.database.db, install, version, deps.config.secretStoreKey);
  if (opened.ok) return opened.secrets;
  const message =
    opened.reason === 'missing_secrets'
      ? `the install ${install.name} lacks a required secret`
      : 'the install needs secrets and this deployment has no secret store key';
  throw failed(message, opened.reason, opened.details);
}

/** Step 7: the module's answer (not yet read), or the runner's failure as 502 handoff_failed. */
async function runHandoff(
  deps: HandoffDeps,
  runner: RunnerClient,
  { session, install, version }: HandoffSession,
  secrets: Record<string, string>,
  returnUrl: string,
): Promise<unknown> {
  const sent = await callSessionExport(
    {
      database: deps.database,
      secretStoreKey: deps.config.secretStoreKey,
      cacheBudget: deps.config.cacheBudget,
      webhookBase: deps.config.webhookPublicUrl,
    },
    { install, version, action: session.action, secrets, counter: 'handoffs' },
    (base) => runner.handoff({ ...base, externalId: session.externalId, returnUrl }),
  );
  if (!sent.ok) throw failed(`the runner could not hand off: ${sent.code}`, sent.code);
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
