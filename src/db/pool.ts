// One pg pool per process and the Drizzle handle over it; every domain gets `Database` injected.

import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle, type NodePgDatabase, type NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
// Past the door: every command opens a pool, and the door would load the telemetry SDK and its exporters.
import { inTransactionSpan } from '../telemetry/spans.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema>;
export type Tx = PgTransaction<NodePgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Queries take either the pool-level handle or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

export function openDatabase(
  url: string,
  options: { max?: number; applicationName?: string } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'apps-platform',
  });
  // A client losing its server must not crash the process: pg emits 'error' on the client, and pg-pool
  // listens only while the client is idle. A client checked out for a transaction (between two of its
  // statements when PostgreSQL stops, say) had no listener: the uncaught error ended the platform. The
  // transaction's next statement reports the loss, and the pool drops the client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  // Every transaction of the platform goes through here: one span each (docs/telemetry.md "Traces").
  const transaction = db.transaction.bind(db);
  db.transaction = ((work, config) =>
    inTransactionSpan(() => transaction(work, config))) as Db['transaction'];
  return { pool, db, close: () => pool.end() };
}
