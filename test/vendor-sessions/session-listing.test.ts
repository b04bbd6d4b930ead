// GET /app-callbacks through the real api, on a deployment without a runner (apps off: the listing still
// answers), over sessions written straight into app_callbacks: newest first, filters, paging and the
// capped total, output and error text only for runs:context, another tenant's sessions never listed,
// and a bad query refused at its parameter.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInstalls } from '../../src/installs/index.ts';
import type { CallbackView } from '../../src/vendor-sessions/session-view.ts';
import { errorOf, ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertInstall, insertSession } from './rows.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => platform?.close());

interface Listing {
  items: CallbackView[];
  total: number;
  totalIsEstimate?: boolean;
}

const listed = async (tenant: string, query = '', token?: string) =>
  ok<Listing>(
    await platform.fetch(`/app-callbacks${query ? `?${query}` : ''}`, {
      token: token ?? (await platform.token({ tenant })),
    }),
  );

/** Sessions of the tenant opened a minute apart, oldest first, from `start`. */
const minutes = (start: string, n: number) => new Date(Date.parse(start) + n * 60_000);

describe('GET /app-callbacks', () => {
  it('answers where apps are off (the install routes answer 503 there)', async () => {
    expect((await errorOf(await platform.fetch('/app-installs'), 503)).code).toBe('apps_unavailable');
    expect(await listed('acme')).toEqual({ items: [], total: 0, totalIsEstimate: false });
  });

  it('lists the tenant’s sessions newest first with every field, paged, the total counting every match', async () => {
    const tenantId = await platform.tenantId('pager');
    const runId = randomUUID();
    const opened = [];
    for (let i = 0; i < 5; i++) {
      opened.push(
        await insertSession(platform.database.db, {
          tenantId,
          createdAt: minutes('2030-03-01T10:00:00Z', i),
          workflowRunId: i === 4 ? runId : null,
          stepId: i === 4 ? 'verify' : null,
        }),
      );
    }
    const newest = opened[4];
    if (!newest) throw new Error('no session');
    const all = await listed('pager');
    expect(all.total).toBe(5);
    expect(all.totalIsEstimate).toBe(false);
    expect(all.items.map((s) => s.id)).toEqual(opened.map((s) => s.id).reverse());
    expect(all.items[0]).toEqual({
      id: newest.id,
      tenantId,
      installId: newest.installId,
      installName: 'kyc',
      versionId: newest.versionId,
      action: 'verify',
      externalId: newest.externalId,
      workflowRunId: runId,
      stepId: 'verify',
      status: 'pending',
      output: null,
      error: null,
      createdAt: '2030-03-01T10:04:00.000Z',
      completedAt: null,
    });

    const page = await listed('pager', 'limit=2&offset=1');
    expect(page.items.map((s) => s.id)).toEqual([opened[3]?.id, opened[2]?.id]);
    expect(page.total).toBe(5);
    expect((await listed('pager', 'offset=5')).items).toEqual([]);
    expect((await listed('pager', 'limit=100')).items).toHaveLength(5);
  });

  it('filters by run, status, install id and install name (the name it opened under, or the install’s now)', async () => {
    const tenantId = await platform.tenantId('filters');
    const db = platform.database.db;
    const installId = await insertInstall(db, tenantId, 'identity');
    const runId = randomUUID();
    const at = (n: number) => minutes('2030-04-01T00:00:00Z', n);
    const ofRun = await insertSession(db, {
      tenantId,
      installId,
      installName: 'identity',
      workflowRunId: runId,
      stepId: 'a',
      createdAt: at(0),
    });
    const done = await insertSession(db, {
      tenantId,
      installId,
      installName: 'identity',
      status: 'completed',
      output: { ok: true },
      createdAt: at(1),
    });
    const timedOut = await insertSession(db, {
      tenantId,
      installName: 'other',
      status: 'timed_out',
      error: 'orphaned',
      createdAt: at(2),
    });
    const ids = async (query: string) => (await listed('filters', query)).items.map((s) => s.id);

    expect(await ids(`workflowRunId=${runId}`)).toEqual([ofRun.id]);
    expect(await ids('status=completed')).toEqual([done.id]);
    expect(await ids('status=timed_out')).toEqual([timedOut.id]);
    expect(await ids('status=failed')).toEqual([]);
    expect(await ids(`installId=${installId}`)).toEqual([done.id, ofRun.id]);
    expect(await ids('install=identity')).toEqual([done.id, ofRun.id]);
    expect(await ids('install=identity&status=pending')).toEqual([ofRun.id]);
    expect((await listed('filters', 'install=identity&status=pending')).total).toBe(1);

    // Renamed: its sessions keep the name they opened under, and answer to both names.
    await db.update(appInstalls).set({ name: 'identity-v2' }).where(eq(appInstalls.id, installId));
    expect(await ids('install=identity-v2')).toEqual([done.id, ofRun.id]);
    expect(await ids('install=identity')).toEqual([done.id, ofRun.id]);
    expect((await listed('filters', 'install=identity-v2')).items[0]?.installName).toBe('identity');
    expect(await ids('install=nobody')).toEqual([]);
  });

  it('reads every value of output and the error as [redacted] without runs:context, keys kept', async () => {
    const tenantId = await platform.tenantId('hushed');
    const db = platform.database.db;
    const at = (n: number) => minutes('2030-05-01T00:00:00Z', n);
    const output = { name: 'Ada Lovelace', document: { number: 'X123' }, score: 7 };
    await insertSession(db, { tenantId, status: 'completed', output, createdAt: at(0) });
    await insertSession(db, {
      tenantId,
      status: 'failed',
      error: 'document expired for Ada',
      createdAt: at(1),
    });
    await insertSession(db, { tenantId, status: 'completed', output: ['Ada', 'Lovelace'], createdAt: at(2) });
    await insertSession(db, { tenantId, status: 'completed', output: 'Ada', createdAt: at(3) });

    const analyst = await platform.token({ tenant: 'hushed', roles: ['analyst'] });
    const seen = await listed('hushed', '', analyst);
    expect(seen.items.map((s) => [s.output, s.error])).toEqual([
      ['[redacted]', null],
      ['[redacted]', null],
      [null, '[redacted]'],
      [{ name: '[redacted]', document: '[redacted]', score: '[redacted]' }, null],
    ]);
    expect(JSON.stringify(seen)).not.toContain('Ada');

    const reader = await platform.token({
      tenant: 'hushed',
      roles: [],
      permissions: ['apps:read', 'runs:context'],
    });
    const full = await listed('hushed', '', reader);
    expect(full.items.map((s) => [s.output, s.error])).toEqual([
      ['Ada', null],
      [['Ada', 'Lovelace'], null],
      [null, 'document expired for Ada'],
      [output, null],
    ]);
  });

  it('needs apps:read: a token without it is 403, none is 401', async () => {
    const context = await platform.token({ roles: [], permissions: ['runs:context'] });
    expect((await errorOf(await platform.fetch('/app-callbacks', { token: context }), 403)).code).toBe(
      'forbidden',
    );
    expect((await errorOf(await platform.fetch('/app-callbacks', { token: null }), 401)).code).toBe(
      'unauthorized',
    );
  });

  it('never lists another tenant’s sessions, whatever the filter', async () => {
    const mine = await platform.tenantId('mine');
    const session = await insertSession(platform.database.db, { tenantId: mine, installName: 'shared-name' });
    expect((await listed('mine')).total).toBe(1);
    await platform.tenantId('stranger');
    for (const query of ['', `installId=${session.installId}`, 'install=shared-name', 'status=pending']) {
      expect(await listed('stranger', query), query).toEqual({ items: [], total: 0, totalIsEstimate: false });
    }
  });

  it('refuses a bad query with 400 validation_error at its parameter', async () => {
    for (const [query, path] of [
      ['colour=red', 'query.colour'],
      ['status=done', 'query.status'],
      ['status=pending&status=failed', 'query.status'],
      ['installId=nope', 'query.installId'],
      ['workflowRunId=12', 'query.workflowRunId'],
      ['install=Not_A_Name', 'query.install'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=two', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['offset=100001', 'query.offset'],
    ]) {
      const error = await errorOf(await platform.fetch(`/app-callbacks?${query}`), 400);
      expect(error, query).toMatchObject({
        code: 'validation_error',
        details: { issues: expect.arrayContaining([expect.objectContaining({ path })]) },
      });
    }
  });
});
