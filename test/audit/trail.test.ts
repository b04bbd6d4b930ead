import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { type AuditEntry, actionFilter, recordAudit } from '../../src/audit/trail.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let tenantId: string;
let otherTenantId: string;

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  tenantId,
  action: 'app.installed',
  actor: { type: 'user', id: 'user:ada', name: 'ada' },
  resource: { type: 'app_install', id: 'i-1' },
  data: { name: 'screening' },
  ...overrides,
});

beforeAll(async () => {
  platform = await startTestPlatform();
  tenantId = await platform.tenantId('trail');
  otherTenantId = await platform.tenantId('elsewhere');
  const db = platform.database.db;
  await recordAudit(db, entry({ action: 'app.installed' }));
  await recordAudit(db, entry({ action: 'app.install.renamed' }));
  await recordAudit(db, entry({ action: 'app.install.upgraded' }));
  await recordAudit(db, entry({ action: 'webhook_endpoint.created' }));
  await recordAudit(db, entry({ action: 'application.note' }));
  await recordAudit(db, entry({ tenantId: otherTenantId, action: 'app.installed' }));
  await recordAudit(
    db,
    entry({
      tenantId: null,
      action: 'app.module.blocked',
      actor: { type: 'operator', id: 'op', name: 'op' },
    }),
  );
});
afterAll(async () => platform?.close());

interface Listed {
  id: string;
  tenantId: string;
  action: string;
  occurredAt: string;
}
interface ListedPage {
  items: Listed[];
  total: number;
  totalIsEstimate: boolean;
}

const list = async (query = '', tenant = 'trail'): Promise<ListedPage> => {
  const response = await platform.fetch(`/audit-events${query}`, { token: await platform.token({ tenant }) });
  expect(response.status).toBe(200);
  return (await response.json()) as ListedPage;
};

describe('GET /audit-events', () => {
  it('lists the tenant’s own events newest first, each with its UUID', async () => {
    const page = await list();
    expect(page.total).toBe(5);
    expect(page.totalIsEstimate).toBe(false);
    expect(page.items.map((e: { action: string }) => e.action)).toEqual([
      'application.note',
      'webhook_endpoint.created',
      'app.install.upgraded',
      'app.install.renamed',
      'app.installed',
    ]);
    const ids = page.items.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(page.items[4]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      tenantId,
      action: 'app.installed',
      actor: { type: 'user', id: 'user:ada', name: 'ada' },
      resource: { type: 'app_install', id: 'i-1' },
      data: { name: 'screening' },
      requestId: null,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('never shows another tenant’s events nor the operator’s instance trail', async () => {
    const page = await list('', 'elsewhere');
    expect(page.items.map((e: { tenantId: string }) => e.tenantId)).toEqual([otherTenantId]);
  });

  it('pages with limit and offset, total ignoring paging', async () => {
    const page = await list('?limit=2&offset=1');
    expect(page.total).toBe(5);
    expect(page.items.map((e: { action: string }) => e.action)).toEqual([
      'webhook_endpoint.created',
      'app.install.upgraded',
    ]);
  });

  it('filters by action prefix (app. and app.install.*) and by exact action', async () => {
    expect((await list('?action=app.')).items.map((e: { action: string }) => e.action)).toEqual([
      'app.install.upgraded',
      'app.install.renamed',
      'app.installed',
    ]);
    expect((await list('?action=app.install.*')).total).toBe(2);
    expect((await list('?action=app.installed')).total).toBe(1);
    expect((await list('?action=app')).total).toBe(0); // exact: no action is called just "app"
  });

  it('filters by time, from inclusive and to exclusive', async () => {
    const all = (await list()).items;
    const newest = all[0]?.occurredAt ?? '';
    expect((await list(`?from=${encodeURIComponent(newest)}`)).items[0]?.occurredAt).toBe(newest);
    expect((await list('?to=2000-01-01T00:00:00Z')).total).toBe(0);
    expect((await list('?from=2000-01-01T00:00:00Z')).total).toBe(5);
  });

  it('refuses bad filters with the path at fault', async () => {
    const token = await platform.token({ tenant: 'trail' });
    for (const [query, path] of [
      ['?from=yesterday', 'query.from'],
      ['?limit=101', 'query.limit'],
      ['?offset=-1', 'query.offset'],
      ['?action=APP.%25', 'query.action'],
      ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.to'],
      ['?colour=red', 'query.colour'],
    ]) {
      const response = await platform.fetch(`/audit-events${query}`, { token });
      expect(response.status, query).toBe(400);
      const body = await response.json();
      expect(body.error.code).toBe('validation_error');
      expect(
        body.error.details.issues.map((i: { path: string }) => i.path),
        query,
      ).toContain(path);
    }
  });

  it('needs audit:read', async () => {
    const response = await platform.fetch('/audit-events', {
      token: await platform.token({ tenant: 'trail', roles: ['analyst'] }),
    });
    expect(response.status).toBe(403);
    expect((await response.json()).error).toMatchObject({
      code: 'forbidden',
      details: { permission: 'audit:read' },
    });
  });

  it('caps the count at 100,000 and says the total is an estimate', async () => {
    const big = await platform.tenantId('big');
    await platform.database.db.execute(sql`
      INSERT INTO ${auditEvents} (tenant_id, action, actor_type, actor_id, resource_type, resource_id)
      SELECT ${big}::uuid, 'app.tested', 'system', 'seed', 'app_install', g::text FROM generate_series(1, 100001) g`);
    const page = await list('?limit=1', 'big');
    expect(page).toMatchObject({ total: 100_000, totalIsEstimate: true });
    expect(page.items).toHaveLength(1);
  });
});

describe('recordAudit', () => {
  it('commits and rolls back with the transaction of the change it records', async () => {
    const tenant = await platform.tenantId('rollback');
    await expect(
      platform.database.db.transaction(async (tx) => {
        await recordAudit(tx, entry({ tenantId: tenant }));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await list('', 'rollback')).total).toBe(0);
  });
});

describe('actionFilter', () => {
  it('reads a trailing dot or .* as a prefix and anything else as exact', () => {
    expect(actionFilter('app.')).toEqual({ prefix: 'app.' });
    expect(actionFilter('app.install.*')).toEqual({ prefix: 'app.install.' });
    expect(actionFilter('app.installed')).toEqual({ exact: 'app.installed' });
  });
});
