// The SDK's exports and answers through the real runner: the manifest, invoke's dispatch and answer
// builders, the envelope's call and config, secret placeholders, webhooks (signature check through
// hmac_verify, the default event id through hmac) and hand-off; an abort ends the call as a trap.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunnerFailure } from '../../src/runner/errors.ts';
import { loadSdkApp, type SdkApp } from './sdk-harness.ts';

const WEBHOOK_SECRET = 'whsec-0123456789';
let app: SdkApp;
beforeAll(async () => {
  app = await loadSdkApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe('manifest and invoke', () => {
  it('answers the manifest the upload check accepts', () => {
    expect(app.manifest).toMatchObject({
      interface: 2,
      name: 'sdk-app',
      version: '1.2.3',
      title: 'SDK test app',
      secretsFromConfig: '/variables',
      needs: ['documents'],
      handles: { webhook: true, handoff: true },
    });
    expect(app.manifest.actions.map((a) => a.name)).toContain('json_roundtrip');
  });

  it('refuses an unknown action with an error answer', async () => {
    expect((await app.invoke('nope', {})).answer).toEqual({
      status: 'error',
      message: 'unknown action nope',
    });
  });

  it('answers pending, with or without a shorter wait', async () => {
    expect((await app.invoke('start', { externalId: 'sess-1' })).answer).toEqual({
      status: 'pending',
      externalId: 'sess-1',
    });
    expect((await app.invoke('start', { externalId: 'sess-2', wait: 600 })).answer).toEqual({
      status: 'pending',
      externalId: 'sess-2',
      callbackTimeoutSeconds: 600,
    });
  });

  it('answers errors: final, retryable, with a wait capped at one hour', async () => {
    expect((await app.invoke('fail', { message: 'bad input' })).answer).toEqual({
      status: 'error',
      message: 'bad input',
    });
    expect(
      (await app.invoke('fail', { message: 'busy', retryable: true, retryAfterMs: 9_000_000 })).answer,
    ).toEqual({ status: 'error', message: 'busy', retryable: true, retryAfterMs: 3_600_000 });
  });

  it('encodes and decodes base64', async () => {
    const { answer } = await app.invoke('base64', { text: 'héllo ✓ world', bad: 'a' });
    expect(answer).toEqual({
      status: 'ok',
      output: { encoded: Buffer.from('héllo ✓ world').toString('base64'), roundTrip: true, badIsNull: true },
    });
  });

  it('turns an abort into a trap, never an env.abort import', async () => {
    const failure = await app.invoke('abort', { index: 3 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunnerFailure);
    expect(failure).toMatchObject({ code: 'trapped' });
  });
});

describe('the envelope and secrets', () => {
  it('reads the call, the idempotency key and tagged placeholders from config', async () => {
    const config = {
      header: 'Bearer {{secret:API_KEY}}',
      nested: [{ sig: '{{secret:WEBHOOK_SECRET}} and {{secret:API_KEY}}' }],
      variables: [
        { key: 'region', value: 'eu' },
        { key: 'TOKEN', secret: true, stepPlaces: ['headers'] },
      ],
    };
    const { answer } = await app.invoke(
      'secrets',
      {
        text: 'from input {{secret:API_KEY}} {{secret:API_KEY:guessedtag0000000000000}}',
        template: '<<region>>/<<TOKEN>>/<<other>>',
      },
      { config },
    );
    expect(answer).toEqual({
      status: 'ok',
      output: {
        same: true,
        tagLength: 22,
        // The call's tag never leaves the module unredacted.
        placeholder: '{{secret:API_KEY:[tag]}}',
        configNames: ['API_KEY', 'WEBHOOK_SECRET'],
        inputNames: [],
        variables: ['region', 'TOKEN'],
        expanded: 'eu/{{secret:TOKEN:[tag]}}/<<other>>',
        call: { id: expect.stringMatching(/^call-/), tenantId: 'tenant-a' },
        idempotencyKey: 'key-1',
      },
    });
  });
});

function webhook(body: unknown, sign: string | null = WEBHOOK_SECRET) {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (sign) headers['x-signature'] = `sha256=${createHmac('sha256', sign).update(text).digest('hex')}`;
  return {
    request: {
      method: 'POST',
      headers,
      query: { externalId: 'ignored' },
      bodyBase64: Buffer.from(text).toString('base64'),
    },
    text,
  };
}

const handle = (request: unknown) =>
  app.call('handle_webhook', { request }, { secrets: { WEBHOOK_SECRET } }).then((o) => o.answer);

describe('handle_webhook', () => {
  it('completes with the default event id: hex HMAC-SHA256 of the external id, NUL and the body', async () => {
    const { request, text } = webhook({ id: 'sess-1', status: 'completed', result: { decision: 'approve' } });
    const eventId = createHmac('sha256', 'service-webhook-event-id')
      .update(Buffer.concat([Buffer.from('sess-1'), Buffer.from([0]), Buffer.from(text)]))
      .digest('hex');
    expect(await handle(request)).toEqual({
      status: 'event',
      event: { externalId: 'sess-1', eventId, status: 'completed', output: { decision: 'approve' } },
    });
  });

  it('uses a signed event id, reports failures, ignores pings and rejects bad signatures', async () => {
    expect(
      await handle(webhook({ id: 'sess-2', eventId: 'evt-9', status: 'failed', reason: 'declined' }).request),
    ).toEqual({
      status: 'event',
      event: { externalId: 'sess-2', eventId: 'evt-9', status: 'failed', error: 'declined' },
    });
    expect(await handle(webhook({ type: 'ping' }, null).request)).toEqual({ status: 'ignored' });
    expect(await handle(webhook({ id: 'sess-3' }, 'wrong-secret').request)).toEqual({
      status: 'rejected',
      message: 'bad signature',
    });
    expect(await handle(webhook({ id: 'sess-3' }, null).request)).toEqual({
      status: 'rejected',
      message: 'bad signature',
    });
  });
});

describe('handoff', () => {
  it('answers the vendor page, or none', async () => {
    const config = { pageBase: 'https://verify.vendor.test' };
    const page = await app.call(
      'handoff',
      { externalId: 'sess-1', returnUrl: 'https://flow.test/r' },
      { config },
    );
    expect(page.answer).toEqual({
      status: 'ok',
      handoff: {
        url: 'https://verify.vendor.test/s/sess-1?return=https://flow.test/r',
        expiresAt: '2030-01-01T00:00:00Z',
      },
    });
    const none = await app.call(
      'handoff',
      { externalId: 'none', returnUrl: 'https://flow.test/r' },
      { config },
    );
    expect(none.answer).toEqual({ status: 'ok', handoff: null });
  });
});
