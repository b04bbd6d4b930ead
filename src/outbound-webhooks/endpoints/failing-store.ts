// Home's attention source for outbound webhooks: endpoints whose delivery was given up (exhausted) within
// the last day (docs/outbound-webhooks.md: Home lists it for a day), oldest first.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Queryable } from '../../db/pool.ts';
import type { AttentionEntry } from '../../installs/index.ts';
import { webhookEndpoints } from '../tables.ts';

export const FAILING_LISTED_MS = 24 * 60 * 60 * 1000;

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
};

export async function failingEndpoints(
  db: Queryable,
  tenantId: string,
  now = new Date(),
): Promise<AttentionEntry[]> {
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
  return rows.map((row) => ({
    resource: { type: 'webhook_endpoint', id: row.id },
    title: `Webhook endpoint ${row.description ?? hostOf(row.url)} is failing: a delivery was given up after five attempts`,
    href: `/settings/webhooks/${row.id}`,
    since: row.failingSince as Date,
  }));
}
