// An export of a vendor session's module outside an attempt: handle_webhook for the vendor's webhook
// (src/callbacks/webhook-call.ts) and handoff for the applicant (src/collections/handoff.ts). Like an
// attempt's invoke (attempt.ts): the install's config, the secrets opened for it, its hosts and live
// cached values, the call's cache changes stored once the runner answered (nothing when it failed). Unlike
// it: no document token, circuit, quota or record; the session's own version runs (it finishes on the
// version that started it); and a call the module ran on, or may have, is metered apart from calls.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/pool.ts';
import {
  type InstallRow,
  readLiveCache,
  storeCacheChanges,
  type VersionRow,
  webhookUrl,
} from '../installs/index.ts';
import type { RunnerAnswer, RunnerExportRequest, RunnerResult } from '../runner/index.ts';
import { meterApart } from './metering.ts';
import { mayHaveRun } from './outcome.ts';

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
  /** The required secrets, opened by the caller (each answers a missing one its own way). */
  secrets: Record<string, string>;
  /** What the export counts as: a webhook delivery or a hand-off. */
  counter: 'webhooks' | 'handoffs';
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
  const cache = key ? await readLiveCache(deps.database.db, key, install) : null;
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
    await meterApart(deps.database.db, row, target.counter);
  }
  // Whatever the module answered, what it changed in the cache is stored (as after a call).
  if (sent.ok && key && cache && sent.value.cacheChanges.length > 0) {
    await storeCacheChanges(deps.database, key, install, cache, sent.value.cacheChanges, deps.cacheBudget);
  }
  return sent;
}
