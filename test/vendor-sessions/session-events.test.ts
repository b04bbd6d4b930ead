// GET /app-callbacks/:id and GET /app-callbacks/:id/events through the real api (apps off: both answer
// from the database alone), over sessions and webhook events written straight into their tables: one
// session redacted as in the listing, the webhooks it received newest first and paged, never another
// session's or another tenant's; an unknown id 404 and a bad one 400 at its parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackView } from '../../src/vendor-sessions/session-view.ts';
import { errorOf, ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertEvent, insertSession } from './rows.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => platform?.close());

interface Events {
  items: { id: string; eventId: string; status: string; outcome: string; receivedAt: string }[];
  total: number;
  totalIsEstimate: boolean;
}

const at = (minute: number) => new Date(Date.parse('2030-06-01T09:00:00Z') + minute * 60_000);

describe('one vendor session and the webhooks it received', () => {
  it('answers the session, and its events newest first, paged, with what each did', async () => {
    const tenantId = await platform.tenantId('events');
    const db = platform.database.db;
    const session = await insertSession(db, {
      tenantId,
      status: 'completed',
      output: { name: 'Ada' },
      createdAt: at(0),
    });
    const pending = await insertEvent(db, {
      tenantId,
      callbackId: session.id,
      installId: session.installId,
      status: 'pending',
      outcome: 'accepted',
      receivedAt: at(1),
    });
    const settling = await insertEvent(db, {
      tenantId,
      callbackId: session.id,
      installId: session.installId,
      receivedAt: at(2),
    });
    const late = await insertEvent(db, {
      tenantId,
      callbackId: session.id,
      installId: session.installId,
      status: 'failed',
      outcome: 'stale',
      receivedAt: at(3),
    });
    // Another session's event is not this one's.
    const other = await insertSession(db, { tenantId, createdAt: at(0) });
    await insertEvent(db, { tenantId, callbackId: other.id, installId: other.installId, receivedAt: at(4) });

    const seen = await ok<CallbackView>(
      await platform.fetch(`/app-callbacks/${session.id}`, {
        token: await platform.token({ tenant: 'events' }),
      }),
    );
    expect(seen).toMatchObject({ id: session.id, status: 'completed', output: { name: 'Ada' } });
    const analyst = await platform.token({ tenant: 'events', roles: ['analyst'] });
    const redacted = await ok<CallbackView>(
      await platform.fetch(`/app-callbacks/${session.id}`, { token: analyst }),
    );
    expect(redacted.output).toEqual({ name: '[redacted]' });

    const events = await ok<Events>(
      await platform.fetch(`/app-callbacks/${session.id}/events`, { token: analyst }),
    );
    expect(events).toEqual({
      items: [
        {
          id: late.id,
          eventId: late.eventId,
          status: 'failed',
          outcome: 'stale',
          receivedAt: at(3).toISOString(),
        },
        {
          id: settling.id,
          eventId: settling.eventId,
          status: 'completed',
          outcome: 'completed',
          receivedAt: at(2).toISOString(),
        },
        {
          id: pending.id,
          eventId: pending.eventId,
          status: 'pending',
          outcome: 'accepted',
          receivedAt: at(1).toISOString(),
        },
      ],
      total: 3,
      totalIsEstimate: false,
    });
    const page = await ok<Events>(
      await platform.fetch(`/app-callbacks/${session.id}/events?limit=1&offset=1`, { token: analyst }),
    );
    expect(page.items.map((e) => e.id)).toEqual([settling.id]);
    expect(page.total).toBe(3);
  });

  it('answers 404 for another tenant’s session or none, 400 at the parameter for a bad id or page', async () => {
    const session = await insertSession(platform.database.db, { tenantId: await platform.tenantId('owner') });
    await insertEvent(platform.database.db, { tenantId: session.tenantId, callbackId: session.id });
    const stranger = await platform.token({ tenant: 'stranger' });
    for (const path of [`/app-callbacks/${session.id}`, `/app-callbacks/${session.id}/events`]) {
      expect((await errorOf(await platform.fetch(path, { token: stranger }), 404)).code, path).toBe(
        'not_found',
      );
    }
    expect(
      (await errorOf(await platform.fetch('/app-callbacks/00000000-0000-4000-8000-000000000000/events'), 404))
        .code,
    ).toBe('not_found');
    for (const [path, at] of [
      ['/app-callbacks/nope', 'params.id'],
      ['/app-callbacks/nope/events', 'params.id'],
      [`/app-callbacks/${session.id}/events?limit=0`, 'query.limit'],
      [`/app-callbacks/${session.id}/events?offset=-1`, 'query.offset'],
      [`/app-callbacks/${session.id}/events?status=completed`, 'query.status'],
    ]) {
      const error = await errorOf(
        await platform.fetch(path as string, { token: await platform.token({ tenant: 'owner' }) }),
        400,
      );
      expect(error, path).toMatchObject({
        code: 'validation_error',
        details: { issues: expect.arrayContaining([expect.objectContaining({ path: at })]) },
      });
    }
  });
});
