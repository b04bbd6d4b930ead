// The one paged read of a list (src/http/paged-list.ts): the matching rows in the list's order, `limit` of
// them after `offset`, the capped count of every match, and values read beside each row's columns.
import { desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { recordAudit } from '../../src/audit/trail.ts';
import { pagedList } from '../../src/http/paging.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let tenantId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenantId = await platform.tenantId('paged');
  const otherTenantId = await platform.tenantId('elsewhere');
  const db = platform.database.db;
  for (const [tenant, action] of [
    [tenantId, 'a.one'],
    [tenantId, 'a.two'],
    [otherTenantId, 'b.one'],
    [tenantId, 'a.three'],
    [tenantId, 'a.four'],
    [tenantId, 'a.five'],
  ] as const) {
    await recordAudit(db, {
      tenantId: tenant,
      action,
      actor: { type: 'user', id: 'user:ada', name: 'ada' },
      resource: { type: 'thing', id: 't-1' },
    });
  }
});
afterAll(async () => platform?.close());

const page = (limit: number, offset: number) =>
  pagedList(
    platform.database.db,
    {
      from: auditEvents,
      where: eq(auditEvents.tenantId, tenantId),
      orderBy: [desc(auditEvents.id)],
      limit,
      offset,
      beside: { shouted: sql<string>`upper(${auditEvents.action})` },
    },
    (row) => ({ action: row.action, shouted: row.shouted }),
  );

describe('pagedList', () => {
  it('answers the page in order, the matches counted apart from paging', async () => {
    expect(await page(2, 1)).toEqual({
      items: [
        { action: 'a.four', shouted: 'A.FOUR' },
        { action: 'a.three', shouted: 'A.THREE' },
      ],
      total: 5,
      totalIsEstimate: false,
    });
  });

  it('answers an empty page past the last match, with the count', async () => {
    expect(await page(10, 5)).toEqual({ items: [], total: 5, totalIsEstimate: false });
  });

  it('answers whole rows when nothing is read beside them', async () => {
    const rows = await pagedList(
      platform.database.db,
      {
        from: auditEvents,
        where: eq(auditEvents.tenantId, tenantId),
        orderBy: [desc(auditEvents.id)],
        limit: 1,
        offset: 0,
      },
      (row) => row,
    );
    expect(rows.items).toEqual([expect.objectContaining({ tenantId, action: 'a.five', data: {} })]);
    expect(rows.items[0]?.occurredAt).toBeInstanceOf(Date);
  });
});
