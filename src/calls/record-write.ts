// An attempt's record and its metering written in one statement (docs/runs.md "Statements a run sends"):
// the record's insert is a CTE of the metering's upsert, which counts the calls the CTE wrote, so they
// commit together, and a try after a lost commit (the record already there) meters nothing again. The
// statement is prepared once per pool (metering.ts preparedWithMetering).
import type { Db } from '../db/pool.ts';
import { bound, placeholders, preparedOn } from '../db/prepared.ts';
import {
  INVOCATION_COLUMNS,
  type InvocationWrite,
  invocationInsert,
  invocationValues,
} from './invocations.ts';
import { type MeteredCall, meteredRow, meteredValues, preparedWithMetering } from './metering.ts';
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
  const [row] = await recordedAndMetered(db).execute({
    ...bound('record', invocationValues(write), appInvocations),
    ...meteredValues(await meteredRow(db, metered)),
  });
  return (row?.written ?? 0) > 0;
}

const recordedAndMetered = preparedOn((db) =>
  preparedWithMetering(
    db,
    'attempt_record_write',
    db
      .insert(appInvocations)
      .values(placeholders('record', INVOCATION_COLUMNS))
      .onConflictDoNothing({ target: appInvocations.id })
      .returning({ id: appInvocations.id })
      .getSQL(),
  ),
);
