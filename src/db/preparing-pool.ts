// The engine's pool (DBOS Transact's system database, which takes a pool of ours: systemDatabasePool).
// DBOS sends its statements unnamed, so PostgreSQL parsed and planned each of them on every call: about
// 0.6 ms of PostgreSQL's CPU a one-step run, a fifth of what the engine's statements cost it (issue 48,
// bench:runs BENCH_PGSS=1). A client of this pool sends a statement it has seen before as a named prepared
// statement instead: PostgreSQL parses it once a connection and, when a generic plan is no worse, plans it
// once. A text seen once (a migration, a one-off read) stays unnamed, and past NAMED_MAX texts every new
// one does too, so a source of ever-new texts cannot fill the server's memory.
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import pg from 'pg';

/** Distinct texts named at most in a process. DBOS sends a few dozen. */
const NAMED_MAX = 256;
/** Texts seen once, remembered at most (forgotten all at once past it: they may come again). */
const SEEN_MAX = 4_096;

const names = new Map<string, string>();
const seen = new Set<string>();

/**
 * The name of a text sent before, or null (sent once so far, or past NAMED_MAX). The same text has the
 * same name on every client, and a name stands for one text: what pg requires of a connection.
 */
export function statementName(text: string): string | null {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (!seen.has(text)) {
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.add(text);
    return null;
  }
  if (names.size >= NAMED_MAX) return null;
  const name = `engine_${names.size + 1}`;
  names.set(text, name);
  seen.delete(text);
  return name;
}

/**
 * Only a statement with parameters is named: pg sends one without them by the simple protocol, which is
 * what lets a text hold several statements (DBOS's migrations); a prepared statement may hold one.
 */
class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads; only (text, values[, callback]) is changed
  override query(...args: any[]): any {
    const [text, values, ...rest] = args;
    const parameterised = typeof text === 'string' && Array.isArray(values) && values.length > 0;
    const name = parameterised ? statementName(text) : null;
    // Outside any trace: the engine's statements are its own, shown by its workflow and step spans (docs/
    // telemetry.md "Traces"), and PostgreSQL's instrumentation makes no span without a parent.
    return context.with(ROOT_CONTEXT, () =>
      name === null ? super.query(...(args as [string])) : super.query({ name, text, values }, ...rest),
    );
  }
}

/**
 * A pool whose clients send repeated statements as named prepared statements, guarded as the platform's
 * own (db/pool.ts: a client losing its server must not crash the process). Its owner ends it.
 */
export function preparingPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ ...config, Client: PreparingClient });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
