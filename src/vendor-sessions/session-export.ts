// An export of a vendor session's module outside an attempt: handle_webhook for the vendor's webhook
// (src/vendor-sessions/webhook-call.ts) and handoff for the applicant (src/collections/handoff.ts). Like an
// attempt's invoke (attempt.ts): the install's config, the secrets opened for it, its hosts and live
// cached values, the call's cache changes stored once the runner answered (nothing when it failed). Unlike
// it: no document token, circuit, quota or record; the session's own version runs (it finishes on the
// version that started it); and a call the module ran on, or may have, is metered apart from calls.
import { randomUUID } from 'node:crypto';
import { mayHaveRun, meterApart, openRequiredSecrets } from '../calls/index.ts';
import type { Database, Queryable } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import {
  type InstallRow,
  liveCacheOrRead,
  type StoredCache,
  type StoredSecret,
  storeCacheChanges,
  type VersionRow,
  webhookUrl,
} from '../installs/index.ts';
import type { RunnerAnswer, RunnerExportRequest, RunnerResult } from '../runner/index.ts';

export interface SessionExportDeps {
  database: Database;
  /** SECRET_STORE_KEY: opens cached values; without it the module gets no cache. */
  secretStoreKey: Buffer | null;
  cacheBudget: { entries: number; totalBytes: number };
  /** WEBHOOK_PUBLIC_URL: the call's callbackUrl is the install's webhook URL, as calls get it. */
  webhookBase: string | null;
}

export interface SessionExport {
  install: InstallRow;
  /** The version the session started on: its module runs. */
  version: VersionRow;
  /** The session's action, the metering row it counts in. */
  action: string;
  /** The required secrets, opened by the caller (openExportSecrets; each answers a refusal with its code). */
  secrets: Record<string, string>;
  /** What the export counts as: a webhook delivery or a hand-off. */
  counter: 'webhooks' | 'handoffs';
  /** The install's cache generation and stored values as read with it (a webhook's); absent: read here. */
  cache?: StoredCache;
}

/** Sends the export's request (the caller adds its own part and chooses how to send it). */
export type SendExport = (base: RunnerExportRequest) => Promise<RunnerResult<RunnerAnswer>>;

/** The runner's result of the export, metered and its cache changes stored. */
export async function callSessionExport(
  deps: SessionExportDeps,
  target: SessionExport,
  send: SendExport,
): Promise<RunnerResult<RunnerAnswer>> {
  const { install, version } = target;
  const key = deps.secretStoreKey;
  const db = deps.database.db;
  const cache = key ? await liveCacheOrRead(db, key, install, target.cache) : null;
  const sent = await send({
    module: { sha256: version.sha256 },
    call: {
      id: randomUUID(),
      tenantId: install.tenantId,
      callbackUrl: webhookUrl(version.manifest, install.config, install.id, deps.webhookBase),
    },
    config: install.config,
    secrets: target.secrets,
    hosts: install.hosts,
    cache: cache?.entries ?? null,
  });
  if (sent.ok || mayHaveRun(sent.code)) {
    const { tenantId, id: installId, name: installName, appName } = install;
    const row = { tenantId, installId, installName, appName, action: target.action };
    await meterApart(db, row, target.counter);
  }
  // Whatever the module answered, what it changed in the cache is stored (as after a call).
  if (sent.ok && key && cache && sent.value.cacheChanges.length > 0) {
    await storeCacheChanges(deps.database, key, install, cache, sent.value.cacheChanges, deps.cacheBudget);
  }
  return sent;
}

/** Why an export's required secrets cannot be opened: a reason for details.reason, and what names it. */
export interface SecretsRefusal {
  reason: 'missing_secrets' | 'secret_store_unavailable';
  details: { missingSecrets?: unknown[] };
}

/**
 * The one rule for a vendor webhook and a hand-off whose secrets cannot be opened: a failure of the export
 * (each answers it as its own 502, app_webhook_failed or handoff_failed, with this reason), never a call's
 * 409 install_not_configured or 503 secret_store_unavailable, which the vendor or the applicant can do
 * nothing about and which neither route's table names. Null: not a refusal of the secrets.
 */
export function secretsRefusalOf(error: unknown): SecretsRefusal | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'install_not_configured') {
    const named = error.details?.missingSecrets;
    return { reason: 'missing_secrets', details: { missingSecrets: Array.isArray(named) ? named : [] } };
  }
  if (error.code === 'secret_store_unavailable') return { reason: 'secret_store_unavailable', details: {} };
  return null;
}

/**
 * The export's required secrets under the session's version, or why they cannot be opened. `stored`: the
 * install's sealed secrets as read with it (a webhook's); absent: read here.
 */
export async function openExportSecrets(
  db: Queryable,
  install: InstallRow,
  version: VersionRow,
  key: Buffer | null,
  stored?: readonly StoredSecret[],
): Promise<{ ok: true; secrets: Record<string, string> } | ({ ok: false } & SecretsRefusal)> {
  try {
    return { ok: true, secrets: await openRequiredSecrets(db, install, version, key, stored) };
  } catch (error) {
    const refusal = secretsRefusalOf(error);
    if (!refusal) throw error;
    return { ok: false, ...refusal };
  }
}
