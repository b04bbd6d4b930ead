// The outbound webhook tests' platform and rows: the real api on a fresh database (with a secret store
// key unless told otherwise), and deliveries and runs written straight into their tables, as the worker
// and the runs engine write them.
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/audit/tables.ts';
import type { Queryable } from '../../src/db/pool.ts';
import type { DeliveryView } from '../../src/outbound-webhooks/deliveries/deliveries-store.ts';
import type { EndpointView } from '../../src/outbound-webhooks/endpoints/endpoints-store.ts';
import {
  sealEndpointSecret,
  webhookDeliveries,
  webhookEndpoints,
} from '../../src/outbound-webhooks/index.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

export const KEY_HEX = randomBytes(32).toString('hex');

export async function startWebhooksPlatform(
  options: { key?: boolean; allowPrivateNetworks?: boolean } = {},
): Promise<TestPlatform> {
  return startTestPlatform({
    ...(options.key === false ? {} : { SECRET_STORE_KEY: KEY_HEX }),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: options.allowPrivateNetworks ? 'true' : 'false',
  });
}

/** An endpoint as the API answers it (the secret only on create). */
export type EndpointAnswer = EndpointView & { secret?: string };
export type DeliveryAnswer = DeliveryView;

export const webhooksCalls = (platform: TestPlatform) => ({
  token: (tenant = 'acme', permissions?: string[]) =>
    platform.token(permissions ? { tenant, roles: [], permissions } : { tenant }),
  call: (path: string, token: string, method = 'GET', json?: unknown) =>
    platform.fetch(path, { token, method, ...(json !== undefined ? { json } : {}) }),
  async create(token: string, body: Record<string, unknown>): Promise<EndpointAnswer & { secret: string }> {
    return ok(await platform.fetch('/webhook-endpoints', { token, method: 'POST', json: body }), 201);
  },
});

/** An endpoint row written straight in (a URL saved under other rules, say), with its sealed secret. */
export async function insertEndpoint(
  platform: TestPlatform,
  fields: { tenantId: string; url: string; secret: string; events?: string[]; key?: Buffer },
): Promise<string> {
  const id = randomUUID();
  const key = fields.key ?? platform.config.secretStoreKey ?? randomBytes(32);
  await platform.database.db.insert(webhookEndpoints).values({
    id,
    tenantId: fields.tenantId,
    url: fields.url,
    events: fields.events ?? ['run.completed'],
    secretSealed: sealEndpointSecret(key, fields.tenantId, id, fields.secret),
    createdBy: 'user:test',
  });
  return id;
}

let auditIds = 1_000_000;

/** A delivery of the endpoint, as the trail reader and the sender leave it. */
export async function insertDelivery(
  db: Queryable,
  fields: Partial<typeof webhookDeliveries.$inferInsert> & { tenantId: string; endpointId: string },
) {
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      eventId: randomUUID(),
      auditEventId: auditIds++,
      eventType: 'run.completed',
      occurredAt: new Date(),
      ...fields,
    })
    .returning();
  if (!row) throw new Error('no delivery written');
  return row;
}

/** A run of the tenant (nothing runs it: only its id and tenant are read). */
export async function insertRun(db: Queryable, tenantId: string): Promise<string> {
  const [row] = await db
    .insert(workflowRuns)
    .values({
      tenantId,
      definitionId: randomUUID(),
      definitionVersionId: randomUUID(),
      workflowKey: 'onboarding',
      version: 1,
      subjectId: 'subject-1',
      context: {},
      createdBy: 'user:test',
    })
    .returning({ id: workflowRuns.id });
  if (!row) throw new Error('no run written');
  return row.id;
}

/** The tenant's audit records of an action, oldest first. */
export async function auditOf(db: Queryable, tenantId: string, action: string) {
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, action)))
    .orderBy(auditEvents.id);
}
