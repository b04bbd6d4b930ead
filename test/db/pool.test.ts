// The platform's pool keeps the process up when PostgreSQL ends a connection the platform holds: a
// client checked out for a transaction, lost between two of its statements (as `pg_ctl stop -m fast`
// does to every connection), reports the loss to that transaction and to nothing else.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isUnavailable } from '../../src/db/errors.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { createTestDatabase } from '../support/database.ts';

let database: Database;
let admin: pg.Client;

beforeAll(async () => {
  const url = await createTestDatabase();
  database = openDatabase(url, { max: 2 });
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await database?.close();
});

it('ends a transaction whose connection the server terminated with an error, and the pool serves the next query', async () => {
  const lost = database.db.transaction(async (tx) => {
    const { rows } = await tx.execute<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`);
    const pid = rows[0]?.pid;
    // The server ends this connection while the transaction holds it and no statement of it runs: pg
    // emits 'error' on the client, which pg-pool does not listen to while the client is checked out.
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitUntilGone(pid as number);
    await tx.execute(sql`SELECT 1`);
  });
  const failure = await lost.then(
    () => null,
    (error: unknown) => error,
  );
  // An outage, as the platform's retries see one (db/outage.ts): the work waits for the database.
  expect(isUnavailable(failure), String(failure)).toBe(true);
  const { rows } = await database.pool.query<{ one: number }>('SELECT 1 AS one');
  expect(rows).toEqual([{ one: 1 }]);
});

/** Until the server's process for `pid` has exited, so that its goodbye is on the client's socket. */
async function waitUntilGone(pid: number): Promise<void> {
  for (;;) {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rowCount === 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
