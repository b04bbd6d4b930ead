// Deliveries as the API shows them (docs/outbound-webhooks.md "Deliveries and retry"): the listing with
// its filters, a run's deliveries, and the manual retry. The worker's sender moves them otherwise.
import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { auditedBy } from '../../audit/actor.ts';
import { recordAudit } from '../../audit/trail.ts';
import type { Queryable } from '../../db/pool.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { type Page, pagedList } from '../../http/paging.ts';
import { withinBounds } from '../../http/time-bounds.ts';
import { runSubjectOf } from '../../runs/index.ts';
import type { WebhookContext } from '../endpoints/endpoints-store.ts';
import { webhookDeliveries } from '../tables.ts';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface DeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  workflowRunId: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  responseCode: number | null;
  latencyMs: number | null;
  error: string | null;
  deliveredAt: string | null;
  createdAt: string;
  occurredAt: string;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A settled delivery (delivered or exhausted) is due never: its next_attempt_at means nothing then. */
export const deliveryView = (row: DeliveryRow): DeliveryView => {
  const status = row.status as DeliveryStatus;
  const settled = status === 'delivered' || status === 'exhausted';
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    event: row.eventType,
    workflowRunId: row.workflowRunId,
    status,
    attempts: row.attempts,
    nextAttemptAt: settled ? null : row.nextAttemptAt.toISOString(),
    lastAttemptAt: iso(row.lastAttemptAt),
    responseCode: row.responseCode,
    latencyMs: row.latencyMs,
    error: row.error,
    deliveredAt: iso(row.deliveredAt),
    createdAt: row.createdAt.toISOString(),
    occurredAt: row.occurredAt.toISOString(),
  };
};

export interface DeliveryQuery {
  tenantId: string;
  endpointId?: string;
  status?: DeliveryStatus[];
  event?: string;
  workflowRunId?: string;
  /** Inclusive and exclusive bounds on the delivery's creation. */
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

/** The tenant's deliveries matching every filter given, newest first. */
export async function listDeliveries(db: Queryable, query: DeliveryQuery): Promise<Page<DeliveryView>> {
  const d = webhookDeliveries;
  const conditions: SQL[] = [eq(d.tenantId, query.tenantId)];
  if (query.endpointId !== undefined) conditions.push(eq(d.endpointId, query.endpointId));
  if (query.status && query.status.length > 0) conditions.push(inArray(d.status, query.status));
  if (query.event !== undefined) conditions.push(eq(d.eventType, query.event));
  if (query.workflowRunId !== undefined) conditions.push(eq(d.workflowRunId, query.workflowRunId));
  conditions.push(...withinBounds(d.createdAt, query));
  return pagedList(
    db,
    {
      from: d,
      where: and(...conditions),
      orderBy: [desc(d.createdAt), desc(d.id)],
      limit: query.limit,
      offset: query.offset,
    },
    deliveryView,
  );
}

/** GET /workflow-runs/:id/related: the run's deliveries, newest first; 404 unless the tenant has the run. */
export async function runDeliveries(db: Queryable, tenantId: string, runId: string): Promise<DeliveryView[]> {
  if ((await runSubjectOf(db, tenantId, runId)) === null) throw notFound('no workflow run of that id');
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.workflowRunId, runId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id));
  return rows.map(deliveryView);
}

/**
 * POST /webhook-deliveries/:id/retry: the delivery is due now. Exhausted becomes failed again with its
 * attempts kept, so it gets one more attempt: failing it, it is exhausted again (the sender exhausts a
 * delivery whose attempts reach five or more). Failed and pending ones are only made due now (one the
 * sender holds at this moment may then go twice: deliveries are at least once). Delivered: 409 conflict.
 */
export async function retryDelivery(ctx: WebhookContext, id: string): Promise<DeliveryView> {
  return ctx.database.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.tenantId, ctx.principal.tenantId), eq(webhookDeliveries.id, id)))
      .for('update');
    if (!row) throw notFound('no webhook delivery of that id');
    if (row.status === 'delivered') {
      throw conflict('this delivery was delivered: there is nothing to retry', { status: row.status });
    }
    const [moved] = await tx
      .update(webhookDeliveries)
      .set({ status: row.status === 'exhausted' ? 'failed' : row.status, nextAttemptAt: new Date() })
      .where(eq(webhookDeliveries.id, row.id))
      .returning();
    await recordAudit(tx, {
      ...auditedBy(ctx),
      action: 'webhook_delivery.retried',
      resource: { type: 'webhook_delivery', id: row.id },
      data: {
        endpointId: row.endpointId,
        eventId: row.eventId,
        event: row.eventType,
        previousStatus: row.status,
        attempts: row.attempts,
      },
    });
    return deliveryView(moved as DeliveryRow);
  });
}
