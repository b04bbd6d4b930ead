// The sender's claim of due deliveries (docs/outbound-webhooks.md "Delivery", "Fair sending"):
//   1. read the candidates: for each enabled endpoint, its deliveries due by now, oldest due first, at most
//      an endpoint's share (one index probe an endpoint);
//   2. deal them fairly (claim-rules.ts: round-robin over tenants and their endpoints, within the
//      window's room and each tenant's and endpoint's share of it, counting what this sender has in flight);
//   3. lock those still due, skipping any another sender holds, and move each one's next_attempt_at a
//      lease ahead: a sender that dies leaves them due again when the lease runs out.
// Then the audit rows and endpoints to send them with.
import { inArray, sql } from 'drizzle-orm';
import { auditEvents } from '../../audit/tables.ts';
import type { Database } from '../../db/pool.ts';
import type { EventSource } from '../fan-out/event-body.ts';
import { webhookEndpoints } from '../tables.ts';
import { type Candidate, fairPicks, type InFlight, type SenderLimits } from './claim-rules.ts';

/** How long a claimed delivery is the claimer's: past it, a sender that died has left it due again. */
export const CLAIM_LEASE_MS = 60_000;

export interface Claimed {
  id: string;
  endpointId: string;
  tenantId: string;
  attempts: number;
  source: EventSource;
}

export type ClaimedEndpoint = typeof webhookEndpoints.$inferSelect;

export interface ClaimResult {
  claimed: Claimed[];
  endpoints: Map<string, ClaimedEndpoint>;
}

/** Step 1: each enabled endpoint's deliveries due by `now`, oldest due first, `perEndpoint` at most. */
async function dueCandidates(database: Database, now: Date, perEndpoint: number): Promise<Candidate[]> {
  const { rows } = await database.db.execute<{
    id: string;
    endpoint_id: string;
    tenant_id: string;
    next_attempt_at: Date | string;
  }>(sql`
    select c.id, e.id as endpoint_id, e.tenant_id, c.next_attempt_at
    from webhook_endpoints e
    cross join lateral (
      select d.id, d.next_attempt_at from webhook_deliveries d
      where d.endpoint_id = e.id and d.status in ('pending', 'failed') and d.next_attempt_at <= ${now}
      order by d.next_attempt_at
      limit ${perEndpoint}
    ) c
    where e.enabled`);
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    tenantId: r.tenant_id,
    dueAt: new Date(r.next_attempt_at),
  }));
}

/** Step 3: leases the picked deliveries still due and not held by another sender. */
async function lease(database: Database, now: Date, ids: string[]) {
  const until = new Date(now.getTime() + CLAIM_LEASE_MS);
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
    update webhook_deliveries d set next_attempt_at = ${until}
    from (
      select id from webhook_deliveries
      where id = any(${sql.param(ids)}::uuid[]) and status in ('pending', 'failed')
        and next_attempt_at <= ${now}
      for update skip locked
    ) due
    where d.id = due.id
    returning d.id, d.endpoint_id, d.attempts, d.tenant_id, d.event_id, d.event_type, d.occurred_at,
      d.workflow_run_id, d.audit_event_id`);
  return rows;
}

/** Claims due deliveries of enabled endpoints, dealt fairly, with the rows to send them. */
export async function claimDue(
  database: Database,
  now: Date,
  inFlight: InFlight,
  limits: SenderLimits,
): Promise<ClaimResult> {
  if (inFlight.total >= limits.window) return { claimed: [], endpoints: new Map() };
  const candidates = await dueCandidates(database, now, limits.perEndpoint);
  const picks = fairPicks(candidates, inFlight, limits);
  if (picks.length === 0) return { claimed: [], endpoints: new Map() };
  const rows = await lease(database, now, picks);
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
      tenantId: r.tenant_id,
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
