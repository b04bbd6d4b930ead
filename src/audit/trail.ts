// The audit trail's one write helper and its reader. Writers pass their open transaction so the
// record commits or rolls back with the change it describes.
import { and, desc, eq, isNull, like, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { Page } from '../http/page-count.ts';
import { pagedList } from '../http/paged-list.ts';
import { withinBounds } from '../http/time-bounds.ts';
import { auditEvents } from './tables.ts';

export type ActorType = 'user' | 'machine' | 'applicant' | 'operator' | 'system';

export interface Actor {
  type: ActorType;
  id: string;
  name: string | null;
}

export interface AuditEntry {
  tenantId: string | null;
  action: string;
  actor: Actor;
  resource: { type: string; id: string };
  data?: Record<string, unknown>;
  requestId?: string | null;
}

export interface AuditEvent {
  /** The record's public id (a UUID): never the trail's internal sequence, which orders it. */
  id: string;
  tenantId: string | null;
  action: string;
  actor: Actor;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
  requestId: string | null;
  occurredAt: string;
}

/**
 * Writes the record in the caller's transaction; answers its place in the trail's sequence (for the
 * platform's own joins, as webhook deliveries make: never in an answer).
 */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<number> {
  const [row] = await auditInsert(db, entry).returning({ id: auditEvents.id });
  if (!row) throw new Error('audit insert returned no row');
  return row.id;
}

/**
 * The record's columns. `publicId`: the record's public id when the writer chooses it (a version 7 UUID,
 * as the column's default makes), so a try after a lost commit can find the record there.
 */
export const auditValues = (entry: AuditEntry & { publicId?: string }) => ({
  ...(entry.publicId ? { publicId: entry.publicId } : {}),
  tenantId: entry.tenantId,
  action: entry.action,
  actorType: entry.actor.type,
  actorId: entry.actor.id,
  actorName: entry.actor.name,
  resourceType: entry.resource.type,
  resourceId: entry.resource.id,
  data: entry.data ?? {},
  requestId: entry.requestId ?? null,
});

/** The columns auditValues gives a record its writer chose the id of: a prepared insert's placeholders. */
export const AUDIT_COLUMNS: Record<keyof ReturnType<typeof auditValues>, true> = {
  publicId: true,
  tenantId: true,
  action: true,
  actorType: true,
  actorId: true,
  actorName: true,
  resourceType: true,
  resourceId: true,
  data: true,
  requestId: true,
};

/** The record's insert, not yet sent. */
export const auditInsert = (db: Pick<Queryable, 'insert'>, entry: AuditEntry & { publicId?: string }) =>
  db.insert(auditEvents).values(auditValues(entry));

export interface AuditQuery {
  tenantId: string;
  /** An exact action, or a prefix ending in a dot (`app.`) or with `*` (`app.install.*`). */
  action?: string;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

/** `app.` and `app.*` match every action under app; anything else matches exactly. */
export function actionFilter(action: string): { prefix: string } | { exact: string } {
  if (action.endsWith('.*')) return { prefix: action.slice(0, -1) };
  if (action.endsWith('.')) return { prefix: action };
  return { exact: action };
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The conditions a trail's reader shares: the action (exact or prefix) and the time window. */
function windowConditions(query: { action?: string; from?: Date; to?: Date }): SQL[] {
  const conditions: SQL[] = [];
  if (query.action) {
    const filter = actionFilter(query.action);
    conditions.push(
      'prefix' in filter
        ? like(auditEvents.action, `${escapeLike(filter.prefix)}%`)
        : eq(auditEvents.action, filter.exact),
    );
  }
  return [...conditions, ...withinBounds(auditEvents.occurredAt, query)];
}

export async function listAuditEvents(db: Queryable, query: AuditQuery): Promise<Page<AuditEvent>> {
  return pagedList(
    db,
    {
      from: auditEvents,
      where: and(eq(auditEvents.tenantId, query.tenantId), ...windowConditions(query)),
      orderBy: [desc(auditEvents.id)],
      limit: query.limit,
      offset: query.offset,
    },
    toAuditEvent,
  );
}

export interface InstanceTrailQuery {
  action?: string;
  from?: Date;
  /**
   * Only the records concerning this tenant: an operator's change names it as data.tenantId, or among
   * data.tenantIds when it concerns several (a block).
   */
  tenantId?: string;
  limit: number;
}

/**
 * The instance's own trail (tenant_id null: the operator's changes and the platform's own), newest first.
 * No tenant reads it.
 */
export async function listInstanceTrail(db: Queryable, query: InstanceTrailQuery): Promise<AuditEvent[]> {
  const conditions = [isNull(auditEvents.tenantId), ...windowConditions(query)];
  if (query.tenantId)
    conditions.push(
      sql`(${auditEvents.data}->>'tenantId' = ${query.tenantId} or ${auditEvents.data}->'tenantIds' @> ${JSON.stringify([query.tenantId])}::jsonb)`,
    );
  const rows = await db
    .select()
    .from(auditEvents)
    .where(and(...conditions))
    .orderBy(desc(auditEvents.id))
    .limit(query.limit);
  return rows.map(toAuditEvent);
}

/** What of a trail's row an event shows: never the internal sequence, which only orders the trail. */
export type AuditRow = Pick<
  typeof auditEvents.$inferSelect,
  | 'publicId'
  | 'tenantId'
  | 'action'
  | 'actorType'
  | 'actorId'
  | 'actorName'
  | 'resourceType'
  | 'resourceId'
  | 'data'
  | 'requestId'
  | 'occurredAt'
>;

/** The one mapping of a trail's row to the event answered (the trail's readers and the activity feed). */
export function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.publicId,
    tenantId: row.tenantId,
    action: row.action,
    actor: { type: row.actorType as ActorType, id: row.actorId, name: row.actorName },
    resource: { type: row.resourceType, id: row.resourceId },
    data: row.data,
    requestId: row.requestId,
    occurredAt: row.occurredAt.toISOString(),
  };
}
