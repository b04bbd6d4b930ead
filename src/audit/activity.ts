// GET /activity: the tenant's newest audit events of the feed's actions (activity-rules.ts), as items.
// One statement: for each action, the tenant's newest `limit` records of it through the index on
// (tenant_id, action, id), read backwards; then the newest `limit` of those. However long the trail, it
// reads at most (actions × limit) rows.
import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { type ActivityItem, activityActions, activityItem } from './activity-rules.ts';
import { auditEvents } from './tables.ts';
import type { ActorType } from './trail.ts';

export interface ActivityQuery {
  tenantId: string;
  /** 1 to 50. */
  limit: number;
  /** The caller holds definitions:read: publishes and definition approvals join the feed. */
  definitionsRead: boolean;
}

interface Row extends Record<string, unknown> {
  /** The public id; the internal sequence only orders the rows. */
  id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_name: string | null;
  resource_type: string;
  resource_id: string;
  data: Record<string, unknown>;
  request_id: string | null;
  occurred_at: Date;
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
      select ${e.id} as seq, ${e.publicId} as id, ${e.action} as action, ${e.actorType} as actor_type, ${e.actorId} as actor_id,
             ${e.actorName} as actor_name, ${e.resourceType} as resource_type, ${e.resourceId} as resource_id,
             ${e.data} as data, ${e.requestId} as request_id, ${e.occurredAt} as occurred_at
      from ${e}
      where ${e.tenantId} = ${query.tenantId} and ${e.action} = wanted.action
      order by ${e.id} desc
      limit ${query.limit}
    ) as newest
    order by newest.seq desc
    limit ${query.limit}`);
  return rows.map((row) =>
    activityItem({
      id: row.id,
      tenantId: query.tenantId,
      action: row.action,
      actor: { type: row.actor_type as ActorType, id: row.actor_id, name: row.actor_name },
      resource: { type: row.resource_type, id: row.resource_id },
      data: row.data,
      requestId: row.request_id,
      occurredAt: new Date(row.occurred_at).toISOString(),
    }),
  );
}
