// The sender's reads and writes of deliveries (docs/outbound-webhooks.md "Delivery"): claiming due ones
// with skip-locked semantics and a lease, and writing what each attempt came to.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { auditEvents } from '../audit/tables.ts';
import type { Database } from '../db/pool.ts';
import { notify } from '../notifications/service.ts';
import type { EventSource } from './event-body.ts';
import { afterFailure } from './retry-rules.ts';
import { webhookDeliveries, webhookEndpoints } from './tables.ts';

/** How long a claimed delivery is the claimer's: past it, a sender that died has left it due again. */
export const CLAIM_LEASE_MS = 60_000;

export interface Claimed {
  id: string;
  endpointId: string;
  attempts: number;
  source: EventSource;
}

export type ClaimedEndpoint = typeof webhookEndpoints.$inferSelect;

/** Claims up to `limit` due deliveries of enabled endpoints, oldest due first, with the rows to send them. */
export async function claimDue(
  database: Database,
  now: Date,
  limit: number,
): Promise<{ claimed: Claimed[]; endpoints: Map<string, ClaimedEndpoint> }> {
  const lease = new Date(now.getTime() + CLAIM_LEASE_MS);
  const { rows } = await database.db.execute<{
    id: string;
    endpoint_id: string;
    attempts: number;
    tenant_id: string;
    event_id: string;
    event_type: string;
    occurred_at: Date | string;
    workflow_run_id: string | null;
    audit_event_id: string | number;
  }>(sql`
    update webhook_deliveries d set next_attempt_at = ${lease}
    from (
      select d2.id from webhook_deliveries d2
      join webhook_endpoints e on e.id = d2.endpoint_id and e.enabled
      where d2.status in ('pending', 'failed') and d2.next_attempt_at <= ${now}
      order by d2.next_attempt_at
      limit ${limit}
      for update of d2 skip locked
    ) due
    where d.id = due.id
    returning d.id, d.endpoint_id, d.attempts, d.tenant_id, d.event_id, d.event_type, d.occurred_at,
      d.workflow_run_id, d.audit_event_id`);
  if (rows.length === 0) return { claimed: [], endpoints: new Map() };
  const auditIds = [...new Set(rows.map((r) => Number(r.audit_event_id)))];
  const endpointIds = [...new Set(rows.map((r) => r.endpoint_id))];
  const [audits, endpoints] = await Promise.all([
    database.db
      .select({
        id: auditEvents.id,
        resourceType: auditEvents.resourceType,
        resourceId: auditEvents.resourceId,
        data: auditEvents.data,
      })
      .from(auditEvents)
      .where(inArray(auditEvents.id, auditIds)),
    database.db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, endpointIds)),
  ]);
  const auditById = new Map(audits.map((a) => [a.id, a]));
  const claimed: Claimed[] = [];
  for (const r of rows) {
    const audit = auditById.get(Number(r.audit_event_id));
    if (!audit) continue;
    claimed.push({
      id: r.id,
      endpointId: r.endpoint_id,
      attempts: r.attempts,
      source: {
        eventId: r.event_id,
        eventType: r.event_type,
        tenantId: r.tenant_id,
        occurredAt: new Date(r.occurred_at),
        resourceType: audit.resourceType,
        resourceId: audit.resourceId,
        data: audit.data,
        workflowRunId: r.workflow_run_id,
      },
    });
  }
  return { claimed, endpoints: new Map(endpoints.map((e) => [e.id, e])) };
}

export interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  tenantId: string;
  eventType: string;
  /** Attempts before this one. */
  attemptsBefore: number;
  at: Date;
  delivered: boolean;
  responseCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * Writes attempts' outcomes in one transaction: delivered ones end; failed ones move along the ladder;
 * the fifth failure exhausts the delivery, marks its endpoint failing and, when the endpoint was not
 * failing yet, notifies the tenant's holders of webhooks:write. A delivered one clears failing.
 */
export async function recordAttempts(database: Database, results: readonly AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  await database.db.transaction(async (tx) => {
    for (const r of results) {
      const attempts = r.attemptsBefore + 1;
      const common = {
        attempts,
        lastAttemptAt: r.at,
        responseCode: r.responseCode,
        latencyMs: r.latencyMs,
        error: r.error,
      };
      if (r.delivered) {
        await tx
          .update(webhookDeliveries)
          .set({ ...common, status: 'delivered', deliveredAt: r.at })
          .where(eq(webhookDeliveries.id, r.deliveryId));
        continue;
      }
      const next = afterFailure(attempts, r.at);
      await tx
        .update(webhookDeliveries)
        .set({
          ...common,
          status: next.status,
          ...(next.status === 'failed' ? { nextAttemptAt: next.nextAttemptAt } : {}),
        })
        .where(eq(webhookDeliveries.id, r.deliveryId));
      if (next.status === 'exhausted') await markFailing(tx, r);
    }
    const delivered = results.filter((r) => r.delivered);
    const latest = new Map<string, Date>();
    for (const r of delivered) {
      const seen = latest.get(r.endpointId);
      if (!seen || seen < r.at) latest.set(r.endpointId, r.at);
    }
    for (const [endpointId, at] of latest) {
      await tx
        .update(webhookEndpoints)
        .set({ lastDeliveryAt: sql`greatest(${webhookEndpoints.lastDeliveryAt}, ${at})`, failingSince: null })
        .where(eq(webhookEndpoints.id, endpointId));
    }
  });
}

async function markFailing(
  tx: Parameters<Parameters<Database['db']['transaction']>[0]>[0],
  r: AttemptResult,
) {
  const [turned] = await tx
    .update(webhookEndpoints)
    .set({ failingSince: r.at })
    .where(and(eq(webhookEndpoints.id, r.endpointId), isNull(webhookEndpoints.failingSince)))
    .returning({ id: webhookEndpoints.id });
  if (!turned) return;
  await notify(tx, {
    tenantId: r.tenantId,
    kind: 'webhook_endpoint_failing',
    audiencePermission: 'webhooks:write',
    resource: { type: 'webhook_endpoint', id: r.endpointId },
    data: { endpointId: r.endpointId, deliveryId: r.deliveryId, event: r.eventType, error: r.error },
  });
}
