// Queries on the hot path of every call and run, prepared once per database handle (drizzle's prepare):
// their SQL is built once instead of on every call (building was a tenth of a test call's CPU), and
// PostgreSQL parses and plans each once per connection (a named prepared statement). Meant for queries
// sent on the pool itself: a prepared query is bound to its handle, so a transaction handed in (its type
// passes for a Db) gets one built for it alone, correct but saving nothing.
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
