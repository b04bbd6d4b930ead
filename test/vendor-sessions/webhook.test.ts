// POST /webhooks/app-installs/:installId through the real api and runner (docs/callbacks.md "Vendor
// webhooks"): every row of the answer table, with what each recorded (or did not), audited, metered
// and woke. The module checks the vendor's signature and answers what the signed body says.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { expectError } from '../http/expect.ts';
import { ok } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { statementsWhile } from '../support/statements.ts';
import {
  deliver,
  eventAnswer,
  installWebhookApp,
  openSessionRow,
  publishedId,
  recordingEngine,
  type SessionSeed,
  sessionState,
  startWebhookPlatform,
  WEBHOOK_SECRET,
  webhookApp,
  webhooksMetered,
} from './support.ts';

const recorder = recordingEngine();
let platform: CataloguePlatform;
let tenantId: string;
let versionId: string;
let installId: string;

beforeAll(async () => {
  platform = await startWebhookPlatform(recorder.engine);
  const admin = await platform.token({ tenant: 'hooks' });
  tenantId = await platform.tenantId('hooks');
  versionId = await publishedId(platform, admin, webhookApp());
  installId = await installWebhookApp(platform, admin, 'kyc', versionId);
}, 120_000);
afterAll(async () => platform?.close());

const open = (seed: Partial<SessionSeed> = {}) =>
  openSessionRow(platform, { tenantId, installId, versionId, ...seed });
const send = (session: string, answer: string | null, more: Record<string, unknown> = {}) =>
  deliver(platform, installId, { session, ...(answer === null ? {} : { answer }), ...more });
const wokenFor = (sessionId: string) => recorder.woken.filter((w) => w.sessionId === sessionId);

describe('an event for a pending session', () => {
  it('completes it: 202 received, the event recorded, audited without the payload, the run woken', async () => {
    const session = await open();
    const metered = await webhooksMetered(platform, installId);
    const answer = await ok(
      await send(session.externalId, eventAnswer(session.externalId, 'evt-done', 'completed'), {
        applicant: 'Ada Lovelace',
      }),
      202,
    );
    expect(answer).toEqual({ received: true, callbackId: session.id, status: 'completed' });
    const state = await sessionState(platform, session.id);
    expect(state.session).toMatchObject({
      status: 'completed',
      output: { decision: 'approved' },
      error: null,
    });
    expect(state.session?.completedAt).toBeInstanceOf(Date);
    expect(state.events).toEqual([
      expect.objectContaining({ eventId: 'evt-done', status: 'completed', outcome: 'completed', installId }),
    ]);
    expect(state.audits).toHaveLength(1);
    expect(state.audits[0]).toMatchObject({
      tenantId,
      actorType: 'system',
      actorId: 'vendor-webhook',
      resourceType: 'app_install',
      resourceId: installId,
      data: {
        name: 'kyc',
        appName: 'webhook-app',
        callbackId: session.id,
        externalId: session.externalId,
        status: 'completed',
        eventId: 'evt-done',
      },
    });
    expect(JSON.stringify(state.audits)).not.toMatch(/approved|Ada Lovelace/);
    expect(wokenFor(session.id)).toEqual([{ runId: session.workflowRunId, sessionId: session.id }]);
    expect(await webhooksMetered(platform, installId)).toBe(metered + 1);
  });

  it('reads the install with its secrets and cached values in one query, the manifests kept', async () => {
    const session = await open();
    const { sent } = await statementsWhile(async () =>
      ok(await send(session.externalId, eventAnswer(session.externalId, 'evt-reads', 'completed')), 202),
    );
    const withInstall = sent.filter((text) => text.includes('"app_install_secrets"'));
    expect(withInstall).toHaveLength(1);
    expect(withInstall[0]).toContain('"app_install_cache"');
    expect(sent.filter((text) => text.includes('"app_install_cache"'))).toHaveLength(1);
    // Both versions' manifests (the install's and the session's) are the ones the process kept.
    expect(sent.filter((text) => text.includes('"manifest"'))).toEqual([]);
  });

  it('fails it with the vendor’s error text: 202 received, status failed', async () => {
    const session = await open();
    const answer = await ok(
      await send(
        session.externalId,
        eventAnswer(session.externalId, 'evt-fail', 'failed', { error: 'document expired' }),
      ),
      202,
    );
    expect(answer).toEqual({ received: true, callbackId: session.id, status: 'failed' });
    const state = await sessionState(platform, session.id);
    expect(state.session).toMatchObject({ status: 'failed', output: null, error: 'document expired' });
    expect(state.events.map((e) => e.outcome)).toEqual(['failed']);
    expect(wokenFor(session.id)).toHaveLength(1);
  });

  it('accepts a pending event: 202 accepted, recorded, the session stays pending and no run is woken', async () => {
    const session = await open();
    const answer = await ok(
      await send(session.externalId, eventAnswer(session.externalId, 'evt-wait', 'pending', {})),
      202,
    );
    expect(answer).toEqual({ received: true, accepted: true, callbackId: session.id, status: 'pending' });
    const state = await sessionState(platform, session.id);
    expect(state.session?.status).toBe('pending');
    expect(state.events.map((e) => [e.status, e.outcome])).toEqual([['pending', 'accepted']]);
    expect(state.audits).toEqual([]);
    expect(wokenFor(session.id)).toEqual([]);
  });

  it('stores characters PostgreSQL cannot hold as U+FFFD', async () => {
    const session = await open();
    const output = { decision: 'approved', note: 'a\u0000b\ud800c' };
    await ok(
      await send(session.externalId, eventAnswer(session.externalId, 'evt-nul', 'completed', { output })),
      202,
    );
    const state = await sessionState(platform, session.id);
    expect(state.session?.output).toEqual({ decision: 'approved', note: 'a\ufffdb\ufffdc' });
  });

  it('wakes no run for a session no run waits on, and only logs a run it could not wake', async () => {
    const lone = await open({ workflowRunId: null });
    await ok(await send(lone.externalId, eventAnswer(lone.externalId, 'evt-lone', 'completed')), 202);
    expect(wokenFor(lone.id)).toEqual([]);

    const runId = randomUUID();
    recorder.failing.add(runId);
    const session = await open({ workflowRunId: runId });
    const response = await send(session.externalId, eventAnswer(session.externalId, 'evt-away', 'completed'));
    expect(await ok(response, 202)).toMatchObject({ status: 'completed' });
    expect(wokenFor(session.id)).toHaveLength(1);
    expect((await sessionState(platform, session.id)).session?.status).toBe('completed');
    expect(platform.logs).toContainEqual(
      expect.objectContaining({ msg: 'waking the run failed; the resumer will', workflowRunId: runId }),
    );
  });
});

describe('an event the session cannot take', () => {
  it('is stale once the session settled: 200 with its status, recorded stale, nothing else moves', async () => {
    const session = await open();
    await ok(await send(session.externalId, eventAnswer(session.externalId, 'evt-first', 'completed')), 202);
    const late = eventAnswer(session.externalId, 'evt-late', 'failed', { error: 'too late' });
    expect(await ok(await send(session.externalId, late), 200)).toEqual({
      received: false,
      stale: true,
      callbackId: session.id,
      status: 'completed',
    });
    const state = await sessionState(platform, session.id);
    expect(state.session).toMatchObject({ status: 'completed', error: null });
    expect(state.events.map((e) => [e.eventId, e.outcome])).toEqual([
      ['evt-first', 'completed'],
      ['evt-late', 'stale'],
    ]);
    expect(state.audits).toHaveLength(1);
    expect(wokenFor(session.id)).toHaveLength(1);
  });

  it('is stale on a timed-out session, a pending event too', async () => {
    const session = await open();
    await platform.database.db
      .update(appCallbacks)
      .set({ status: 'timed_out', completedAt: new Date() })
      .where(eq(appCallbacks.id, session.id));
    for (const [eventId, status] of [
      ['evt-t1', 'completed'],
      ['evt-t2', 'pending'],
    ] as const) {
      const answer = await ok(
        await send(session.externalId, eventAnswer(session.externalId, eventId, status)),
        200,
      );
      expect(answer).toEqual({ received: false, stale: true, callbackId: session.id, status: 'timed_out' });
    }
    const state = await sessionState(platform, session.id);
    expect(state.session?.status).toBe('timed_out');
    expect(state.events.map((e) => e.outcome)).toEqual(['stale', 'stale']);
    expect(wokenFor(session.id)).toEqual([]);
  });

  it('is a duplicate when the install received its event id before, for any of its sessions', async () => {
    const session = await open();
    const metered = await webhooksMetered(platform, installId);
    const pending = eventAnswer(session.externalId, 'evt-dup', 'pending', {});
    await ok(await send(session.externalId, pending), 202);
    expect(await ok(await send(session.externalId, pending), 200)).toEqual({
      received: false,
      duplicate: true,
    });
    // The same id completing the session is no completion: the install had that event.
    const completing = eventAnswer(session.externalId, 'evt-dup', 'completed');
    expect(await ok(await send(session.externalId, completing), 200)).toEqual({
      received: false,
      duplicate: true,
    });
    const other = await open();
    const elsewhere = eventAnswer(other.externalId, 'evt-dup', 'completed');
    expect(await ok(await send(other.externalId, elsewhere), 200)).toEqual({
      received: false,
      duplicate: true,
    });
    for (const id of [session.id, other.id]) {
      const state = await sessionState(platform, id);
      expect(state.session?.status).toBe('pending');
      expect(state.audits).toEqual([]);
      expect(wokenFor(id)).toEqual([]);
    }
    expect((await sessionState(platform, session.id)).events).toHaveLength(1);
    expect((await sessionState(platform, other.id)).events).toEqual([]);
    // Four deliveries the module ran on: each metered, the duplicates too.
    expect(await webhooksMetered(platform, installId)).toBe(metered + 4);
  });
});

describe('a delivery that records nothing', () => {
  /**
   * Sends, expects the answer, that the session did not move and has no event, and that the delivery was
   * metered once all the same (the module ran on it).
   */
  async function untouched(sending: () => Promise<Response>, sessionId: string) {
    const before = await sessionState(platform, sessionId);
    const metered = await webhooksMetered(platform, installId);
    const answered = await sending();
    expect(await sessionState(platform, sessionId)).toEqual(before);
    expect(before.events).toEqual([]);
    expect(wokenFor(sessionId)).toEqual([]);
    expect(await webhooksMetered(platform, installId)).toBe(metered + 1);
    return answered;
  }

  it('answers 202 ignored when the module has nothing for the platform', async () => {
    const session = await open();
    const response = await untouched(() => send(session.externalId, null), session.id);
    expect(await ok(response, 202)).toEqual({ received: false, ignored: true });
  });

  it('answers 401 webhook_rejected to a tampered signature', async () => {
    const session = await open();
    const tampered = () =>
      deliver(
        platform,
        installId,
        { session: session.externalId, answer: eventAnswer(session.externalId, 'evt-forged', 'completed') },
        { secret: 'not-the-vendors-secret' },
      );
    const error = await expectError(await untouched(tampered, session.id), 401, 'webhook_rejected');
    expect(error.message).not.toContain('bad signature');
  });

  it('answers 401 when ?externalId= names another session than the signed event (a replay pointed elsewhere)', async () => {
    const signedFor = await open();
    const pointedAt = await open();
    const replay = () =>
      deliver(
        platform,
        installId,
        {
          session: signedFor.externalId,
          answer: eventAnswer(signedFor.externalId, 'evt-replay', 'completed'),
        },
        { query: `?externalId=${encodeURIComponent(pointedAt.externalId)}` },
      );
    await expectError(await untouched(replay, pointedAt.id), 401, 'webhook_rejected');
    expect((await sessionState(platform, signedFor.id)).events).toEqual([]);
  });

  it('answers 401 when the module’s event names another session than the one found', async () => {
    const found = await open();
    const named = await open();
    const response = () => send(found.externalId, eventAnswer(named.externalId, 'evt-other', 'completed'));
    await expectError(await untouched(response, found.id), 401, 'webhook_rejected');
    expect((await sessionState(platform, named.id)).events).toEqual([]);
  });

  it('answers 502 app_webhook_failed to an error answer and a trap, metering the delivery', async () => {
    const session = await open();
    const metered = await webhooksMetered(platform, installId);
    const failing = () =>
      send(session.externalId, JSON.stringify({ status: 'error', message: 'vendor said Ada' }));
    const error = await expectError(await untouched(failing, session.id), 502, 'app_webhook_failed');
    expect(error).toMatchObject({ details: { reason: 'error' } });
    expect(error.message).not.toContain('Ada');
    const trapped = await expectError(
      await untouched(() => send(session.externalId, 'trap'), session.id),
      502,
      'app_webhook_failed',
    );
    expect(trapped.details).toEqual({ reason: 'trapped' });
    expect(await webhooksMetered(platform, installId)).toBe(metered + 2);
  });

  it('answers 502 to a completion whose output breaks the action’s output schema (the module broke its contract)', async () => {
    const session = await open();
    const broken = eventAnswer(session.externalId, 'evt-broken', 'completed', {
      output: { decision: 'maybe' },
    });
    const error = await expectError(
      await untouched(() => send(session.externalId, broken), session.id),
      502,
      'app_webhook_failed',
    );
    expect(error.details).toEqual({ reason: 'output' });
  });

  it('answers 502 app_webhook_failed (missing_secrets) while the module’s required secret has no value', async () => {
    const admin = await platform.token({ tenant: 'hooks' });
    const bare = await ok<{ id: string }>(
      await platform.fetch('/app-installs', {
        method: 'POST',
        token: admin,
        json: { name: 'no-secret', versionId, enabled: false, config: {} },
      }),
      201,
    );
    const session = await openSessionRow(platform, { tenantId, installId: bare.id, versionId });
    const body = {
      session: session.externalId,
      answer: eventAnswer(session.externalId, 'evt-bare', 'completed'),
    };
    const error = await expectError(await deliver(platform, bare.id, body), 502, 'app_webhook_failed');
    expect(error.details).toEqual({ reason: 'missing_secrets', missingSecrets: ['WEBHOOK_SECRET'] });
    expect(await sessionState(platform, session.id)).toMatchObject({
      session: { status: 'pending' },
      events: [],
    });
  });

  it('answers 400 missing_external_id before any module code runs', async () => {
    const metered = await webhooksMetered(platform, installId);
    for (const body of [{ other: 'x' }, { session: '' }, { session: 'x'.repeat(201) }, 'not json']) {
      await expectError(await deliver(platform, installId, body), 400, 'missing_external_id');
    }
    await expectError(
      await deliver(platform, installId, { session: 'a' }, { query: '?externalId=' }),
      400,
      'missing_external_id',
    );
    expect(await webhooksMetered(platform, installId)).toBe(metered);
  });

  it('answers 404 unknown_install to an id no install has, uuid or not', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', `${installId}x`]) {
      const error = await expectError(await deliver(platform, id, { session: 's' }), 404, 'unknown_install');
      expect(error.details).toBeUndefined();
    }
  });

  it('answers 404 not_found when no session of the install has the external id, or it was deleted', async () => {
    const error = await expectError(await send('nobody-has-this', null), 404, 'not_found');
    expect(error.message).toBe('no session of this install has that external id');
    const session = await open();
    await platform.database.db.delete(appCallbacks).where(eq(appCallbacks.id, session.id));
    await expectError(await send(session.externalId, null), 404, 'not_found');
    await expectError(await send('nul\u0000id', null), 404, 'not_found');
  });
});

describe('an install whose config says the external id is in the query', () => {
  // Any app but the generic connector may name the query (its manifest's webhookExternalIdFromConfig):
  // the vendor calls back at the webhook URL with its own parameter, here ?sid=.
  const queryApp = buildFixture('webhook-app', {
    '"name":"webhook-app"': '"name":"webhook-query-app"',
    '"webhookExternalId":{"json":"/session"}': '"webhookExternalIdFromConfig":"/idSource"',
    '"configSchema":{"type":"object"}':
      '"configSchema":{"type":"object","properties":{"idSource":{"type":"object"}}}',
  });

  it('saves the install and finds the session by that parameter, end to end', async () => {
    const admin = await platform.token({ tenant: 'hooks' });
    const queryVersionId = await publishedId(platform, admin, queryApp);
    const saved = await platform.fetch('/app-installs', {
      method: 'POST',
      token: admin,
      json: {
        name: 'kyc-query',
        versionId: queryVersionId,
        enabled: false,
        config: { idSource: { query: 'sid' } },
      },
    });
    const view = await ok<{ id: string; webhookUrl: string | null }>(saved, 201);
    expect(view.webhookUrl).toBe(`https://hooks.example.com/webhooks/app-installs/${view.id}`);
    await ok(
      await platform.fetch('/app-installs/kyc-query/secrets/WEBHOOK_SECRET', {
        method: 'POST',
        token: admin,
        json: { value: WEBHOOK_SECRET },
      }),
    );
    await ok(
      await platform.fetch('/app-installs/kyc-query', {
        method: 'PUT',
        token: admin,
        json: { versionId: queryVersionId, enabled: true, config: { idSource: { query: 'sid' } } },
      }),
    );
    const session = await openSessionRow(platform, {
      tenantId,
      installId: view.id,
      versionId: queryVersionId,
    });
    // No id in the body: only the query names the session.
    const body = { answer: eventAnswer(session.externalId, 'evt-query', 'completed') };
    const answer = await ok(
      await deliver(platform, view.id, body, { query: `?sid=${encodeURIComponent(session.externalId)}` }),
      202,
    );
    expect(answer).toEqual({ received: true, callbackId: session.id, status: 'completed' });
    expect((await sessionState(platform, session.id)).session?.status).toBe('completed');
    await expectError(await deliver(platform, view.id, body), 400, 'missing_external_id');
  });
});
