// Vendor webhooks beyond the answer table (docs/callbacks.md "Vendor webhooks"): bodies handed to the
// module byte for byte up to 256 KiB, the version a session started on handling it (and its block), the
// install's cached values, logs that carry no applicant data, first-wins under a storm of deliveries,
// and the save rule that keeps an install's external id where a signature covers it.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { appInstallCache } from '../../src/installs/tables.ts';
import { appWebhookEvents } from '../../src/vendor-sessions/tables.ts';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { expectError } from '../http/expect.ts';
import { configurableModule, ok, published } from '../installs/support.ts';
import {
  deliver,
  eventAnswer,
  installWebhookApp,
  openSessionRow,
  publishedId,
  recordingEngine,
  sessionState,
  startWebhookPlatform,
  webhookApp,
  webhooksMetered,
} from './support.ts';

const recorder = recordingEngine();
let platform: CataloguePlatform;
let admin: string;
let tenantId: string;
/** The version sessions start on, and the one the install runs now: it answers ignored to everything. */
let startedOn: string;
let runsNow: string;
let installId: string;

beforeAll(async () => {
  platform = await startWebhookPlatform(recorder.engine);
  admin = await platform.token({ tenant: 'storms' });
  tenantId = await platform.tenantId('storms');
  startedOn = await publishedId(platform, admin, webhookApp('1.0.0'));
  runsNow = await publishedId(platform, admin, webhookApp('1.0.1', true));
  installId = await installWebhookApp(platform, admin, 'kyc', runsNow);
}, 120_000);
afterAll(async () => platform?.close());

const open = (versionId = startedOn, workflowRunId?: string) =>
  openSessionRow(platform, { tenantId, installId, versionId, ...(workflowRunId ? { workflowRunId } : {}) });
const completion = (externalId: string, eventId: string, more: Record<string, unknown> = {}) => ({
  session: externalId,
  answer: eventAnswer(externalId, eventId, 'completed'),
  ...more,
});

describe('the body', () => {
  /** A completion's body padded to exactly `bytes` bytes of JSON. */
  function bodyOf(externalId: string, eventId: string, bytes: number): string {
    const bare = JSON.stringify(completion(externalId, eventId, { pad: '' }));
    return JSON.stringify(completion(externalId, eventId, { pad: 'x'.repeat(bytes - bare.length) }));
  }

  it('takes exactly 256 KiB, and answers 413 payload_too_large to one byte more, recording nothing', async () => {
    const session = await open();
    const metered = await webhooksMetered(platform, installId);
    const tooLarge = bodyOf(session.externalId, 'evt-big', 256 * 1024 + 1);
    expect(Buffer.byteLength(tooLarge)).toBe(256 * 1024 + 1);
    await expectError(await deliver(platform, installId, tooLarge), 413, 'payload_too_large');
    expect((await sessionState(platform, session.id)).events).toEqual([]);
    expect(await webhooksMetered(platform, installId)).toBe(metered);

    const largest = bodyOf(session.externalId, 'evt-big', 256 * 1024);
    expect(Buffer.byteLength(largest)).toBe(256 * 1024);
    expect(await ok(await deliver(platform, installId, largest), 202)).toMatchObject({ status: 'completed' });
  });

  it('reaches the module byte for byte whatever its content type (the signature covers what was sent)', async () => {
    const types = ['text/plain', 'application/json; charset=utf-8', 'application/octet-stream', null];
    for (const contentType of types) {
      const session = await open();
      // Spacing and member order JSON.parse and JSON.stringify would not keep.
      const answer = JSON.stringify(eventAnswer(session.externalId, `evt-${randomUUID()}`, 'completed'));
      const text = `{ "zeta" : 1,\n  "session" :"${session.externalId}" , "answer":${answer} }\n`;
      const response = await deliver(platform, installId, text, { contentType });
      expect(await ok(response, 202), String(contentType)).toMatchObject({ status: 'completed' });
    }
  });
});

describe('the version that handles a session', () => {
  it('is the one it started on, whatever the install runs now', async () => {
    const onOld = await open(startedOn);
    const answer = await ok(await deliver(platform, installId, completion(onOld.externalId, 'evt-old')), 202);
    expect(answer).toEqual({ received: true, callbackId: onOld.id, status: 'completed' });
    const onNew = await open(runsNow);
    const ignored = await ok(
      await deliver(platform, installId, completion(onNew.externalId, 'evt-new')),
      202,
    );
    expect(ignored).toEqual({ received: false, ignored: true });
  });

  it('answers 409 app_blocked without details when that version is blocked, running nothing', async () => {
    const [version] = await platform.database.db
      .select({ sha256: appVersions.sha256 })
      .from(appVersions)
      .where(eq(appVersions.id, startedOn));
    const onOld = await open(startedOn);
    const onNew = await open(runsNow);
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: version?.sha256 as string, reason: 'leaks applicant data', createdBy: 'operator' });
    try {
      const metered = await webhooksMetered(platform, installId);
      const response = await deliver(platform, installId, completion(onOld.externalId, 'evt-blocked'));
      const error = await expectError(response, 409, 'app_blocked');
      expect(error.details).toBeUndefined();
      expect(JSON.stringify(error)).not.toMatch(/leaks|[0-9a-f]{64}/);
      expect(await sessionState(platform, onOld.id)).toMatchObject({
        session: { status: 'pending' },
        events: [],
      });
      expect(await webhooksMetered(platform, installId)).toBe(metered);
      // The version the install runs is not blocked.
      await ok(await deliver(platform, installId, completion(onNew.externalId, 'evt-unblocked')), 202);
    } finally {
      await platform.database.db.delete(appBlocks).where(eq(appBlocks.reason, 'leaks applicant data'));
    }
  });
});

it('stores the cached values the module set, for the install', async () => {
  const session = await open();
  const body = completion(session.externalId, 'evt-cache', { remember: 'vendor-token-0123456789' });
  await ok(await deliver(platform, installId, body), 202);
  const rows = await platform.database.db
    .select({ name: appInstallCache.name })
    .from(appInstallCache)
    .where(eq(appInstallCache.installId, installId));
  expect(rows).toEqual([{ name: 'last' }]);
});

it('logs ids and codes, never the body, the output or the error text', async () => {
  const marker = 'Ada-Lovelace-1815-12-10';
  const session = await open();
  const failing = {
    session: session.externalId,
    answer: JSON.stringify({ status: 'error', message: marker }),
  };
  await expectError(await deliver(platform, installId, failing), 502, 'app_webhook_failed');
  const failed = eventAnswer(session.externalId, 'evt-logged', 'failed', { error: marker });
  const response = await deliver(platform, installId, {
    session: session.externalId,
    answer: failed,
    note: marker,
  });
  await ok(response, 202);
  const requestId = response.headers.get('x-request-id');
  expect(platform.logs.filter((line) => line.requestId === requestId)).toContainEqual(
    expect.objectContaining({
      msg: 'vendor webhook recorded',
      installId,
      callbackId: session.id,
      outcome: 'failed',
    }),
  );
  expect(JSON.stringify(platform.logs)).not.toContain(marker);
});

/**
 * Deliveries of one completion, and as many completions under other event ids, at once. The full storm
 * (200 and 200) holds too, in about 18 s on two cores: the api, the runner and this file share them.
 */
const STORM = 50;

it('lets one completion win a storm of deliveries: one answer settles, one run wakes, the rest are repeats or late', async () => {
  const runId = randomUUID();
  const session = await open(startedOn, runId);
  const same = completion(session.externalId, 'evt-storm');
  const deliveries = [
    ...Array.from({ length: STORM }, () => deliver(platform, installId, same)),
    ...Array.from({ length: STORM }, (_, i) =>
      deliver(platform, installId, completion(session.externalId, `evt-${i}`)),
    ),
  ];
  const answers = await Promise.all(
    deliveries.map(async (delivery) => {
      const response = await delivery;
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }),
  );
  const won = answers.filter((a) => a.status === 202);
  expect(won).toEqual([
    { status: 202, body: { received: true, callbackId: session.id, status: 'completed' } },
  ]);
  const rest = answers.filter((a) => a.status !== 202);
  expect(rest.filter((a) => a.body.duplicate === true)).toHaveLength(STORM - 1);
  expect(rest.filter((a) => a.body.stale === true)).toHaveLength(STORM);
  expect(recorder.woken.filter((w) => w.runId === runId)).toEqual([{ runId, sessionId: session.id }]);
  const events = await platform.database.db
    .select({ outcome: appWebhookEvents.outcome })
    .from(appWebhookEvents)
    .where(eq(appWebhookEvents.callbackId, session.id));
  expect(events).toHaveLength(STORM + 1);
  expect(events.filter((e) => e.outcome === 'completed')).toHaveLength(1);
  expect((await sessionState(platform, session.id)).audits).toHaveLength(1);
}, 120_000);

describe('saving an install whose webhook id source is in its config', () => {
  it('saves a source of the app’s own, the query or a header: the platform judges sources of http-connector only', async () => {
    const version = await published(platform, admin, configurableModule('id-source', '1.0.0'));
    const save = (name: string, idSource: Record<string, string>) =>
      platform.fetch('/app-installs', {
        method: 'POST',
        token: admin,
        json: {
          name,
          versionId: version.id,
          enabled: false,
          config: { idSource },
          approveHosts: ['api.vendor.test'],
        },
      });
    const byQuery = await ok<{ webhookUrl: string | null }>(await save('by-query', { query: 'sid' }), 201);
    expect(byQuery.webhookUrl).not.toBeNull();
    // A header may be one the app's own scheme signs: the platform knows the schemes of http-connector only.
    await ok(await save('by-header', { header: 'X-Session' }), 201);
  });
});
