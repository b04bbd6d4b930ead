// The engine's pool (src/db/preparing-pool.ts): a parameterised statement sent again goes as a named
// prepared statement, one the server keeps for the connection; a text of several statements, or one
// without parameters, keeps pg's simple protocol, as DBOS's migrations need.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPool, statementName } from '../../src/db/preparing-pool.ts';
import { connectTimeoutMs } from '../../src/worker/engine.ts';
import { createTestDatabase } from '../support/database.ts';

describe('statementName', () => {
  it('names a text the second time it is sent, the same name ever after, another text another name', () => {
    const text = `select ${Math.random()}::text as probe where $1::int = 1`;
    const other = `${text} and true`;
    expect(statementName(text)).toBeNull();
    const name = statementName(text);
    expect(name).toMatch(/^engine_\d+$/);
    expect(statementName(text)).toBe(name);
    statementName(other);
    expect(statementName(other)).not.toBe(name);
  });
});

describe('preparingPool', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    // One connection: every statement meets the same server session.
    pool = preparingPool({ connectionString: await createTestDatabase(), max: 1 });
  });
  afterAll(async () => pool?.end());

  const preparedOnConnection = async () =>
    (await pool.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map(
      (row) => row.statement,
    );

  it('sends a parameterised statement it has sent before as a named prepared statement', async () => {
    const text = 'select $1::int + 1 as next';
    expect((await pool.query(text, [1])).rows).toEqual([{ next: 2 }]);
    expect(await preparedOnConnection()).not.toContain(text);
    for (const value of [2, 3]) expect((await pool.query(text, [value])).rows).toEqual([{ next: value + 1 }]);
    expect(await preparedOnConnection()).toContain(text);
  });

  it('leaves a text of several statements, or one without parameters, to the simple protocol', async () => {
    const several = 'create temporary table if not exists t (n int); insert into t values (1)';
    for (let i = 0; i < 3; i++) await pool.query(several, []);
    expect((await pool.query('select count(*)::int as n from t')).rows).toEqual([{ n: 3 }]);
    expect(await preparedOnConnection()).not.toContain(several);
  });
});

describe('connectTimeoutMs', () => {
  it.each([
    ['postgres://u@h/db', 10_000],
    ['postgres://u@h/db?connect_timeout=3', 3_000],
    ['postgres://u@h/db?connect_timeout=0', 10_000],
    ['postgres://u@h/db?connect_timeout=soon', 10_000],
  ])('waits for a connection of %s as DBOS’s own pool would: %d ms', (url, ms) => {
    expect(connectTimeoutMs(url)).toBe(ms);
  });
});
