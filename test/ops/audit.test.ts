// `ops audit` through the real command on a migrated database (docs/operations.md "ops audit"): the
// instance trail newest first, never a tenant's rows, filtered by --since, --action (exact or a prefix),
// --tenant and --limit (50 by default, 500 at most), printed escaped.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';
import { ops, opsJson } from '../support/ops.ts';
import { column, expectNoRawControls, HOSTILE, HOSTILE_ESCAPED } from './apps-support.ts';

let url: string;
let database: Database;
let acme: string;
let beta: string;

interface Item {
  id: string;
  action: string;
  occurredAt: string;
  actor: { type: string; id: string; name: string | null };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
  tenantId: string | null;
}

const audit = async (...argv: string[]) => (await opsJson<{ items: Item[] }>(url, ['audit', ...argv])).items;

const operator = { actorType: 'operator', actorId: 'olga', actorName: 'olga' };
const row = (
  action: string,
  data: Record<string, unknown>,
  extra: Partial<typeof auditEvents.$inferInsert> = {},
) => ({
  tenantId: null,
  action,
  ...operator,
  resourceType: 'app_block',
  resourceId: randomUUID(),
  data,
  ...extra,
});

beforeAll(async () => {
  url = await createTestDatabase();
  database = openDatabase(url);
  acme = (await ensureTenant(database.db, 'acme')).tenant.id;
  beta = (await ensureTenant(database.db, 'beta')).tenant.id;
  const db = database.db;
  // Old rows first (ids grow with time, as in the trail).
  await db
    .insert(auditEvents)
    .values([
      row('app.module.blocked', { old: true }, { occurredAt: new Date('2025-01-10T00:00:00Z') }),
      row(
        'tenant.app_quota.set',
        { tenantId: acme, old: true },
        { occurredAt: new Date('2025-06-01T00:00:00Z') },
      ),
    ]);
  await db.insert(auditEvents).values(Array.from({ length: 60 }, (_, i) => row('filler.made', { i })));
  await db.insert(auditEvents).values([
    row('app.module.blocked', { tenantIds: [acme, beta], reason: 'r' }),
    row('app.module.blockedness', { note: 'not under the prefix app.module.blocked.' }),
    row('app.review.decided', { tenantId: beta }),
    row('app.withdrawn', { tenantId: acme, reason: HOSTILE }, { actorId: HOSTILE, actorName: HOSTILE }),
    // A tenant's own trail: never in the instance trail.
    row('app.module.blocked', { name: 'screen' }, { tenantId: acme, resourceType: 'app_install' }),
  ]);
});

afterAll(async () => database?.close());

describe('ops audit', () => {
  it('answers the newest 50 instance records by default, newest first, no tenant row among them', async () => {
    const items = await audit();
    expect(items).toHaveLength(50);
    expect(new Set(items.map((i) => i.id)).size).toBe(50);
    expect(items.every((i) => i.tenantId === null)).toBe(true);
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      tenantId: null,
      action: 'app.withdrawn',
      actor: { type: 'operator', id: HOSTILE, name: HOSTILE },
      resource: { type: 'app_block', id: expect.any(String) },
      data: { tenantId: acme, reason: HOSTILE },
      requestId: null,
      occurredAt: expect.any(String),
    });
  });

  it('--limit takes 1 to 500', async () => {
    expect(await audit('--limit', '3')).toHaveLength(3);
    expect(await audit('--limit', '500')).toHaveLength(66);
  });

  it.each([
    ['501'],
    ['0'],
    ['-1'],
    ['ten'],
    ['2.5'],
  ])('--limit %s is a usage error: exit 2', async (limit) => {
    const result = await ops(url, ['audit', '--limit', limit]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('ops: --limit: an integer from 1 to 500\n');
    expect(result.stdout).toBe('');
  });

  it('--since keeps records from that date or time on', async () => {
    const since2025 = await audit('--since', '2025-01-01', '--limit', '500');
    expect(since2025).toHaveLength(66);
    const sinceMarch = await audit('--since', '2025-03-01', '--limit', '500');
    expect(sinceMarch).toHaveLength(65);
    expect(sinceMarch.some((i) => i.data.old === true && i.action === 'app.module.blocked')).toBe(false);
    const sinceTime = await audit('--since', '2025-06-01T00:00:01Z', '--limit', '500');
    expect(sinceTime.some((i) => i.data.old === true)).toBe(false);
  });

  it.each([
    ['yesterday'],
    ['2025-13-45'],
    ['01/02/2025'],
  ])('--since %s is a usage error: exit 2', async (since) => {
    const result = await ops(url, ['audit', '--since', since]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ops: --since: /);
  });

  it('--action matches an action exactly, or every action under a prefix ending in a dot', async () => {
    expect((await audit('--action', 'app.module.blocked')).map((i) => i.data)).toEqual([
      { tenantIds: [acme, beta], reason: 'r' },
      { old: true },
    ]);
    expect((await audit('--action', 'app.module.')).map((i) => i.action)).toEqual([
      'app.module.blockedness',
      'app.module.blocked',
      'app.module.blocked',
    ]);
    expect((await audit('--action', 'app.')).map((i) => i.action)).toEqual([
      'app.withdrawn',
      'app.review.decided',
      'app.module.blockedness',
      'app.module.blocked',
      'app.module.blocked',
    ]);
    expect(await audit('--action', 'app.nothing')).toEqual([]);
  });

  it('--tenant keeps the records naming the tenant (data.tenantId, or among data.tenantIds), by name or id', async () => {
    expect((await audit('--tenant', 'acme')).map((i) => i.action)).toEqual([
      'app.withdrawn',
      'app.module.blocked',
      'tenant.app_quota.set',
    ]);
    expect((await audit('--tenant', beta)).map((i) => i.action)).toEqual([
      'app.review.decided',
      'app.module.blocked',
    ]);
    expect(
      (await audit('--tenant', 'acme', '--action', 'app.', '--limit', '1')).map((i) => i.action),
    ).toEqual(['app.withdrawn']);
    const unknown = await ops(url, ['audit', '--tenant', 'nobody']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'not_found: no tenant is named nobody\n']);
  });

  it('prints an aligned table, actor and data escaped', async () => {
    const result = await ops(url, ['audit', '--tenant', 'acme']);
    expect(result.code).toBe(0);
    expectNoRawControls(result.stdout);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+AT\s+ACTION\s+ACTOR\s+RESOURCE\s+DATA$/);
    expect(lines).toHaveLength(4);
    expect(column(result.stdout, 'ACTION')).toEqual([
      'app.withdrawn',
      'app.module.blocked',
      'tenant.app_quota.set',
    ]);
    expect(column(result.stdout, 'ACTOR')[0]).toBe(`operator:${HOSTILE_ESCAPED}`);
    // JSON writes the escape and the newline as \u001b and \n (their backslashes then doubled); the override
    // stays a character until the table escapes it.
    expect(lines[1]).toContain('"reason":"ok\\\\u001b[31m red\\u{202e}evil\\\\nnext"');
  });

  it('--json prints the tenant-written text as inert as the table: the override as \\u202e', async () => {
    const result = await ops(url, ['audit', '--tenant', 'acme', '--json']);
    expect(result.code).toBe(0);
    expectNoRawControls(result.stdout);
    expect(result.stdout).toContain('"reason": "ok\\u001b[31m red\\u202eevil\\nnext"');
    expect(JSON.parse(result.stdout).items[0].data.reason).toBe(HOSTILE);
  });
});
