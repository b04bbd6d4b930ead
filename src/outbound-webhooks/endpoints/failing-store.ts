// Outbound webhooks' source of Home's attention list: endpoints whose delivery was given up (exhausted)
// within the last day (docs/outbound-webhooks.md: Home lists it for a day), oldest first; src/attention
// words them.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Queryable } from '../../db/pool.ts';
import { webhookEndpoints } from '../tables.ts';

export const FAILING_LISTED_MS = 24 * 60 * 60 * 1000;

export async function failingEndpointRows(db: Queryable, tenantId: string, now = new Date()) {
  const rows = await db
    .select({
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      description: webhookEndpoints.description,
      failingSince: webhookEndpoints.failingSince,
    })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.tenantId, tenantId),
        gt(webhookEndpoints.failingSince, new Date(now.getTime() - FAILING_LISTED_MS)),
      ),
    )
    .orderBy(asc(webhookEndpoints.failingSince));
  return rows.map((row) => ({ ...row, failingSince: row.failingSince as Date }));
}
