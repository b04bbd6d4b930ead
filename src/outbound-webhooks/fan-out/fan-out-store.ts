// The trail reader (docs/outbound-webhooks.md "From the audit trail to deliveries"): every two seconds
// one worker at a time turns new audit rows into deliveries for the enabled endpoints subscribed to their
// event type, leaving rows younger than the hold (ten seconds) for the next pass.
//
// Why it reads by transaction id and not by row id: ids are given out at insert, so a transaction that
// writes its audit row and commits seconds later leaves a row behind a cursor that has moved past its id.
// Every audit row carries the id of the transaction that wrote it (xact_id); below the oldest transaction
// still running (the snapshot's xmin) every transaction has ended, so no row can appear there any more.
// The cursor moves only up to that horizon, and up to the oldest row still in its hold.
import { sql } from 'drizzle-orm';
import { TRAIL_HOLD_MS } from '../../config/trail-hold.ts';
import type { Database, Queryable } from '../../db/pool.ts';
import { EVENT_OF_ACTION } from './event-types.ts';

export { TRAIL_HOLD_MS };

/** Audit rows read by one pass at most; a capped pass is followed by another at once. */
export const ROWS_PER_PASS = 5000;
/** The advisory lock that makes one worker at a time read the trail (any stable 64-bit number). */
const TRAIL_LOCK = 7_214_590_331;

/** A text[] parameter (drizzle spreads a JS array into a list): the names are dotted words, never quoted. */
const textArray = (values: readonly string[]) => sql`${`{${values.join(',')}}`}::text[]`;
const ACTIONS = textArray([...EVENT_OF_ACTION.keys()]);
const TYPES = textArray([...EVENT_OF_ACTION.values()].map((e) => e.type));

export interface FanoutOptions {
  holdMs?: number;
  rowsPerPass?: number;
  now?: () => Date;
}

export type FanoutResult =
  | { ran: false }
  | { ran: true; rows: number; deliveries: number; capped: boolean; cursor: string };

const first = <T>(rows: { rows: T[] }): T | undefined => rows.rows[0];

/** The end of this pass's range: the horizon, drawn back to a row still in its hold or to the row cap. */
async function rangeEnd(
  tx: Queryable,
  from: string,
  horizon: string,
  heldAfter: Date,
  cap: number,
): Promise<{ end: string; capped: boolean }> {
  const inRange = sql`xact_id >= ${from}::xid8 and xact_id < ${horizon}::xid8 and tenant_id is not null and action = any(${ACTIONS})`;
  const held = first<{ x: string | null }>(
    await tx.execute(
      sql`select min(xact_id)::text as x from audit_events where ${inRange} and occurred_at > ${heldAfter}`,
    ),
  );
  const end = held?.x ?? horizon;
  const beyondCap = first<{ x: string }>(
    await tx.execute(
      sql`select xact_id::text as x from audit_events where ${inRange} and xact_id < ${end}::xid8 order by xact_id offset ${cap} limit 1`,
    ),
  );
  // Rows of one transaction stay together: the range ends before the transaction of the row past the cap.
  return beyondCap ? { end: beyondCap.x, capped: true } : { end, capped: false };
}

/**
 * One pass. Returns { ran: false } when another worker's pass holds the trail. The deliveries and the
 * cursor's move commit together, so a pass cut short by a crash is redone whole by the next one.
 */
export async function fanoutPass(database: Database, options: FanoutOptions = {}): Promise<FanoutResult> {
  const now = options.now?.() ?? new Date();
  const heldAfter = new Date(now.getTime() - (options.holdMs ?? TRAIL_HOLD_MS));
  return database.db.transaction(async (tx) => {
    const locked = first<{ locked: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(${TRAIL_LOCK}) as locked`),
    );
    if (!locked?.locked) return { ran: false };
    // Taken before this transaction writes anything (which would give it an id of its own, below none).
    const horizon = first<{ x: string }>(
      await tx.execute(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as x`),
    )?.x as string;
    const cursor = first<{ x: string }>(
      await tx.execute(sql`select xact_id::text as x from webhook_trail_cursor where id = 1`),
    );
    const from = cursor?.x ?? horizon;
    // The horizon never falls below the cursor in practice; if it did, the range is empty, not reversed.
    if (BigInt(horizon) < BigInt(from))
      return { ran: true, rows: 0, deliveries: 0, capped: false, cursor: from };
    const { end, capped } = await rangeEnd(
      tx,
      from,
      horizon,
      heldAfter,
      options.rowsPerPass ?? ROWS_PER_PASS,
    );
    const counts = first<{ rows: number; deliveries: number }>(
      await tx.execute(sql`
        with events as materialized (
          select a.*, m.type as event_type, gen_random_uuid() as event_id
          from audit_events a
          join unnest(${ACTIONS}, ${TYPES}) as m(action, type) on m.action = a.action
          where a.xact_id >= ${from}::xid8 and a.xact_id < ${end}::xid8 and a.tenant_id is not null
        ), inserted as (
          insert into webhook_deliveries
            (tenant_id, endpoint_id, event_id, audit_event_id, event_type, occurred_at, workflow_run_id)
          select ev.tenant_id, e.id, ev.event_id, ev.id, ev.event_type, ev.occurred_at,
            coalesce(case when ev.resource_type = 'workflow_run' then ev.resource_id end, ev.data->>'workflowRunId')
          from events ev
          join webhook_endpoints e on e.tenant_id = ev.tenant_id and e.enabled
            and ev.event_type = any(e.events) and e.created_at <= ev.occurred_at
          on conflict (endpoint_id, audit_event_id) do nothing
          returning 1
        )
        select (select count(*) from events)::int as rows, (select count(*) from inserted)::int as deliveries`),
    ) ?? { rows: 0, deliveries: 0 };
    await tx.execute(sql`
      insert into webhook_trail_cursor (id, xact_id, passed_at) values (1, ${end}::xid8, ${now})
      on conflict (id) do update set xact_id = excluded.xact_id, passed_at = excluded.passed_at`);
    return { ran: true, rows: counts.rows, deliveries: counts.deliveries, capped, cursor: end };
  });
}
