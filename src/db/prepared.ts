// Queries on the hot path of every call and run, prepared once per database handle (drizzle's prepare):
// their SQL is built once instead of on every call (building was a tenth of a test call's CPU), and
// PostgreSQL parses and plans each once per connection (a named prepared statement). Meant for queries
// sent on the pool itself: a prepared query is bound to its handle, so a transaction handed in (its type
// passes for a Db) gets one built for it alone, correct but saving nothing.
import { type Placeholder, sql } from 'drizzle-orm';
import type { Db } from './pool.ts';

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
export type Bindable<T> = { [K in keyof T]: T[K] | Placeholder };

/**
 * Placeholders named `group.key`, one for each key: the values of a prepared insert (`group` keeps two
 * rows of one statement apart, as an audit record's `action` and its metering's). The keys come as a
 * `Record<keyof Row, true>`, so the compiler refuses a list that misses or adds a column. `bound` names a
 * row's values the same way when the statement is sent.
 */
export function placeholders<K extends string>(group: string, keys: Record<K, true>): Record<K, Placeholder> {
  return Object.fromEntries(
    Object.keys(keys).map((key) => [key, sql.placeholder(`${group}.${key}`)]),
  ) as Record<K, Placeholder>;
}

/** The row's values under the names `placeholders(group, …)` gave them. */
export function bound(group: string, row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [`${group}.${key}`, value]));
}
