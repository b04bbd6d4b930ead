// Queries on the hot path of every call and run, prepared once per database handle (drizzle's prepare):
// their SQL is built once instead of on every call (building was a tenth of a test call's CPU), and
// PostgreSQL parses and plans each once per connection (a named prepared statement). Meant for queries
// sent on the pool itself: a prepared query is bound to its handle, so a transaction handed in (its type
// passes for a Db) gets one built for it alone, correct but saving nothing.
import { type Column, getTableColumns, type SQL, sql, type Table } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Database, Db } from './pool.ts';

/** `build(db)` made once per handle: the same prepared query for every call on that pool. */
export function preparedOn<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const byHandle = new WeakMap<Db, Q>();
  return (db) => {
    let prepared = byHandle.get(db);
    if (prepared === undefined) {
      prepared = build(db);
      byHandle.set(db, prepared);
    }
    return prepared;
  };
}

/** A row whose values may be placeholders: the shape a prepared insert is built from. */
export type Bindable<T> = { [K in keyof T]: T[K] | SQL };

/**
 * Placeholders named `group.key`, one for each key: the values of a prepared insert (`group` keeps two
 * rows of one statement apart, as an audit record's `action` and its metering's). The keys come as a
 * `Record<keyof Row, true>`, so the compiler refuses a list that misses or adds a column. Each is bare SQL,
 * not a column's parameter: Drizzle would encode a null jsonb value as JSON's null, where the unprepared
 * insert writes SQL's NULL, so `bound` encodes the values itself.
 */
export function placeholders<K extends string>(group: string, keys: Record<K, true>): Record<K, SQL> {
  return Object.fromEntries(
    Object.keys(keys).map((key) => [key, sql`${sql.placeholder(`${group}.${key}`)}`]),
  ) as Record<K, SQL>;
}

/**
 * The row's values under the names `placeholders(group, …)` gave them, each encoded as its column of
 * `table` encodes it (a jsonb value as JSON text; pg alone would send an array as a PostgreSQL array), a
 * null as SQL's NULL.
 */
export function bound(group: string, row: object, table: Table): Record<string, unknown> {
  const columns = columnsOf(table);
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      `${group}.${key}`,
      value === null || value === undefined ? null : (columns[key]?.mapToDriverValue(value) ?? value),
    ]),
  );
}

// getTableColumns copies a table's columns on every call: kept once a table.
const columnsByTable = new WeakMap<Table, Record<string, Column>>();
function columnsOf(table: Table): Record<string, Column> {
  let columns = columnsByTable.get(table);
  if (!columns) {
    columns = getTableColumns(table);
    columnsByTable.set(table, columns);
  }
  return columns;
}

const dialect = new PgDialect();

/**
 * A statement written in SQL (a `sql` template) sent as a named prepared statement: PostgreSQL parses it
 * once a connection and, after a few runs, plans it once too. Planning the run's own CTE statements each
 * time was half of what their execution cost PostgreSQL (issue 48). `name` stands for one text: the
 * template may change its values from call to call, never its SQL.
 */
export function executeNamed<R extends pg.QueryResultRow>(
  database: Pick<Database, 'pool'>,
  name: string,
  query: SQL,
): Promise<pg.QueryResult<R>> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return database.pool.query<R>({ name, text, values: params, types: RAW_TIMES });
}

// Rows read as Drizzle's own raw queries read them (drizzle-orm/node-postgres), so a statement moved to
// executeNamed answers the same values: dates, times and intervals (and their arrays) as PostgreSQL's text,
// and numeric arrays too, as Drizzle leaves them.
const TIMES_AS_TEXT = new Set([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1115, // timestamp[]
  1182, // date[]
  1185, // timestamptz[]
  1187, // interval[]
  1231, // numeric[]
]);
const RAW_TIMES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    TIMES_AS_TEXT.has(oid)
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
