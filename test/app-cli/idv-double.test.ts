// `app vendor-double --idv`, the hosted identity-verification vendor a newcomer runs: its decide rule row
// by row; the double against the release's identity-verification module through the real host (the test
// loader), so the session it opens, the page it hands off to and the webhook it signs are what the module
// expects; its control and hosted-page routes; and the command itself as a process (its line, its usage).
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type LoadedApp,
  loadApp,
  startVendorDouble,
  type VendorDouble,
} from '../../packages/app-testing/src/index.ts';
import { decisionOf, type IdvVendor, startIdvVendor } from '../../src/app-cli/idv-double.ts';
import {
  APP_BIN,
  baseEnv,
  cleanUpProcesses,
  ROOT,
  run,
  signal,
  startVendorDoubleCommand,
} from '../support/processes.ts';

const MODULE = path.join(ROOT, 'apps/build/identity-verification-1.0.0.wasm');
const WEBHOOK_SECRET = 'whsec-double-test';
const API_KEY = 'idv-double-key';
const RETURN_URL = 'https://collect.example.com/flow/sub-1';

describe('decisionOf: a decide body', () => {
  it.each([
    ['a decision alone', { decision: 'approved' }, { status: 'approved', decision: 'approved', reasons: [] }],
    [
      'a decided status alone',
      { status: 'declined' },
      { status: 'declined', decision: 'declined', reasons: [] },
    ],
    [
      'a failed status with the vendor’s error',
      { status: 'expired', error: 'link expired' },
      { status: 'expired', reasons: [], error: 'link expired' },
    ],
    ['a still-running status', { status: 'review' }, { status: 'review', reasons: [] }],
    [
      'reasons and an event id kept',
      { decision: 'declined', reasons: ['document_expired', { code: 'face' }], eventId: 'evt_1' },
      {
        status: 'declined',
        decision: 'declined',
        reasons: ['document_expired', { code: 'face' }],
        eventId: 'evt_1',
      },
    ],
  ])('takes %s', (_, body, verdict) => {
    expect(decisionOf(body)).toEqual(verdict);
  });

  it.each([
    ['not an object', ['approved'], 'the body is a JSON object'],
    ['nothing decided', {}, 'give a decision (approved or declined) or a status'],
    ['an unknown decision', { decision: 'maybe' }, 'decision must be approved or declined, not "maybe"'],
    ['a platform status', { status: 'completed' }, 'status must be one of approved, declined, review'],
    ['a contradiction', { decision: 'approved', status: 'declined' }, 'status declined contradicts'],
    ['an unknown field (a typo)', { decison: 'approved' }, 'unknown field decison'],
    ['reasons not a list', { decision: 'approved', reasons: 'ok' }, 'reasons is a list'],
    ['an empty event id', { decision: 'approved', eventId: '' }, 'eventId is a text of 1 to 200'],
  ])('refuses %s', (_, body, message) => {
    expect(() => decisionOf(body)).toThrow(message);
  });
});

describe('the double against the identity-verification module', () => {
  let vendor: IdvVendor;
  /** Stands where the platform's webhook route would: records what came, answers as the route does. */
  let platform: VendorDouble;
  let app: LoadedApp;
  const lines: string[] = [];

  beforeAll(async () => {
    platform = await startVendorDouble([
      { method: 'POST', path: '/webhooks/app-installs/:id', status: 202, json: { received: true } },
    ]);
    vendor = await startIdvVendor({
      port: 0,
      webhookSecret: WEBHOOK_SECRET,
      apiKey: API_KEY,
      print: (line) => lines.push(line),
    });
    app = await loadApp(MODULE, {
      config: { baseUrl: vendor.url },
      secrets: { API_KEY, WEBHOOK_SECRET },
      callbackUrl: `${platform.url}/webhooks/app-installs/install-1`,
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await vendor?.close();
    await platform?.close();
  });

  const control = async (route: string, body?: unknown) => {
    const response = await fetch(`${vendor.url}/__double/${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  const start = async () => {
    const { answer } = await app.invoke('start_verification', { firstName: 'Ada', lastName: 'Lovelace' });
    if (answer.status !== 'pending') throw new Error(JSON.stringify(answer));
    return answer.externalId;
  };

  it('opens a session the module waits on, hands off to its hosted page, and signs the decision as the module checks it', async () => {
    const sessionId = await start();
    expect(sessionId).toMatch(/^sess_[0-9a-f]{12}$/);
    expect(vendor.sessions.get(sessionId)).toMatchObject({
      status: 'pending',
      callbackUrl: `${platform.url}/webhooks/app-installs/install-1`,
    });

    const handoff = await app.handoff(sessionId, RETURN_URL);
    const page = `${vendor.url}/hosted/${sessionId}`;
    expect(handoff.answer).toEqual({
      status: 'ok',
      handoff: { url: page, expiresAt: vendor.sessions.get(sessionId)?.expiresAt },
    });
    const html = await fetch(page);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = await html.text();
    expect(text).toContain(`Session <code>${sessionId}</code>: <strong>pending</strong>`);
    expect(text).toContain(`href="${RETURN_URL}"`);

    const decided = await control(`sessions/${sessionId}/decide`, {
      decision: 'approved',
      reasons: ['document_ok'],
    });
    const sent = { sessionId, eventId: `evt_${sessionId}_1`, status: 'approved', decision: 'approved' };
    expect(decided).toEqual({
      status: 200,
      body: {
        session: { id: sessionId, status: 'approved', url: page, expiresAt: expect.any(String) },
        sent: { ...sent, reasons: ['document_ok'] },
        platform: { status: 202, body: { received: true } },
      },
    });
    // What reached the platform: exactly the bytes signed, under the install's secret.
    const [webhook] = platform.requests;
    const signature = createHmac('sha256', WEBHOOK_SECRET)
      .update(webhook?.bodyBytes ?? '')
      .digest('hex');
    expect(webhook?.headers['x-idv-signature']).toBe(signature);
    expect(webhook?.headers['content-type']).toBe('application/json');
    const { answer } = await app.handleWebhook({
      headers: webhook?.headers ?? {},
      body: webhook?.bodyBytes ?? '',
    });
    expect(answer).toEqual({
      status: 'event',
      event: {
        externalId: sessionId,
        eventId: `evt_${sessionId}_1`,
        status: 'completed',
        output: { decision: 'approved', reasons: ['document_ok'], sessionId },
      },
    });
    // Settled: the module hands off no more.
    expect((await app.handoff(sessionId, RETURN_URL)).answer).toEqual({ status: 'ok', handoff: null });
    expect(lines).toEqual(
      expect.arrayContaining([
        `POST /v1/sessions: opened ${sessionId} (reference none; webhooks to ${platform.url}/webhooks/app-installs/install-1)`,
        `GET /v1/sessions/${sessionId}: pending (returns to ${RETURN_URL})`,
        `GET /hosted/${sessionId}: the hosted page (pending)`,
        `decide ${sessionId} approved: POST ${platform.url}/webhooks/app-installs/install-1 (event evt_${sessionId}_1) answered 202 {"received":true}`,
      ]),
    );
  });

  it('sends a failed session’s webhook the module reads as failed, and a redelivery under the same event id', async () => {
    const sessionId = await start();
    platform.reset();
    const failed = await control(`sessions/${sessionId}/decide`, {
      status: 'error',
      error: 'camera',
      eventId: 'e-9',
    });
    expect(failed.body.sent).toEqual({
      sessionId,
      eventId: 'e-9',
      status: 'error',
      reasons: [],
      error: 'camera',
    });
    await control(`sessions/${sessionId}/decide`, { status: 'error', error: 'camera', eventId: 'e-9' });
    expect(platform.requests.map((r) => r.body)).toEqual([
      JSON.stringify(failed.body.sent),
      JSON.stringify(failed.body.sent),
    ]);
    const [webhook] = platform.requests;
    const { answer } = await app.handleWebhook({
      headers: webhook?.headers ?? {},
      body: webhook?.bodyBytes ?? '',
    });
    expect(answer).toMatchObject({ status: 'event', event: { status: 'failed', eventId: 'e-9' } });
  });

  it('takes the applicant’s answer on the hosted page, then sends them back to the flow', async () => {
    const sessionId = await start();
    await app.handoff(sessionId, RETURN_URL);
    platform.reset();
    const answered = await fetch(`${vendor.url}/hosted/${sessionId}`, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'declined' }),
      redirect: 'manual',
    });
    expect([answered.status, answered.headers.get('location')]).toEqual([303, RETURN_URL]);
    expect(JSON.parse(platform.requests[0]?.body ?? '')).toMatchObject({ sessionId, status: 'declined' });
    expect(await (await fetch(`${vendor.url}/hosted/${sessionId}`)).text()).not.toContain('<form');
  });

  it('refuses what it cannot do: a bad key, an unknown session, a bad body, a session without callbackUrl, an unreachable platform', async () => {
    const noKey = await fetch(`${vendor.url}/v1/sessions`, { method: 'POST', body: '{}' });
    expect([noKey.status, await noKey.json()]).toEqual([401, { message: 'invalid API key' }]);
    expect(await control('sessions/sess_nope/decide', { decision: 'approved' })).toEqual({
      status: 404,
      body: { error: 'no session sess_nope' },
    });
    const sessionId = await start();
    expect(await control(`sessions/${sessionId}/decide`, { decision: 'yes' })).toEqual({
      status: 400,
      body: { error: 'decision must be approved or declined, not "yes"' },
    });

    const silent = await loadApp(MODULE, {
      config: { baseUrl: vendor.url },
      secrets: { API_KEY, WEBHOOK_SECRET },
    });
    try {
      const { answer } = await silent.invoke('start_verification', { firstName: 'A', lastName: 'B' });
      const id = (answer as { externalId: string }).externalId;
      expect(await control(`sessions/${id}/decide`, { decision: 'approved' })).toEqual({
        status: 409,
        body: { error: `session ${id} has no callbackUrl (the module sent none), so no webhook can go` },
      });
    } finally {
      await silent.close();
    }

    const gone = await startVendorDouble();
    const goneUrl = `${gone.url}/webhooks/app-installs/x`;
    await gone.close();
    const session = vendor.sessions.get(sessionId);
    if (session) session.callbackUrl = goneUrl;
    const unreachable = await control(`sessions/${sessionId}/decide`, { decision: 'approved' });
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.error).toMatch(`the webhook to ${goneUrl} failed: connect ECONNREFUSED`);
  });

  it('lists its sessions, and answers its control routes during an outage', async () => {
    const listed = await control('sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([...vendor.sessions.keys()]);
    await fetch(`${vendor.url}/__double/outage`, { method: 'POST', body: '{"mode":"unavailable"}' });
    try {
      const down = await fetch(`${vendor.url}/v1/sessions/x`);
      expect(down.status).toBe(503);
      expect((await control('sessions')).status).toBe(200);
    } finally {
      await fetch(`${vendor.url}/__double/outage`, { method: 'DELETE' });
    }
    expect(lines).toContain('GET /v1/sessions/x: answered by the outage unavailable');
  });
});

describe('npx app vendor-double --idv', () => {
  afterEach(cleanUpProcesses);

  it('--help names every field a decide body takes, eventId and how the double names its events included', async () => {
    // The fields as decisionOf lists them when it refuses an unknown one.
    const refused = (() => {
      try {
        decisionOf({ unknownField: true });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const fields = /a decision takes (.*)$/.exec(refused)?.[1]?.split(/, | and /) ?? [];
    expect(fields).toContain('eventId');
    const help = await run([], baseEnv({}), {
      shell: `${JSON.stringify(process.execPath)} ${APP_BIN} vendor-double --help`,
    });
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    for (const field of fields) expect(text).toMatch(new RegExp(`\\b${field}\\b`));
    expect(text).toContain('evt_<session>_<n>');
  }, 60_000);

  it('prints where it listens, and refuses --idv without a webhook secret or the secret without --idv', async () => {
    const vendor = await startVendorDoubleCommand(0, baseEnv({}), ['--idv', '--webhook-secret', 's']);
    expect(vendor.stdout()).toMatch(
      /^identity-verification vendor double listening on http:\/\/(127\.0\.0\.1:\d+) \(approve host \1\)\n$/,
    );
    signal(vendor.child, 'SIGTERM');
    const exit = await vendor.exited;
    expect(exit.code, JSON.stringify(exit)).toBe(0);

    for (const [args, message] of [
      [['--idv'], 'app: --idv needs --webhook-secret <secret>\n'],
      [['--webhook-secret', 's'], 'app: --webhook-secret and --api-key go with --idv\n'],
    ] as const) {
      const refused = await run([], baseEnv({}), {
        shell: `${JSON.stringify(process.execPath)} ${APP_BIN} vendor-double --port 0 ${args.join(' ')}`,
      });
      expect([refused.code, refused.stderr]).toEqual([2, message]);
    }
  }, 60_000);
});
