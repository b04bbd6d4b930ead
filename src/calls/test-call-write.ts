// A test call's audit record and its metering written in one statement (docs/calls.md "Test call"), as
// record-write.ts writes a recorded attempt's: the record's insert is a CTE of the metering's upsert,
// which counts the records the CTE wrote, so the two commit together — neither without the other — and a
// try after a lost commit (the record already there under the public id chosen before the first try)
// neither audits nor meters again.
import { sql } from 'drizzle-orm';
import { auditEvents } from '../audit/tables.ts';
import { type AuditEntry, auditInsert } from '../audit/trail.ts';
import type { Db } from '../db/pool.ts';
import { type MeteredCall, meteredRow, meteringUpsert } from './metering.ts';

/**
 * Writes the audit record and, when the module ran on the call, its metering; answers whether this wrote
 * the record (false: a try before did).
 */
export async function writeAudited(
  db: Db,
  entry: AuditEntry & { publicId: string },
  metered: MeteredCall | null,
): Promise<boolean> {
  const insert = auditInsert(db, entry).onConflictDoNothing({ target: auditEvents.publicId });
  if (!metered) {
    const [row] = await insert.returning({ id: auditEvents.id });
    return row !== undefined;
  }
  const audited = db.$with('audited', {}).as(insert.returning({ id: auditEvents.id }).getSQL());
  const written = sql<number>`(select count(*) from audited)::int`;
  const [row] = await meteringUpsert(db.with(audited), await meteredRow(db, metered), written).returning({
    written,
  });
  return (row?.written ?? 0) > 0;
}
