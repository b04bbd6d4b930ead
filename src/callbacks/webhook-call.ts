// Step 4 of a vendor webhook (docs/callbacks.md "Vendor webhooks"): the session's version's handle_webhook
// through the runner, as an attempt calls invoke (src/calls/attempt.ts) — the install's config, its
// required secrets, hosts and live cached values, the call's cache changes stored once the runner
// answered (nothing when it failed) — but with no document token (a webhook's module reads none), no
// circuit, quota or record, and 15 s, the runner's own time for handle_webhook. A delivery the module ran
// on, or may have, is metered apart from calls (meterApart).
// A storm of one vendor's deliveries waits in this process for a place (the runner's own bounds, per
// process and per tenant, as a worker's step calls do) instead of being refused `busy` by the runner; a
// runner still without capacity (the worker's calls share it) is asked again after a growing wait. A
// delivery that found no runner within WEBHOOK_CAPACITY_WAIT_MS answers 502 (reason busy or not_sent), and
// the vendor's own retry brings it back.
import { randomUUID } from 'node:crypto';
import { openRequiredSecrets } from '../calls/admission.ts';
import type { AttemptSlots } from '../calls/attempt-slots.ts';
import { capacityWaitMs } from '../calls/attempt-time.ts';
import { meterApart } from '../calls/metering.ts';
import { mayHaveRun, runnerTook } from '../calls/outcome.ts';
import type { Database } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import {
  type InstallRow,
  readLiveCache,
  storeCacheChanges,
  type VersionRow,
  webhookUrl,
} from '../installs/index.ts';
import type { RunnerClient, RunnerFailureResult } from '../runner/index.ts';
import type { SessionRow } from './sessions.ts';

/** How long a delivery waits for a runner to take it (busy, not_sent) before answering 502. */
export const WEBHOOK_CAPACITY_WAIT_MS = 10_000;

export interface WebhookCallDeps {
  database: Database;
  runner: RunnerClient;
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

/** What handle_webhook is run for: the install, the version it runs, the session and its version. */
export interface WebhookTarget {
  install: InstallRow;
  running: VersionRow;
  session: SessionRow;
  /** The version the session started on: its module handles the webhook. */
  version: VersionRow;
}

/** The module's checked answer, or 502 app_webhook_failed naming the runner's failure. */
export async function runHandleWebhook(
  deps: WebhookCallDeps,
  target: WebhookTarget,
  delivery: Delivery,
): Promise<unknown> {
  const { install, running, version } = target;
  const key = deps.secretStoreKey;
  const [secrets, cache] = await Promise.all([
    openRequiredSecrets(deps.database.db, install, version, key),
    key ? readLiveCache(deps.database.db, key, install) : null,
  ]);
  const sent = await sendWhileBusy(deps, install.tenantId, {
    module: { sha256: version.sha256 },
    call: {
      id: randomUUID(),
      tenantId: install.tenantId,
      callbackUrl: webhookUrl(running.manifest, install.config, install.id, deps.webhookBase),
    },
    config: install.config,
    secrets,
    hosts: install.hosts,
    cache: cache?.entries ?? null,
    request: {
      method: delivery.method,
      headers: delivery.headers,
      query: delivery.query,
      bodyBase64: delivery.body.toString('base64'),
    },
  });
  if (sent.ok || mayHaveRun(sent.code)) await meterApart(deps.database.db, meteredOf(target), 'webhooks');
  if (!sent.ok) throw webhookFailed(sent.code);
  // Whatever the module answered, what it changed in the cache is stored (as for calls).
  if (key && cache && sent.value.cacheChanges.length > 0) {
    await storeCacheChanges(deps.database, key, install, cache, sent.value.cacheChanges, deps.cacheBudget);
  }
  return sent.value.answer;
}

/** 502: the module or the runner failed; `reason` names which, never with the module's words. */
export const webhookFailed = (reason: string): ApiError =>
  new ApiError('app_webhook_failed', 'the app or the runner failed on this webhook', { reason });

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
function sendWhileBusy(deps: WebhookCallDeps, tenantId: string, body: WebhookBody) {
  const deadline = Date.now() + (deps.capacityWaitMs ?? WEBHOOK_CAPACITY_WAIT_MS);
  return deps.slots.run(tenantId, async (slot) => {
    for (let waits = 0; ; waits++) {
      if (Date.now() >= deadline) return NO_PLACE;
      const sent = await deps.runner.handleWebhook(body);
      if (sent.ok || runnerTook(sent.code)) return sent;
      const now = Date.now();
      const waitMs = capacityWaitMs({ waits, random: Math.random(), now, deadline, minimumMs: 0 });
      if (waitMs === null) return sent;
      await slot.pause(waitMs);
    }
  });
}

const meteredOf = ({ install, session }: WebhookTarget) => ({
  tenantId: install.tenantId,
  installId: install.id,
  installName: install.name,
  appName: install.appName,
  action: session.action,
});
