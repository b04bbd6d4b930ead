// GET /activity: the tenant's newest audit events of the feed's actions (activity-rules.ts), as items.
// One statement: for each action, the tenant's newest `limit` records of it through the index on
// (tenant_id, action, id), read backwards; then the newest `limit` of those. However long the trail, it
// reads at most (actions × limit) rows.
import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { type ActivityItem, activityActions, activityItem } from './activity-rules.ts';
import { auditEvents } from './tables.ts';
import { type AuditRow, toAuditEvent } from './trail.ts';

export interface ActivityQuery {
  tenantId: string;
  /** 1 to 50. */
  limit: number;
  /** The caller holds definitions:read: publishes and definition approvals join the feed. */
  definitionsRead: boolean;
}

/** A trail's row as the statement answers it: the columns under their names, the time as the driver reads it. */
interface Row extends Record<string, unknown>, Omit<AuditRow, 'occurredAt'> {
  occurredAt: string | Date;
}

export async function listActivity(db: Queryable, query: ActivityQuery): Promise<ActivityItem[]> {
  const wanted: SQL = sql.join(
    activityActions(query.definitionsRead).map((action) => sql`(${action})`),
    sql`, `,
  );
  const e = auditEvents;
  const { rows } = await db.execute<Row>(sql`
    select newest.* from (values ${wanted}) as wanted(action)
    cross join lateral (
      select ${e.id} as seq, ${e.publicId} as "publicId", ${e.tenantId} as "tenantId", ${e.action} as action,
             ${e.actorType} as "actorType", ${e.actorId} as "actorId", ${e.actorName} as "actorName",
             ${e.resourceType} as "resourceType", ${e.resourceId} as "resourceId", ${e.data} as data,
             ${e.requestId} as "requestId", ${e.occurredAt} as "occurredAt"
      from ${e}
      where ${e.tenantId} = ${query.tenantId} and ${e.action} = wanted.action
      order by ${e.id} desc
      limit ${query.limit}
    ) as newest
    order by newest.seq desc
    limit ${query.limit}`);
  return rows.map((row) => activityItem(toAuditEvent({ ...row, occurredAt: new Date(row.occurredAt) })));
}
