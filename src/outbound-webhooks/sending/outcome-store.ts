// The sender's writes of what each attempt came to (docs/outbound-webhooks.md "Delivery", "Attempts"): the
// delivery's outcome and the attempt's record together; the claim of due ones is claim-store.ts.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/pool.ts';
import { notify } from '../../notifications/index.ts';
import { afterFailure } from './retry-rules.ts';

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
  /** The first KiB of the receiver's answer (response-excerpt-rules.ts), or null. */
  responseBody: string | null;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes attempts' outcomes in one transaction, each with its attempt's record (so a sender that dies
 * before the commit leaves neither, and the attempt made again later is the one recorded): delivered ones end; failed ones move along the ladder;
 * the fifth failure exhausts the delivery and marks its endpoint failing from then (markFailing). A
 * delivered one clears failing.
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
    await insertAttempts(tx, results);
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

type Tx = Parameters<Parameters<Database['db']['transaction']>[0]>[0];

/**
 * Every result of the batch as an attempt row, in the order the results came, numbered after the delivery's
 * attempts already written. Run after the batch's update of the deliveries, whose row locks it holds: a
 * concurrent batch for the same delivery (one sent twice, deliveries are at least once) waits for this one's
 * commit and then numbers after it. A delivery gone meanwhile (its endpoint deleted) gets none.
 */
async function insertAttempts(tx: Tx, results: readonly AttemptResult[]) {
  const column = <T>(pick: (r: AttemptResult) => T) => sql.param(results.map(pick));
  await tx.execute(sql`
    insert into webhook_delivery_attempts
      (tenant_id, delivery_id, number, attempted_at, duration_ms, response_code, error, response_body)
    select d.tenant_id, d.id,
      coalesce((select max(a.number) from webhook_delivery_attempts a where a.delivery_id = d.id), 0)
        + row_number() over (partition by d.id order by v.ord),
      v.at, v.duration_ms, v.response_code, v.error, v.response_body
    from unnest(${column((r) => r.deliveryId)}::uuid[], ${column((r) => r.at.toISOString())}::timestamptz[],
      ${column((r) => r.latencyMs)}::integer[], ${column((r) => r.responseCode)}::integer[],
      ${column((r) => r.error)}::text[], ${column((r) => r.responseBody)}::text[])
      with ordinality as v(delivery_id, at, duration_ms, response_code, error, response_body, ord)
    join webhook_deliveries d on d.id = v.delivery_id`);
}

/**
 * An exhaustion marks the endpoint failing from now: a first one turns it failing and tells the tenant's
 * holders of webhooks:write; a later one, while it is still failing, restarts the day Home lists it for
 * (failing_since moves on, never back) and tells no one again.
 */
async function markFailing(tx: Tx, r: AttemptResult) {
  const { rows } = await tx.execute<{ was: Date | string | null }>(sql`
    update webhook_endpoints e set failing_since = greatest(e.failing_since, ${r.at})
    from (select id, failing_since as was from webhook_endpoints where id = ${r.endpointId}) before
    where e.id = before.id
    returning before.was`);
  if (rows.length === 0 || rows[0]?.was !== null) return;
  await notify(tx, {
    tenantId: r.tenantId,
    kind: 'webhook_endpoint_failing',
    audiencePermission: 'webhooks:write',
    resource: { type: 'webhook_endpoint', id: r.endpointId },
    data: { endpointId: r.endpointId, deliveryId: r.deliveryId, event: r.eventType, error: r.error },
  });
}
