// Sessions still pending finish on the version that started them (docs/upgrades.md, docs/callbacks.md):
// an automatic upgrade moves an install while a vendor session it opened waits, and the vendor's webhook
// is still handled by the module of the version the session started on. The webhook-app fixture's 1.0.1
// answers ignored to every delivery, so which module handled a webhook shows in its answer.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { ok } from '../installs/support.ts';
import {
  deliver,
  eventAnswer,
  openSessionRow,
  recordingEngine,
  startWebhookPlatform,
  WEBHOOK_SECRET,
  webhookApp,
} from '../vendor-sessions/support.ts';
import { asynchronous, type InstallView, platformRelease, sweep } from './support.ts';

const recorder = recordingEngine();
let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startWebhookPlatform(recorder.engine);
}, 120_000);
afterAll(async () => platform?.close());
const release = platformRelease(() => platform);

/** The webhook-app fixture's own manifest, as a release of the platform would carry it. */
const manifest = {
  configSchema: { type: 'object' },
  hostsFromConfig: [],
  secrets: [{ name: 'WEBHOOK_SECRET' }],
  actions: [{ ...asynchronous('verify'), output: { type: 'object', required: ['decision'] } }],
  hosts: [],
  handles: { webhook: true, webhookExternalId: { json: '/session' } },
};

it('a pending session finishes on the version that started it, after an automatic upgrade', async () => {
  const token = await platform.token({ tenant: 'sessions' });
  const tenantId = await platform.tenantId('sessions');
  const first = await release.publish({
    name: 'webhook-app',
    version: '1.0.0',
    manifest,
    bytes: webhookApp(),
  });
  const call = (path: string, method: string, json: unknown) => platform.fetch(path, { method, token, json });
  const created = await ok<InstallView>(
    await call('/app-installs', 'POST', {
      name: 'kyc',
      versionId: first['1.0.0'],
      enabled: false,
      autoUpgrade: 'compatible',
    }),
    201,
  );
  await ok(await call('/app-installs/kyc/secrets/WEBHOOK_SECRET', 'POST', { value: WEBHOOK_SECRET }));
  await ok(await call('/app-installs/kyc', 'PUT', { versionId: first['1.0.0'], enabled: true }));
  const session = await openSessionRow(platform, {
    tenantId,
    installId: created.id,
    versionId: first['1.0.0'] as string,
  });

  const next = await release.publish({
    name: 'webhook-app',
    version: '1.0.1',
    manifest,
    bytes: webhookApp('1.0.1', true),
  });
  const report = await sweep(platform.database, platform.config, { appName: 'webhook-app' });
  expect(report.upgraded).toEqual([expect.objectContaining({ installId: created.id, toVersion: '1.0.1' })]);
  expect((await ok<InstallView>(await platform.fetch('/app-installs/kyc', { token }))).versionId).toBe(
    next['1.0.1'],
  );

  // 1.0.0's module handles the session it started: completed, its run woken.
  const completion = (externalId: string, eventId: string) => ({
    session: externalId,
    answer: eventAnswer(externalId, eventId, 'completed'),
  });
  const answer = await ok(await deliver(platform, created.id, completion(session.externalId, 'evt-1')), 202);
  expect(answer).toEqual({ received: true, callbackId: session.id, status: 'completed' });
  expect(recorder.woken).toContainEqual({ runId: session.workflowRunId, sessionId: session.id });
  // A session the install opens now starts on 1.0.1, whose module answers ignored.
  const fresh = await openSessionRow(platform, {
    tenantId,
    installId: created.id,
    versionId: next['1.0.1'] as string,
  });
  expect(await ok(await deliver(platform, created.id, completion(fresh.externalId, 'evt-2')), 202)).toEqual({
    received: false,
    ignored: true,
  });
});
