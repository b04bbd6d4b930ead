// Statements prepared once (src/db/prepared.ts): executeNamed answers rows as Drizzle's raw queries do and
// PostgreSQL keeps one prepared statement a connection for it; bound encodes a row as its columns do.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInvocations } from '../../src/calls/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { bound, executeNamed, placeholders } from '../../src/db/prepared.ts';
import { createTestDatabase } from '../support/database.ts';

let database: Database;

beforeAll(async () => {
  // One connection, so the statements of a test meet the same server session.
  database = openDatabase(await createTestDatabase(), { max: 1 });
});
afterAll(async () => database?.close());

const probe = (value: string) =>
  sql`select ${value}::timestamptz as at, ${value}::date as day, interval '90 minutes' as span,
    '{"a":[1,"x",null]}'::jsonb as doc, 42::int as n, null::jsonb as nothing`;

describe('executeNamed', () => {
  it('answers the rows Drizzle’s raw execute answers: times as PostgreSQL’s text, JSON parsed', async () => {
    const at = '2026-11-30 12:00:00+00';
    const named = await executeNamed(database, 'probe_times', probe(at));
    const raw = await database.db.execute(probe(at));
    expect(named.rows).toEqual(raw.rows);
    expect(named.rows[0]).toEqual({
      at: '2026-11-30 12:00:00+00',
      day: '2026-11-30',
      span: '01:30:00',
      doc: { a: [1, 'x', null] },
      n: 42,
      nothing: null,
    });
  });

  it('prepares the statement once a connection, whatever its values', async () => {
    for (const value of ['2026-01-01', '2026-06-30', '2026-12-31'])
      await executeNamed(database, 'probe_prepared', probe(`${value} 00:00:00+00`));
    const { rows } = await database.pool.query(
      `select name, from_sql from pg_prepared_statements where name = 'probe_prepared'`,
    );
    expect(rows).toEqual([{ name: 'probe_prepared', from_sql: false }]);
  });
});

describe('bound', () => {
  it('names a row’s values as placeholders names them and encodes each as its column does', () => {
    const names = Object.keys(placeholders('record', { input: true, output: true, error: true }));
    expect(names).toEqual(['input', 'output', 'error']);
    expect(bound('record', { input: ['a', 1], output: 'text', error: null }, appInvocations)).toEqual({
      'record.input': '["a",1]',
      'record.output': '"text"',
      'record.error': null,
    });
  });
});
