// Endpoints and audit rows written straight to the database for the worker side's tests: the trail
// reader and the sender are what these tests drive; the routes have their own tests.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { recordAudit } from '../../src/audit/trail.ts';
import type { Database } from '../../src/db/pool.ts';
import { sealEndpointSecret } from '../../src/outbound-webhooks/endpoints/endpoint-secrets.ts';
import { newSigningSecret } from '../../src/outbound-webhooks/sending/signing.ts';
import { webhookDeliveries, webhookEndpoints } from '../../src/outbound-webhooks/tables.ts';
import { SECRET_KEY_HEX } from '../installs/support.ts';

export const KEY = Buffer.from(SECRET_KEY_HEX, 'hex');

export async function addEndpoint(
  database: Database,
  tenantId: string,
  url: string,
  events: string[],
  extra: Partial<typeof webhookEndpoints.$inferInsert> = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = newSigningSecret();
  await database.db.insert(webhookEndpoints).values({
    id,
    tenantId,
    url,
    events,
    createdBy: 'user:test',
    secretSealed: sealEndpointSecret(KEY, tenantId, id, secret),
    ...extra,
  });
  return { id, secret };
}

/** A run's end as the runs layer audits it. */
export const runCompleted = (database: Database, tenantId: string, runId = randomUUID()) =>
  recordAudit(database.db, {
    tenantId,
    action: 'workflow.run.completed',
    actor: { type: 'system', id: 'runs', name: null },
    resource: { type: 'workflow_run', id: runId },
    data: { workflowRunId: runId, workflow: 'onboarding', version: 1, subjectId: 'subject-1' },
  }).then((auditId) => ({ auditId, runId }));

export const deliveriesOf = (database: Database, endpointId: string) =>
  database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

export const endpointRow = async (database: Database, id: string) =>
  (await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0];
