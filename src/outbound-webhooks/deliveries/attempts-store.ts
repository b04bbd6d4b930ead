// A delivery's attempts as the API shows them (docs/outbound-webhooks.md "Attempts"): newest first, paged.
// The sender writes them (sending/outcome-store.ts). The receiver's answer may repeat what it was sent, the run's
// data: without runs:context its body reads "[redacted]", as invocation and vendor session texts do.
import { and, desc, eq } from 'drizzle-orm';
import { REDACTED } from '../../calls/index.ts';
import type { Queryable } from '../../db/pool.ts';
import { notFound } from '../../http/errors.ts';
import { countCapped, type Page } from '../../http/paging.ts';
import { webhookDeliveries, webhookDeliveryAttempts } from '../tables.ts';

type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

export interface AttemptView {
  id: string;
  deliveryId: string;
  number: number;
  attemptedAt: string;
  durationMs: number;
  responseCode: number | null;
  error: string | null;
  responseBody: string | null;
}

export const attemptView = (row: AttemptRow, withContext: boolean): AttemptView => ({
  id: row.id,
  deliveryId: row.deliveryId,
  number: row.number,
  attemptedAt: row.attemptedAt.toISOString(),
  durationMs: row.durationMs,
  responseCode: row.responseCode,
  error: row.error,
  responseBody: withContext || row.responseBody === null ? row.responseBody : REDACTED,
});

export interface AttemptQuery {
  tenantId: string;
  deliveryId: string;
  /** The principal holds runs:context: the receiver's answers are shown. */
  withContext: boolean;
  limit: number;
  offset: number;
}

/** GET /webhook-deliveries/:id/attempts: newest (highest number) first; 404 unless the tenant has it. */
export async function listAttempts(db: Queryable, query: AttemptQuery): Promise<Page<AttemptView>> {
  const [delivery] = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, query.tenantId), eq(webhookDeliveries.id, query.deliveryId)));
  if (!delivery) throw notFound('no webhook delivery of that id');
  const a = webhookDeliveryAttempts;
  const where = and(eq(a.tenantId, query.tenantId), eq(a.deliveryId, query.deliveryId));
  const rows = await db
    .select()
    .from(a)
    .where(where)
    .orderBy(desc(a.number))
    .limit(query.limit)
    .offset(query.offset);
  const counted = await countCapped(db, a, where);
  return { items: rows.map((row) => attemptView(row, query.withContext)), ...counted };
}
