// BENCH_PGSS=1: PostgreSQL's own time a statement, from pg_stat_statements (planning and execution apart),
// over a row's measured stretch. It showed what the client's counts cannot: the run's CTE statements were
// planned on every call (more time than they ran) and the metering row's lock is waited on by every
// attempt of one install's action at once (issue 48). Execution time includes lock waits.
import type pg from 'pg';

export const PG_STATEMENTS = process.env.BENCH_PGSS === '1';

/** The server settings it needs (loaded at start; embedded PostgreSQL ships the module). */
export const pgStatementsSettings = (): Record<string, string> =>
  PG_STATEMENTS
    ? {
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track': 'all',
        'pg_stat_statements.track_planning': 'on',
      }
    : {};

/** Starts the count afresh (creating the extension in the bench's database the first time). */
export async function resetPgStatements(pool: pg.Pool): Promise<void> {
  await pool.query('create extension if not exists pg_stat_statements');
  await pool.query('select pg_stat_statements_reset()');
}

/** The statements that took PostgreSQL the most time since the reset, per `operations` of the row. */
export async function printPgStatements(pool: pg.Pool, label: string, operations: number): Promise<void> {
  const { rows } = await pool.query<{ calls: string; plan: number; exec: number; query: string }>(
    `select calls, total_plan_time as plan, total_exec_time as exec,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as query
     from pg_stat_statements order by total_plan_time + total_exec_time desc limit 16`,
  );
  console.log(`\nPostgreSQL's time by statement over ${label} (${operations} operations), ms an operation:`);
  console.log('   plan     run  calls/op  statement');
  for (const row of rows) {
    const per = (ms: number) => (ms / operations).toFixed(3).padStart(7);
    const calls = (Number(row.calls) / operations).toFixed(1).padStart(8);
    console.log(`${per(row.plan)} ${per(row.exec)}  ${calls}  ${row.query}`);
  }
}
