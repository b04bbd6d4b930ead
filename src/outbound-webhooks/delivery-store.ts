// The sender's reads and writes of deliveries (docs/outbound-webhooks.md "Delivery"): claiming due ones
// with skip-locked semantics and a lease, and writing what each attempt came to.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { auditEvents } from '../audit/tables.ts';
import type { Database } from '../db/pool.ts';
import { notify } from '../notifications/service.ts';
import type { EventSource } from './event-body.ts';
import { afterFailure } from './retry-rules.ts';
import { webhookEndpoints } from './tables.ts';

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

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes attempts' outcomes in one transaction: delivered ones end; failed ones move along the ladder;
 * the fifth failure exhausts the delivery, marks its endpoint failing and, when the endpoint was not
 * failing yet, notifies the tenant's holders of webhooks:write. A delivered one clears failing.
 *
 * A few statements whatever the batch's size: the deliveries in one update, then the endpoints the batch
 * touches locked in id order before any is written. Every worker's sender writes its outcomes so, and the
 * same endpoints are in many workers' batches: taken in one order, their locks never deadlock (a deadlock
 * would lose the batch, and its deliveries would be sent again when their leases ran out).
 */
export async function recordAttempts(database: Database, results: readonly AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  // One row a delivery, its last result in the batch (as if each were written in turn), in id order.
  const last = new Map<string, AttemptResult>();
  for (const r of results) last.set(r.deliveryId, r);
  const rows = [...last.values()]
    .sort((a, b) => compare(a.deliveryId, b.deliveryId))
    .map((r) => {
      const attempts = r.attemptsBefore + 1;
      const next = r.delivered ? null : afterFailure(attempts, r.at);
      return {
        id: r.deliveryId,
        status: next ? next.status : 'delivered',
        attempts,
        at: r.at.toISOString(),
        responseCode: r.responseCode,
        latencyMs: r.latencyMs,
        error: r.error,
        nextAttemptAt: next?.status === 'failed' ? next.nextAttemptAt.toISOString() : null,
      };
    });
  const column = <K extends keyof (typeof rows)[number]>(key: K) => sql.param(rows.map((row) => row[key]));
  const exhausted = results.filter(
    (r) => !r.delivered && afterFailure(r.attemptsBefore + 1, r.at).status === 'exhausted',
  );
  const latest = new Map<string, Date>();
  for (const r of results) {
    if (!r.delivered) continue;
    const seen = latest.get(r.endpointId);
    if (!seen || seen < r.at) latest.set(r.endpointId, r.at);
  }
  const endpointIds = [...new Set([...exhausted.map((r) => r.endpointId), ...latest.keys()])].sort(compare);
  await database.db.transaction(async (tx) => {
    // A failed one's next attempt is set, an exhausted one's left as it was; a delivered one's delivered_at set.
    await tx.execute(sql`
      update webhook_deliveries d set status = v.status, attempts = v.attempts, last_attempt_at = v.at,
        response_code = v.response_code, latency_ms = v.latency_ms, error = v.error,
        delivered_at = case when v.status = 'delivered' then v.at else d.delivered_at end,
        next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at)
      from unnest(${column('id')}::uuid[], ${column('status')}::text[], ${column('attempts')}::smallint[],
        ${column('at')}::timestamptz[], ${column('responseCode')}::integer[], ${column('latencyMs')}::integer[],
        ${column('error')}::text[], ${column('nextAttemptAt')}::timestamptz[])
        as v(id, status, attempts, at, response_code, latency_ms, error, next_attempt_at)
      where d.id = v.id`);
    if (endpointIds.length === 0) return;
    await tx.execute(sql`
      select id from webhook_endpoints where id = any(${sql.param(endpointIds)}::uuid[])
      order by id for no key update`);
    for (const r of exhausted) await markFailing(tx, r);
    if (latest.size === 0) return;
    const delivered = [...latest.keys()].sort(compare);
    await tx.execute(sql`
      update webhook_endpoints e
      set last_delivery_at = greatest(e.last_delivery_at, v.at), failing_since = null
      from unnest(${sql.param(delivered)}::uuid[],
        ${sql.param(delivered.map((id) => (latest.get(id) as Date).toISOString()))}::timestamptz[]) as v(id, at)
      where e.id = v.id`);
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
