import type { AttemptSlots } from '../calls/index.ts';
import { capacityWaitMs, runnerTook } from '../calls/index.ts';
import type { Database } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import type { InstallRow, StoredWithInstall, VersionRow } from '../installs/index.ts';
import type { RunnerClient, RunnerFailureResult } from '../runner/index.ts';
import { callSessionExport, openExportSecrets } from './session-export.ts';
import type { SessionRow } from './session-store.ts';

/** How long a delivery waits for a runner to take it (busy, not_sent) before answering 502. */
export const WEBHOOK_CAPACITY_WAIT_MS = 10_000;

export interface WebhookCallDeps {
  database: Database;
  /** Null where the deployment runs no apps (no runner or no module storage): 502, apps_unavailable. */
  runner: RunnerClient | null;
  /** SECRET_STORE_KEY: opens secrets and cached values; without it the module gets no cache. */
  secretStoreKey: Buffer | null;
  cacheBudget: { entries: number; totalBytes: number };
  /** WEBHOOK_PUBLIC_URL: the call's callbackUrl is the install's webhook URL, as calls get it. */
  webhookBase: string | null;
  /** Places for calls of the runner from this process (the runner's bounds), shared by its deliveries. */
  slots: AttemptSlots;
  /** WEBHOOK_CAPACITY_WAIT_MS unless a test says otherwise. */
  capacityWaitMs?: number;
}

/** The delivery as the module reads it: lower-case header names, the query, the raw bytes. */
export interface Delivery {
  method: string;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * What handle_webhook is run for: the install, the version it runs, its secrets and cache as read with it,
 * the session and its version.
 */
export interface WebhookTarget {
  install: InstallRow;
  running: VersionRow;
  stored: StoredWithInstall;
  session: SessionRow;
  /** The version the session started on: its module handles the webhook. */
  version: VersionRow;
}

/**
 * The module's checked answer, or 502 app_webhook_failed naming the runner's failure, or the secrets the
 * module needs and cannot have (missing_secrets, secret_store_unavailable: session-export.ts).
 */
export async function runHandleWebhook(
  deps: WebhookCallDeps,
  target: WebhookTarget,
  delivery: Delivery,
): Promise<unknown> {
  const { install, version, session, stored } = target;
  const runner = deps.runner;
  if (!runner) throw webhookFailed('apps_unavailable');
  const opened = await openExportSecrets(
    deps.database.db,
    install,
    version,
    deps.secretStoreKey,
    stored.secrets,
  );
  if (!opened.ok) throw webhookFailed(opened.reason, opened.details);
  const { secrets } = opened;
  const request = {
    method: delivery.method,
    headers: delivery.headers,
    query: delivery.query,
    bodyBase64: delivery.body.toString('base64'),
  };
  const sent = await callSessionExport(
    deps,
    { install, version, action: session.action, secrets, cache: stored.cache, counter: 'webhooks' },
    (base) => sendWhileBusy(deps, runner, install.tenantId, { ...base, request }),
  );
  if (!sent.ok) throw webhookFailed(sent.code);
  return sent.value.answer;
}

/** What each reason of a failure that is not the runner's or the module's says. */
const FAILED_BEFORE_THE_MODULE: Record<string, string> = {
  missing_secrets: 'the install lacks a secret the app needs for this webhook',
  secret_store_unavailable: 'the app needs secrets and this deployment has no secret store key',
  apps_unavailable: 'this deployment has no app runner or no module storage',
};

/**
 * 502: the module or the runner failed (or could not be run); `reason` names which, never with the
 * module's words.
 */
export const webhookFailed = (reason: string, details: Record<string, unknown> = {}): ApiError =>
  new ApiError(
    'app_webhook_failed',
    FAILED_BEFORE_THE_MODULE[reason] ?? 'the app or the runner failed on this webhook',
    { reason, ...details },
  );

type WebhookBody = Parameters<RunnerClient['handleWebhook']>[0];

/** What a delivery that waited its whole time for a place answers: no runner took it. */
const NO_PLACE: RunnerFailureResult = {
  ok: false,
  code: 'busy',
  status: 429,
  message: 'no place for the call before the wait for one was over',
};

/**
 * Sends the call once the tenant has a place here, and again after a growing wait (the place given up
 * meanwhile) while no runner takes it, until the wait for capacity is used up.
 */
function sendWhileBusy(deps: WebhookCallDeps, runner: RunnerClient, tenantId: string, body: WebhookBody) {
  const deadline = Date.now() + (deps.capacityWaitMs ?? WEBHOOK_CAPACITY_WAIT_MS);
  return deps.slots.run(tenantId, async (slot) => {
    for (let waits = 0; ; waits++) {
      if (Date.now() >= deadline) return NO_PLACE;
      const sent = await runner.handleWebhook(body);
      if (sent.ok || runnerTook(sent.code)) return sent;
      const now = Date.now();
      const waitMs = capacityWaitMs({ waits, random: Math.random(), now, deadline, minimumMs: 0 });
      if (waitMs === null) return sent;
      await slot.pause(waitMs);
    }
  });
}
