// Console notifications: written in the transaction of the change that raises them, read per principal.
import { and, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { pagedList } from '../http/paging.ts';
import { notificationReads, notifications } from './tables.ts';

export interface NewNotification {
  tenantId: string;
  kind: string;
  /** Everyone in the tenant holding this permission sees it. */
  audiencePermission?: string;
  /** Or one principal (a token subject). */
  recipient?: string;
  resource: { type: string; id: string };
  data?: Record<string, unknown>;
}

export async function notify(db: Queryable, n: NewNotification): Promise<void> {
  await db.insert(notifications).values({
    tenantId: n.tenantId,
    kind: n.kind,
    audiencePermission: n.audiencePermission ?? null,
    recipient: n.recipient ?? null,
    resourceType: n.resource.type,
    resourceId: n.resource.id,
    data: n.data ?? {},
  });
}

function visibleTo(principal: AuthenticatedPrincipal): SQL {
  const permissions = [...principal.permissions];
  const audience =
    permissions.length > 0 ? inArray(notifications.audiencePermission, permissions) : sql`false`;
  return and(
    eq(notifications.tenantId, principal.tenantId),
    or(audience, eq(notifications.recipient, principal.subject)),
  ) as SQL;
}

export async function listNotifications(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  page: { limit: number; offset: number; unread: boolean },
) {
  const read = sql<boolean>`exists (select 1 from ${notificationReads} r where r.notification_id = ${notifications.id} and r.principal = ${principal.subject})`;
  const where = page.unread ? and(visibleTo(principal), sql`not ${read}`) : visibleTo(principal);
  return pagedList(
    db,
    {
      from: notifications,
      where,
      orderBy: [desc(notifications.createdAt), desc(notifications.id)],
      limit: page.limit,
      offset: page.offset,
      beside: { read },
    },
    (row) => ({
      id: row.id,
      kind: row.kind,
      resource: { type: row.resourceType, id: row.resourceId },
      data: row.data,
      createdAt: row.createdAt.toISOString(),
      read: row.read,
    }),
  );
}

/** Marks one visible notification read for the principal; false when it is not theirs to see. */
export async function markRead(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  id: string,
): Promise<boolean> {
  const [found] = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.id, id), visibleTo(principal)));
  if (!found) return false;
  await db
    .insert(notificationReads)
    .values({ notificationId: id, principal: principal.subject })
    .onConflictDoNothing();
  return true;
}
