// The webhook tests' platform: the real api and runner, the webhook-app fixture (a module that checks the
// vendor's HMAC signature, then answers what the signed body says) installed with its secret, sessions
// written straight into app_callbacks (as a run's call_app step would open them), and a runs engine that
// records which runs the api woke (no DBOS in these files: the run side is another file's).
import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { signedWebhook } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { appMetering } from '../../src/calls/tables.ts';
import type { RunsEngine } from '../../src/runs/engine-client.ts';
import { appCallbacks, appWebhookEvents } from '../../src/vendor-sessions/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';

export const WEBHOOK_SECRET = 'whsec-webhook-tests-5e1d';

/** A runs engine that records the continuations the api started; resume fails for `failing` run ids. */
export function recordingEngine() {
  const woken: { runId: string; sessionId: string }[] = [];
  const failing = new Set<string>();
  const engine: RunsEngine = {
    start: async () => {},
    resume: async (runId, sessionId) => {
      woken.push({ runId, sessionId });
      if (failing.has(runId)) throw new Error('the engine is away');
    },
    cancel: async () => {},
    close: async () => {},
  };
  return { engine, woken, failing };
}

export async function startWebhookPlatform(engine: RunsEngine): Promise<CataloguePlatform> {
  return startCataloguePlatform(
    {
      SECRET_STORE_KEY: SECRET_KEY_HEX,
      // Storms of deliveries from one address: no caller's limit may answer them 429.
      API_RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_PUBLIC_URL: 'https://hooks.example.com',
    },
    { runs: engine },
  );
}

/** The webhook-app fixture at `version`; `ignoring`: a variant answering ignored to every delivery. */
export const webhookApp = (version = '1.0.0', ignoring = false) =>
  buildFixture('webhook-app', {
    '"version":"1.0.0"': `"version":"${version}"`,
    ...(ignoring ? { 'const ALWAYS_IGNORE = false;': 'const ALWAYS_IGNORE = true;' } : {}),
  });

/** Publishes a module for the tenant's admin and answers its version id. */
export const publishedId = async (platform: CataloguePlatform, token: string, bytes: Promise<Uint8Array>) =>
  (await published(platform, token, bytes)).id;

/** Installs `versionId` as `name`, enabled, with WEBHOOK_SECRET stored; answers the install's id. */
export async function installWebhookApp(
  platform: CataloguePlatform,
  token: string,
  name: string,
  versionId: string,
): Promise<string> {
  const call = (path: string, json: unknown) => platform.fetch(path, { method: 'POST', token, json });
  const view = await ok<{ id: string }>(
    await call('/app-installs', { name, versionId, enabled: false, config: {} }),
    201,
  );
  await ok(await call(`/app-installs/${name}/secrets/WEBHOOK_SECRET`, { value: WEBHOOK_SECRET }));
  await ok(
    await platform.fetch(`/app-installs/${name}`, {
      method: 'PUT',
      token,
      json: { versionId, enabled: true, config: {} },
    }),
  );
  return view.id;
}

export interface SessionSeed {
  tenantId: string;
  installId: string;
  versionId: string;
  externalId?: string;
  /** A run waiting on it; null: none (a session no run waits on). Default a fresh id. */
  workflowRunId?: string | null;
}

/** A pending session as a run's call_app step opens it. */
export async function openSessionRow(platform: CataloguePlatform, seed: SessionSeed) {
  const [row] = await platform.database.db
    .insert(appCallbacks)
    .values({
      tenantId: seed.tenantId,
      installId: seed.installId,
      installName: 'kyc',
      versionId: seed.versionId,
      action: 'verify',
      externalId: seed.externalId ?? `sess-${randomUUID()}`,
      workflowRunId: seed.workflowRunId === undefined ? randomUUID() : seed.workflowRunId,
      stepId: 'verify',
    })
    .returning();
  if (!row) throw new Error('no session');
  return row;
}

/** The module's answer: an event for `externalId`. */
export const eventAnswer = (
  externalId: string,
  eventId: string,
  status: 'completed' | 'failed' | 'pending',
  more: { output?: unknown; error?: string } = { output: { decision: 'approved' } },
) => JSON.stringify({ status: 'event', event: { externalId, eventId, status, ...more } });

export interface Delivery {
  /** Default: signed with WEBHOOK_SECRET. */
  secret?: string;
  query?: string;
  headers?: Record<string, string>;
  /** The Content-Type sent (default application/json); null: none at all. */
  contentType?: string | null;
}

/** POSTs a vendor's signed webhook of `body` (JSON text as given, or an object's JSON) to the install. */
export function deliver(
  platform: CataloguePlatform,
  installId: string,
  body: string | Record<string, unknown>,
  options: Delivery = {},
): Promise<Response> {
  const signed = signedWebhook({
    secret: options.secret ?? WEBHOOK_SECRET,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: options.headers,
  });
  const headers = { ...signed.headers };
  if (options.contentType === null) delete headers['content-type'];
  else if (options.contentType) headers['content-type'] = options.contentType;
  return platform.fetch(`/webhooks/app-installs/${installId}${options.query ?? ''}`, {
    method: 'POST',
    token: null,
    headers,
    // As bytes: fetch names no type of its own for them (it would call text text/plain).
    body: Buffer.from(signed.body),
  });
}

/** Everything a delivery may change about a session: its row, its events, its audit records. */
export async function sessionState(platform: CataloguePlatform, sessionId: string) {
  const db = platform.database.db;
  const [session] = await db.select().from(appCallbacks).where(eq(appCallbacks.id, sessionId));
  const events = await db
    .select()
    .from(appWebhookEvents)
    .where(eq(appWebhookEvents.callbackId, sessionId))
    .orderBy(asc(appWebhookEvents.receivedAt));
  const audits = await db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.action, 'app.callback.received'))
    .orderBy(asc(auditEvents.id));
  return {
    session,
    events,
    audits: audits.filter((a) => (a.data as { callbackId?: string }).callbackId === sessionId),
  };
}

/** The install's webhooks counted today (all actions). */
export async function webhooksMetered(platform: CataloguePlatform, installId: string): Promise<number> {
  const rows = await platform.database.db
    .select({ webhooks: appMetering.webhooks, calls: appMetering.calls })
    .from(appMetering)
    .where(eq(appMetering.installId, installId));
  return rows.reduce((sum, row) => sum + row.webhooks, 0);
}
