// An operator's change as both trails record it (docs/operations.md "The ops command"): the tenant's own
// trail, where the tenant sees the operator's change, and the instance trail, where the operator's record
// names the tenant as data.tenantId (what `ops audit --tenant` finds it by). Both rows are written in the
// caller's transaction, so they commit or roll back with the change.
import type { Queryable } from '../db/pool.ts';
import { type AuditEntry, recordAudit } from './trail.ts';

export async function recordInBothTrails(
  tx: Queryable,
  tenantId: string,
  entry: Omit<AuditEntry, 'tenantId'>,
): Promise<void> {
  await recordAudit(tx, { ...entry, tenantId });
  await recordAudit(tx, { ...entry, tenantId: null, data: { ...entry.data, tenantId } });
}
