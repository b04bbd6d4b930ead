// http-connector's request_async and handle_webhook through the platform's real host (the loader):
// pending with the vendor's id, completion by webhooks signed under hmac, hmac-timestamped and
// Standard Webhooks, where the external id and event id may come from, and rejected signatures.
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type LoadedApp,
  signedWebhook,
  standardWebhook,
  timestampedWebhook,
  type WebhookRequest,
  webhookExternalId,
} from '../../../packages/app-testing/src/index.ts';
import { connectorSuite, errorAnswer, eventOf } from './support.ts';

const suite = connectorSuite();
const installs = suite.installs;

const SECRET = 'wh-secret-2718';
const defaultEventId = (externalId: string, body: string) =>
  createHmac('sha256', 'service-webhook-event-id').update(`${externalId}\0${body}`).digest('hex');

async function startJob(app: LoadedApp, path = '/jobs'): Promise<string> {
  const { answer } = await app.invoke('request_async', { method: 'POST', path, body: { kind: 'report' } });
  if (answer.status !== 'pending') throw new Error(`expected pending, got ${JSON.stringify(answer)}`);
  return answer.externalId;
}

async function webhookInstall(webhook: Record<string, unknown>, secret = SECRET) {
  const config = { webhook };
  return { app: await installs.install(config, { WEBHOOK_SECRET: secret }), config };
}

/** The external id the api finds in the webhook (the session it looks up), as the module must name it. */
function apiExternalId(app: LoadedApp, config: Record<string, unknown>, request: WebhookRequest) {
  return webhookExternalId(app.manifest, { baseUrl: suite.vendor.url, ...config }, request);
}

describe('request_async and webhooks', () => {
  it('hmac: pending with the vendor id, completed by the signed body, default event id', async () => {
    const { app, config } = await webhookInstall({ scheme: 'hmac', externalIdFrom: { json: '/job/id' } });
    const externalId = await startJob(app);
    expect(externalId).toMatch(/^job_\d+$/);
    const body = JSON.stringify({ job: { id: externalId }, status: 'completed', result: { score: 7 } });
    const request = signedWebhook({ secret: SECRET, body });
    expect(apiExternalId(app, config, request)).toBe(externalId);
    const event = eventOf((await app.handleWebhook(request)).answer);
    expect(event).toEqual({
      externalId,
      eventId: defaultEventId(externalId, body),
      status: 'completed',
      output: JSON.parse(body),
    });
  });

  it('hmac-timestamped: the install header names and prefix; event id, status and error from the body', async () => {
    const { app } = await webhookInstall({
      scheme: 'hmac-timestamped',
      signatureHeader: 'X-Vendor-Signature',
      signaturePrefix: 'v0=',
      timestampHeader: 'X-Vendor-Timestamp',
      externalIdFrom: { json: '/jobId' },
      eventIdFrom: { json: '/eventId' },
      statusFrom: { json: '/state' },
      errorFrom: { json: '/reason' },
      outputFrom: { json: '/result' },
    });
    const externalId = await startJob(app);
    const sign = (body: Record<string, unknown>) =>
      timestampedWebhook({
        secret: SECRET,
        header: 'x-vendor-signature',
        prefix: 'v0=',
        timestampHeader: 'x-vendor-timestamp',
        body,
      });
    const failed = sign({ jobId: externalId, eventId: 'evt_1', state: 'FAILED', reason: 'could not finish' });
    expect(eventOf((await app.handleWebhook(failed)).answer)).toEqual({
      externalId,
      eventId: 'evt_1',
      status: 'failed',
      error: 'could not finish',
    });
    const done = sign({ jobId: externalId, eventId: 'evt_2', state: 'succeeded', result: { pages: 3 } });
    expect(eventOf((await app.handleWebhook(done)).answer)).toMatchObject({
      status: 'completed',
      output: { pages: 3 },
    });
  });

  it('standard-webhooks: a whsec_ secret, several signatures, the event id from webhook-id', async () => {
    const key = randomBytes(24).toString('base64');
    const { app } = await webhookInstall(
      { scheme: 'standard-webhooks', secretEncoding: 'base64', externalIdFrom: { json: '/data/id' } },
      key,
    );
    const externalId = await startJob(app);
    const request = standardWebhook({
      secret: `whsec_${key}`,
      id: 'msg_2b7f',
      body: { type: 'job.done', data: { id: externalId }, status: 'succeeded' },
    });
    const other = `v1,${randomBytes(32).toString('base64')}`;
    request.headers['webhook-signature'] = `${other} ${request.headers['webhook-signature']}`;
    const event = eventOf((await app.handleWebhook(request)).answer);
    expect(event).toMatchObject({ externalId, eventId: 'msg_2b7f', status: 'completed' });

    const plain = await webhookInstall({ scheme: 'standard-webhooks', externalIdFrom: { json: '/data/id' } });
    const utf8 = standardWebhook({ secret: SECRET, id: 'msg_2', body: { data: { id: 'job_x' } } });
    expect(eventOf((await plain.app.handleWebhook(utf8)).answer)).toMatchObject({ externalId: 'job_x' });
  });

  it('takes the external id from a header the scheme signs, and never from one it does not', async () => {
    const { app, config } = await webhookInstall({
      scheme: 'standard-webhooks',
      externalIdFrom: { header: 'Webhook-Id' },
      eventIdFrom: { json: '/eventId' },
    });
    const externalId = await startJob(app);
    const request = standardWebhook({
      secret: SECRET,
      id: externalId,
      body: { eventId: 'evt_9', status: 'done' },
    });
    expect(apiExternalId(app, config, request)).toBe(externalId);
    expect(eventOf((await app.handleWebhook(request)).answer)).toMatchObject({
      externalId,
      eventId: 'evt_9',
      status: 'completed',
    });

    // hmac signs only the body: a header naming the id could be pointed at another session.
    const unsigned = await webhookInstall({ scheme: 'hmac', externalIdFrom: { header: 'x-job-id' } });
    const hmacRequest = signedWebhook({
      secret: SECRET,
      body: { ok: true },
      headers: { 'x-job-id': externalId },
    });
    const { answer } = await unsigned.app.handleWebhook(hmacRequest);
    expect(answer).toMatchObject({ status: 'error' });
    expect(JSON.stringify(answer)).toContain(
      'names header x-job-id, which the signature scheme does not cover',
    );
  });

  it('rejects a bad, missing or stale signature under each scheme', async () => {
    const stale = Math.floor(Date.now() / 1000) - 600;
    const body = { jobId: 'job_1', status: 'completed' };
    const hmac = (await webhookInstall({ scheme: 'hmac', externalIdFrom: { json: '/jobId' } })).app;
    const tampered = signedWebhook({ secret: SECRET, body });
    tampered.body = JSON.stringify({ ...body, jobId: 'job_2' });
    const hmacCases: WebhookRequest[] = [
      signedWebhook({ secret: 'not-the-secret', body }),
      tampered,
      { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      signedWebhook({ secret: SECRET, body, header: 'x-other-signature' }),
    ];
    const timestamped = (
      await webhookInstall({ scheme: 'hmac-timestamped', externalIdFrom: { json: '/jobId' } })
    ).app;
    const moved = timestampedWebhook({ secret: SECRET, body });
    moved.headers['x-timestamp'] = String(Number(moved.headers['x-timestamp']) + 1);
    const timestampedCases: WebhookRequest[] = [
      timestampedWebhook({ secret: 'not-the-secret', body }),
      timestampedWebhook({ secret: SECRET, body, timestamp: stale }),
      moved,
      signedWebhook({ secret: SECRET, body }),
    ];
    const standard = (
      await webhookInstall({ scheme: 'standard-webhooks', externalIdFrom: { json: '/jobId' } })
    ).app;
    const otherVersion = standardWebhook({ secret: SECRET, body });
    otherVersion.headers['webhook-signature'] = String(otherVersion.headers['webhook-signature']).replace(
      'v1,',
      'v2,',
    );
    const noId = standardWebhook({ secret: SECRET, body });
    delete noId.headers['webhook-id'];
    const standardCases: WebhookRequest[] = [
      standardWebhook({ secret: 'not-the-secret', body }),
      standardWebhook({ secret: SECRET, body, timestamp: stale }),
      otherVersion,
      noId,
    ];
    for (const [app, cases] of [
      [hmac, hmacCases],
      [timestamped, timestampedCases],
      [standard, standardCases],
    ] as const) {
      for (const request of cases) expect((await app.handleWebhook(request)).answer.status).toBe('rejected');
      // The right signature still passes: what failed above was the signature.
      const good =
        app === hmac
          ? signedWebhook({ secret: SECRET, body })
          : app === timestamped
            ? timestampedWebhook({ secret: SECRET, body })
            : standardWebhook({ secret: SECRET, body });
      expect((await app.handleWebhook(good)).answer.status).toBe('event');
    }
  });

  it('pending keeps the session waiting; a status the install does not map is ignored', async () => {
    const { app } = await webhookInstall({ scheme: 'hmac', externalIdFrom: { json: '/id' } });
    const progress = signedWebhook({ secret: SECRET, body: { id: 'job_5', status: 'processing' } });
    expect(eventOf((await app.handleWebhook(progress)).answer)).toMatchObject({ status: 'pending' });
    const other = signedWebhook({ secret: SECRET, body: { id: 'job_5', status: 'invoice.paid' } });
    expect((await app.handleWebhook(other)).answer).toEqual({ status: 'ignored' });
  });

  it('reads the started id at asyncExternalId, and fails without one or without a webhook config', async () => {
    const webhook = { scheme: 'hmac', externalIdFrom: { json: '/id' } };
    const nested = await installs.install(
      { webhook, asyncExternalId: '/data/jobId' },
      { WEBHOOK_SECRET: SECRET },
    );
    expect(await startJob(nested, '/jobs/nested')).toBe('4242');
    const { answer } = await nested.invoke('request_async', { method: 'POST', path: '/jobs/anonymous' });
    expect(errorAnswer(answer).message).toContain('without an id at /data/jobId');
    expect(errorAnswer(answer).retryable).toBeUndefined();
    const none = await installs.install();
    const refused = await none.invoke('request_async', { method: 'POST', path: '/jobs' });
    expect(errorAnswer(refused.answer).message).toContain('request_async needs config webhook');
  });
});
