// Audit and activity ids through the real api on a real database (docs/tenants-and-audit.md "Ids"): one
// tenant's records interleaved with another's, and what the first tenant reads says nothing about how
// many records the other wrote between its own. Ids are UUIDs (version 7: the time of writing, then
// random bits), the same id in GET /audit-events and GET /activity, and paging keeps its order.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, recordAudit } from '../../src/audit/trail.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The milliseconds a version 7 UUID carries in its first 48 bits. */
const millisOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

let platform: TestPlatform;
let mine: string;
let theirs: string;

const decided = (tenantId: string, n: number): AuditEntry => ({
  tenantId,
  action: 'case.decided',
  actor: { type: 'user', id: 'user:ana', name: 'Ana' },
  resource: { type: 'case', id: `case-${n}` },
  data: { outcome: `o${n}` },
});

interface Listed {
  id: string;
  occurredAt: string;
  resource: { id: string };
}

const get = async <T>(path: string): Promise<T> => {
  const response = await platform.fetch(path, { token: await platform.token({ tenant: 'mine' }) });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
};

const before = Date.now();
beforeAll(async () => {
  platform = await startTestPlatform();
  mine = await platform.tenantId('mine');
  theirs = await platform.tenantId('theirs');
  const db = platform.database.db;
  // Mine: 1, then 7 of theirs, mine: 2, then 3 of theirs, mine: 3.
  await recordAudit(db, decided(mine, 1));
  for (let i = 0; i < 7; i++) await recordAudit(db, decided(theirs, 100 + i));
  await recordAudit(db, decided(mine, 2));
  for (let i = 0; i < 3; i++) await recordAudit(db, decided(theirs, 200 + i));
  await recordAudit(db, decided(mine, 3));
});
afterAll(async () => platform?.close());

describe('ids of the audit trail and the activity feed', () => {
  it('are version 7 UUIDs: the time of writing and random bits, no count of anyone’s records', async () => {
    const { items } = await get<{ items: Listed[] }>('/audit-events');
    expect(items.map((i) => i.resource.id)).toEqual(['case-3', 'case-2', 'case-1']);
    for (const item of items) {
      expect(item.id).toMatch(UUID_V7);
      // The ordered part is a time (the record's, to the millisecond), never a sequence number.
      expect(millisOf(item.id)).toBeGreaterThanOrEqual(Date.parse(item.occurredAt));
      expect(millisOf(item.id)).toBeGreaterThanOrEqual(before);
      expect(millisOf(item.id)).toBeLessThanOrEqual(Date.now());
    }
    // The stored order key is not what the tenant reads: the trail's own sequence shows the other
    // tenant's 7 and 3 records between mine, the ids do not.
    const { rows } = await platform.database.db.execute<{ seq: string; public_id: string }>(
      sql`select id::text as seq, public_id::text as public_id from audit_events where tenant_id = ${mine} order by id`,
    );
    const seqs = rows.map((r) => Number(r.seq));
    expect([(seqs[1] as number) - (seqs[0] as number), (seqs[2] as number) - (seqs[1] as number)]).toEqual([
      8, 4,
    ]);
    expect(rows.map((r) => r.public_id).reverse()).toEqual(items.map((i) => i.id));
  });

  it('are the same in GET /activity as in GET /audit-events', async () => {
    const trail = await get<{ items: Listed[] }>('/audit-events');
    const feed = await get<{ items: { id: string; href: string }[] }>('/activity?limit=50');
    expect(feed.items.map((i) => [i.id, i.href])).toEqual(
      trail.items.map((i) => [i.id, `/cases/${i.resource.id}`]),
    );
  });

  it('page in the trail’s order, newest first, the same on every read', async () => {
    const whole = (await get<{ items: Listed[] }>('/audit-events')).items.map((i) => i.id);
    const paged: string[] = [];
    for (let offset = 0; offset < 3; offset++) {
      const page = await get<{ items: Listed[]; total: number }>(`/audit-events?limit=1&offset=${offset}`);
      expect(page.total).toBe(3);
      paged.push(...page.items.map((i) => i.id));
    }
    expect(paged).toEqual(whole);
    expect((await get<{ items: Listed[] }>('/audit-events')).items.map((i) => i.id)).toEqual(whole);
  });
});
