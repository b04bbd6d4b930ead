// Notifications through the real api: the list (newest first, read flags), the unread filter, and
// POST /notifications/:id/read, which is per principal and answers 404 for anything the caller cannot see.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { expectError } from '../http/expect.ts';
import { changeCalls } from '../installs/changes-support.ts';
import { ok, publishEcho } from '../installs/support.ts';

interface Note {
  id: string;
  kind: string;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
  createdAt: string;
  read: boolean;
}
interface NotePage {
  items: Note[];
  total: number;
  totalIsEstimate: boolean;
}

let platform: CataloguePlatform;
let api: ReturnType<typeof changeCalls>;
let ada: string;
let grace: string;
/** Two approval requests of tenant `notes`, oldest first. */
const held: { installId: string; changeId: string; name: string }[] = [];

beforeAll(async () => {
  platform = await startCataloguePlatform();
  api = changeCalls(platform);
  ada = await api.admin('notes');
  grace = await api.admin('notes', 'grace');
  const v = await publishEcho(platform, ada, 'notes-app');
  await api.requireApprovals(ada);
  for (const name of ['first', 'second']) {
    const { install, change } = await api.held(
      await api.install(ada, { name, versionId: v.id, approveHosts: ['api.vendor.test'] }),
    );
    held.push({ installId: install.id, changeId: change.id, name });
  }
}, 120_000);
afterAll(async () => platform?.close());

const list = async (token: string, query = '') =>
  ok<NotePage>(await api.call(`/notifications${query}`, token));
const markRead = (token: string, id: string) => api.call(`/notifications/${id}/read`, token, 'POST');

const expected = (request: (typeof held)[number], read: boolean): Note => ({
  id: expect.any(String),
  kind: 'approval_requested',
  resource: { type: 'app_install', id: request.installId },
  data: {
    name: request.name,
    appName: 'notes-app',
    changeId: request.changeId,
    hostsAdded: ['api.vendor.test'],
    newInstall: true,
    requestedBy: 'ada',
  },
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  read,
});

describe('notifications', () => {
  it('lists the requests newest first, unread, and marks one read for its reader only', async () => {
    const [first, second] = held as [(typeof held)[number], (typeof held)[number]];
    const before = await list(grace);
    expect(before).toEqual({
      items: [expected(second, false), expected(first, false)],
      total: 2,
      totalIsEstimate: false,
    });
    const firstId = before.items[1]?.id as string;

    const marked = await markRead(grace, firstId);
    expect(marked.status).toBe(204);
    expect(await marked.text()).toBe('');
    // Marking again changes nothing and is no error.
    expect((await markRead(grace, firstId)).status).toBe(204);

    expect(await list(grace)).toEqual({
      items: [expected(second, false), { ...expected(first, true), id: firstId }],
      total: 2,
      totalIsEstimate: false,
    });
    expect(await list(grace, '?unread=true')).toEqual({
      items: [expected(second, false)],
      total: 1,
      totalIsEstimate: false,
    });
    // Ada sees the same approval requests; grace's read is not hers. As their requester she also has
    // the two install_change_pending notifications of her changes (grace, who asked nothing, has none).
    const adas = (await list(ada, '?unread=true')).items;
    expect(adas.filter((n) => n.kind === 'approval_requested')).toHaveLength(2);
    expect(adas.filter((n) => n.kind === 'install_change_pending').map((n) => n.data.changeId)).toEqual([
      second.changeId,
      first.changeId,
    ]);
    expect((await list(grace, '?unread=false')).total).toBe(2);
  });

  it('answers 404 for another tenant’s notification, and leaves it unread', async () => {
    const target = (await list(grace, '?unread=true')).items[0] as Note;
    const other = await api.admin('notes-other');
    const error = await expectError(await markRead(other, target.id), 404, 'not_found');
    expect(error.message).toBe('notification not found');
    expect((await list(other)).items).toEqual([]);
    expect((await list(grace, '?unread=true')).items.map((n) => n.id)).toContain(target.id);
  });

  it('answers 404 for a notification the caller’s permissions do not show, and for an unknown id', async () => {
    const target = (await list(grace, '?unread=true')).items[0] as Note;
    const analyst = await platform.token({ tenant: 'notes', user: 'rita', roles: ['analyst'] });
    expect(await list(analyst)).toEqual({ items: [], total: 0, totalIsEstimate: false });
    await expectError(await markRead(analyst, target.id), 404, 'not_found');
    await expectError(await markRead(grace, randomUUID()), 404, 'not_found');
    expect((await list(grace, '?unread=true')).items.map((n) => n.id)).toContain(target.id);
  });

  it('refuses an id that is no uuid and an unread filter that is no boolean, at the parameter', async () => {
    const badId = await expectError(await markRead(grace, 'not-a-uuid'), 400, 'validation_error');
    expect(badId.details).toEqual({ issues: [{ path: 'params.id', message: expect.any(String) }] });
    const badFilter = await expectError(
      await api.call('/notifications?unread=perhaps', grace),
      400,
      'validation_error',
    );
    expect(badFilter.details).toEqual({ issues: [{ path: 'query.unread', message: expect.any(String) }] });
  });
});
