// An attempt's record and its metering written in one statement (docs/runs.md "Statements a run sends"):
// the record's insert is a CTE of the metering's upsert, which counts the calls the CTE wrote, so they
// commit together, and a try after a lost commit (the record already there) meters nothing again.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.ts';
import { type InvocationWrite, invocationInsert } from './invocations.ts';
import { type MeteredCall, meteredRow, meteringUpsert } from './metering.ts';
import { appInvocations } from './tables.ts';

/**
 * Writes the record (its id given) and, when the module ran on the attempt, its metering; answers whether
 * this wrote the record (false: a try before did).
 */
export async function writeRecord(
  db: Db,
  write: InvocationWrite & { id: string },
  metered: MeteredCall | null,
): Promise<boolean> {
  if (!metered) {
    const [row] = await invocationInsert(db, write).returning({ id: appInvocations.id });
    return row !== undefined;
  }
  const recorded = db
    .$with('recorded', {})
    .as(invocationInsert(db, write).returning({ id: appInvocations.id }).getSQL());
  const written = sql<number>`(select count(*) from recorded)::int`;
  const [row] = await meteringUpsert(db.with(recorded), await meteredRow(db, metered), written).returning({
    written,
  });
  return (row?.written ?? 0) > 0;
}
