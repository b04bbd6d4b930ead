// A test call's audit record and its metering written in one statement (docs/calls.md "Test call"), as
// record-write.ts writes a recorded attempt's: the record's insert is a CTE of the metering's upsert,
// which counts the records the CTE wrote, so the two commit together — neither without the other — and a
// try after a lost commit (the record already there under the public id chosen before the first try)
// neither audits nor meters again. The statement is prepared once per pool (metering.ts recordWithMetering):
// building it was a twentieth of a test call's CPU.
import { auditEvents } from '../audit/tables.ts';
import { AUDIT_COLUMNS, type AuditEntry, auditValues } from '../audit/trail.ts';
import type { Db } from '../db/pool.ts';
import { type MeteredCall, recordWithMetering } from './metering.ts';

type AuditedEntry = AuditEntry & { publicId: string };

/**
 * Writes the audit record and, when the module ran on the call, its metering; answers whether this wrote
 * the record (false: a try before did).
 */
export async function writeAudited(
  db: Db,
  entry: AuditedEntry,
  metered: MeteredCall | null,
): Promise<boolean> {
  return auditedAndMetered(db, auditValues(entry), metered);
}

const auditedAndMetered = recordWithMetering(
  'test_call_write',
  auditEvents,
  AUDIT_COLUMNS,
  auditEvents.publicId,
);
