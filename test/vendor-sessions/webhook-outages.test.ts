// The vendor webhook where the module cannot be run (docs/callbacks.md "Vendor webhooks"): apps off, no
// secret store key for a module that needs secrets. Each is the answer table's 502 app_webhook_failed with
// its reason, nothing recorded, as the hand-off answers the same cases 502 handoff_failed
// (src/vendor-sessions/session-export.ts); and /openapi.json declares exactly the table's codes for the route. The
// install, its version and the session are written directly: no module runs before step 4.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMetering } from '../../src/calls/tables.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import type { Manifest } from '../../src/module/index.ts';
import { appCallbacks, appWebhookEvents } from '../../src/vendor-sessions/tables.ts';
import { errorOf } from '../installs/support.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertSession } from './rows.ts';

/** An install of a version that needs a secret, with a pending session; answers ids and a delivery. */
async function waitingSession(platform: TestPlatform) {
  const tenantId = await platform.tenantId();
  const db = platform.database.db;
  const manifest = { secrets: [{ name: 'WEBHOOK_SECRET' }], handles: { webhook: true }, actions: [] };
  const [version] = await db
    .insert(appVersions)
    .values({
      publisher: 'tenant',
      tenantId,
      name: 'kyc-like',
      version: '1.0.0',
      status: 'published',
      sha256: 'b'.repeat(64),
      sizeBytes: 1,
      manifest: manifest as unknown as Manifest,
    })
    .returning({ id: appVersions.id });
  const versionId = version?.id as string;
  const [install] = await db
    .insert(appInstalls)
    .values({
      tenantId,
      name: `kyc-${randomUUID().slice(0, 8)}`,
      appName: 'kyc-like',
      versionId,
      enabled: true,
      config: {},
      hosts: [],
    })
    .returning({ id: appInstalls.id });
  const installId = install?.id as string;
  const session = await insertSession(db, { tenantId, installId, versionId });
  const deliver = () =>
    platform.fetch(`/webhooks/app-installs/${installId}?externalId=${session.externalId}`, {
      method: 'POST',
      token: null,
      headers: { 'content-type': 'application/json' },
      body: '{"event":"done"}',
    });
  return { installId, session, deliver };
}

/** Nothing of the delivery stayed: the session pending, no event, nothing metered. */
async function expectNothingRecorded(platform: TestPlatform, installId: string, sessionId: string) {
  const db = platform.database.db;
  const [session] = await db.select().from(appCallbacks).where(eq(appCallbacks.id, sessionId));
  expect(session?.status).toBe('pending');
  expect(await db.select().from(appWebhookEvents).where(eq(appWebhookEvents.callbackId, sessionId))).toEqual(
    [],
  );
  expect(await db.select().from(appMetering).where(eq(appMetering.installId, installId))).toEqual([]);
}

describe('apps off: no runner (and the route as /openapi.json describes it)', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  it('answers 502 app_webhook_failed (apps_unavailable) at step 4, after the install and session are found', async () => {
    const { installId, session, deliver } = await waitingSession(platform);
    const failed = await errorOf(await deliver(), 502);
    expect(failed).toMatchObject({
      code: 'app_webhook_failed',
      message: 'this deployment has no app runner or no module storage',
      details: { reason: 'apps_unavailable' },
    });
    await expectNothingRecorded(platform, installId, session.id);
    // Steps 1 to 3 answer as anywhere: an unknown install, an unknown session.
    const unknown = await platform.fetch(`/webhooks/app-installs/${randomUUID()}?externalId=x`, {
      method: 'POST',
      token: null,
      body: '{}',
    });
    expect((await errorOf(unknown, 404)).code).toBe('unknown_install');
    const nobody = await platform.fetch(`/webhooks/app-installs/${installId}?externalId=nobody`, {
      method: 'POST',
      token: null,
      body: '{}',
    });
    expect((await errorOf(nobody, 404)).code).toBe('not_found');
  });

  it('declares exactly the codes of its answer table, each at the table’s status', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
    const doc: any = await (await platform.fetch('/openapi.json', { token: null })).json();
    const responses: Record<string, { description: string }> =
      doc.paths['/webhooks/app-installs/{installId}'].post.responses;
    // A route's own codes are described as `code: meaning; …`; the generic statuses as a sentence.
    const codesOf = (description: string) =>
      description
        .split('; ')
        .map((part) => /^([a-z_]+): /.exec(part)?.[1])
        .filter((code): code is string => code !== undefined);
    const declared = Object.fromEntries(
      Object.entries(responses)
        .map(([status, { description }]) => [status, codesOf(description)] as const)
        .filter(([, codes]) => codes.length > 0),
    );
    expect(declared).toEqual({
      400: ['missing_external_id'],
      401: ['webhook_rejected'],
      404: ['unknown_install', 'not_found'],
      409: ['app_blocked'],
      502: ['app_webhook_failed'],
    });
  });
});

describe('a module that needs secrets on a deployment without SECRET_STORE_KEY', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({
      // A runner is configured (apps on) but nothing listens: the secrets are refused before any call.
      APP_RUNNER_URL: `http://127.0.0.1:${await freePort()}`,
      APP_RUNNER_TOKEN: 'runner-token-nobody-checks',
    });
  });
  afterAll(async () => platform?.close());

  it('answers 502 app_webhook_failed (secret_store_unavailable), never the call’s 503', async () => {
    const { installId, session, deliver } = await waitingSession(platform);
    const failed = await errorOf(await deliver(), 502);
    expect(failed).toMatchObject({
      code: 'app_webhook_failed',
      message: 'the app needs secrets and this deployment has no secret store key',
      details: { reason: 'secret_store_unavailable' },
    });
    await expectNothingRecorded(platform, installId, session.id);
  });
});
