// An attempt's record and its metering written in one statement (docs/runs.md "Statements a run sends"):
// the record's insert is a CTE of the metering's upsert, which counts the calls the CTE wrote, so they
// commit together, and a try after a lost commit (the record already there) meters nothing again. The
// statement is prepared once per pool (metering.ts recordWithMetering).
import type { Db } from '../db/pool.ts';
import { INVOCATION_COLUMNS, type InvocationWrite, invocationValues } from './invocations.ts';
import { type MeteredCall, recordWithMetering } from './metering.ts';
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
  return recordedAndMetered(db, invocationValues(write), metered);
}

const recordedAndMetered = recordWithMetering(
  'attempt_record_write',
  appInvocations,
  INVOCATION_COLUMNS,
  appInvocations.id,
);
