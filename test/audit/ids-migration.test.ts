// Migration 0019 on a trail written before it: every record gets its public id, a version 7 UUID of its
// own occurred_at, so the ids of old records sort as they were written; records written after it get one
// by default. docs/tenants-and-audit.md "Ids".
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { emptyDatabase, migrateUpTo } from '../support/migrations.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millisOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

let client: pg.Client;
let url: string;
beforeAll(async () => {
  ({ url, client } = await emptyDatabase('audit_ids_migration'));
  await migrateUpTo(client, '0018_run_trace_parent');
});
afterAll(async () => client?.end());

const record = (tenantId: string | null, occurredAt: string) =>
  client.query(
    `insert into audit_events (tenant_id, action, actor_type, actor_id, resource_type, resource_id, occurred_at)
     values ($1, 'case.decided', 'system', 'seed', 'case', 'c', $2)`,
    [tenantId, occurredAt],
  );

describe('migration 0019', () => {
  it('gives every earlier record a version 7 UUID of its own time, in the trail’s order', async () => {
    const times = [
      '2025-01-01T00:00:00.001Z',
      '2025-01-01T00:00:00.002Z',
      '2025-06-30T12:34:56.789Z',
      '2026-11-29T08:00:00.000Z',
    ];
    await record(A, times[0] as string);
    await record(B, times[1] as string);
    await record(null, times[2] as string);
    await record(A, times[3] as string);

    await applyMigrations(url);

    const { rows } = await client.query<{ public_id: string; occurred_at: Date }>(
      'select public_id::text, occurred_at from audit_events order by id',
    );
    for (const row of rows) expect(row.public_id).toMatch(UUID_V7);
    expect(rows.map((r) => millisOf(r.public_id))).toEqual(times.map((t) => Date.parse(t)));
    const ids = rows.map((r) => r.public_id);
    expect([...ids].sort()).toEqual(ids);

    // A record written after the migration gets its id by default, and two never share one.
    await record(A, '2026-11-29T09:00:00.000Z');
    const fresh = await client.query<{ public_id: string; n: string }>(
      'select public_id::text, (select count(distinct public_id) from audit_events)::text as n from audit_events order by id desc limit 1',
    );
    expect(fresh.rows[0]?.public_id).toMatch(UUID_V7);
    expect(fresh.rows[0]?.n).toBe('5');
  });
});
