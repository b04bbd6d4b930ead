// A tenant's outbound webhook endpoints (docs/outbound-webhooks.md "Endpoints"): list, read, create,
// replace, delete and rotate the signing secret. Every change commits with its audit record
// (webhook_endpoint.*), where the URL shows as its origin only (url-mask-rules.ts) and no secret ever goes:
// a secret is sealed into its row and answered once, on creation and on rotation. Another tenant's
// endpoint answers 404 not_found, as one that does not exist.
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { auditedBy } from '../../audit/actor.ts';
import { recordAudit } from '../../audit/trail.ts';
import type { Database, Queryable, Tx } from '../../db/pool.ts';
import type { AuthenticatedPrincipal } from '../../http/auth.ts';
import { ApiError, conflict, notFound, validationError } from '../../http/errors.ts';
import { newSigningSecret } from '../sending/signing.ts';
import { webhookDeliveries, webhookEndpoints } from '../tables.ts';
import { ROTATION_OVERLAP_MS, sealEndpointSecret } from './endpoint-secrets.ts';
import { maskedUrl } from './url-mask-rules.ts';
import { endpointUrlRefusal } from './url-rules.ts';

/** The most endpoints a tenant keeps. */
export const MAX_ENDPOINTS = 20;

export interface WebhookContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
  /** SECRET_STORE_KEY; null: endpoints cannot be created, rotated or tested. */
  secretStoreKey: Buffer | null;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS (development only): http and private addresses pass. */
  allowPrivateNetworks: boolean;
}

export interface EndpointInput {
  url: string;
  description?: string | null;
  events: string[];
  enabled?: boolean;
}

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  lastDeliveryAt: string | null;
  failing: boolean;
  createdAt: string;
  updatedAt: string;
}

export const endpointView = (row: EndpointRow): EndpointView => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events,
  enabled: row.enabled,
  lastDeliveryAt: row.lastDeliveryAt?.toISOString() ?? null,
  failing: row.failingSince !== null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const secretStoreUnavailable = () =>
  new ApiError(
    'secret_store_unavailable',
    'this deployment has no secret store key (SECRET_STORE_KEY): endpoint secrets cannot be made or used',
  );

/** The key, or 503 secret_store_unavailable before anything is read or written. */
export function requireKey(ctx: Pick<WebhookContext, 'secretStoreKey'>): Buffer {
  if (!ctx.secretStoreKey) throw secretStoreUnavailable();
  return ctx.secretStoreKey;
}

/** 400 validation_error at /url when the URL breaks a rule (url-rules.ts). */
function checkUrl(ctx: WebhookContext, url: string) {
  const refusal = endpointUrlRefusal(url, ctx.allowPrivateNetworks);
  if (refusal) throw validationError([{ path: '/url', message: refusal }], 'the endpoint URL is refused');
}

/** The audit record of a change to an endpoint, in the change's transaction. */
export const auditEndpoint = (
  tx: Queryable,
  ctx: WebhookContext,
  action: string,
  endpointId: string,
  data: Record<string, unknown>,
) =>
  recordAudit(tx, {
    ...auditedBy(ctx),
    action,
    resource: { type: 'webhook_endpoint', id: endpointId },
    data,
  });

/** The tenant's endpoint, optionally locked for the transaction; 404 not_found when it has none of that id. */
export async function requireEndpoint(
  db: Queryable,
  tenantId: string,
  id: string,
  lock = false,
): Promise<EndpointRow> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFound('no webhook endpoint of that id');
  return row;
}

export async function listEndpoints(ctx: WebhookContext): Promise<EndpointView[]> {
  const rows = await ctx.database.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, ctx.principal.tenantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(endpointView);
}

export async function getEndpoint(ctx: WebhookContext, id: string): Promise<EndpointView> {
  return endpointView(await requireEndpoint(ctx.database.db, ctx.principal.tenantId, id));
}

/** Creates of one tenant take turns, so two cannot both pass the count at 19. */
async function lockTenantEndpoints(tx: Tx, tenantId: string) {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${tenantId}`}, 0))`,
  );
}

/** The endpoint and its secret, shown this once. 409 conflict at 20 endpoints; 503 without the key. */
export async function createEndpoint(
  ctx: WebhookContext,
  input: EndpointInput,
): Promise<EndpointView & { secret: string }> {
  checkUrl(ctx, input.url);
  const key = requireKey(ctx);
  const tenantId = ctx.principal.tenantId;
  return ctx.database.db.transaction(async (tx) => {
    await lockTenantEndpoints(tx, tenantId);
    const [held] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.tenantId, tenantId));
    if ((held?.n ?? 0) >= MAX_ENDPOINTS) {
      throw conflict(`a tenant keeps at most ${MAX_ENDPOINTS} webhook endpoints`, { max: MAX_ENDPOINTS });
    }
    // The id is made here: the secret is sealed bound to it before the row exists.
    const id = randomUUID();
    const secret = newSigningSecret();
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        tenantId,
        url: input.url,
        description: input.description ?? null,
        events: input.events,
        enabled: input.enabled ?? true,
        secretSealed: sealEndpointSecret(key, tenantId, id, secret),
        createdBy: ctx.principal.subject,
      })
      .returning();
    const created = row as EndpointRow;
    await auditEndpoint(tx, ctx, 'webhook_endpoint.created', id, {
      url: maskedUrl(created.url),
      description: created.description,
      events: created.events,
      enabled: created.enabled,
    });
    return { ...endpointView(created), secret };
  });
}

/**
 * PUT: url, description, events and enabled replaced as sent (description left out: none; enabled left
 * out: true), under the same URL rules; the secrets, the failing mark and the deliveries stay.
 */
export async function replaceEndpoint(
  ctx: WebhookContext,
  id: string,
  input: EndpointInput,
): Promise<EndpointView> {
  checkUrl(ctx, input.url);
  return ctx.database.db.transaction(async (tx) => {
    const before = await requireEndpoint(tx, ctx.principal.tenantId, id, true);
    const after = {
      url: input.url,
      description: input.description ?? null,
      events: input.events,
      enabled: input.enabled ?? true,
    };
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ ...after, updatedAt: new Date() })
      .where(eq(webhookEndpoints.id, before.id))
      .returning();
    const changed = (Object.keys(after) as (keyof typeof after)[]).filter(
      (field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]),
    );
    await auditEndpoint(tx, ctx, 'webhook_endpoint.updated', id, {
      url: maskedUrl(after.url),
      description: after.description,
      events: after.events,
      enabled: after.enabled,
      changed,
    });
    return endpointView(row as EndpointRow);
  });
}

/** DELETE: the endpoint and every delivery of it (the foreign key cascades). */
export async function deleteEndpoint(ctx: WebhookContext, id: string): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const endpoint = await requireEndpoint(tx, ctx.principal.tenantId, id, true);
    const [deliveries] = await tx
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    await auditEndpoint(tx, ctx, 'webhook_endpoint.deleted', id, {
      url: maskedUrl(endpoint.url),
      events: endpoint.events,
      deliveries: deliveries?.n ?? 0,
    });
  });
}

/**
 * A new secret, shown this once. The current one becomes the previous one and keeps signing (a second
 * v1) for 24 hours; rotating again within them replaces the previous one with the one current then, so
 * the secret before it stops signing at once.
 */
export async function rotateSecret(
  ctx: WebhookContext,
  id: string,
): Promise<{ secret: string; previousSecretUntil: string }> {
  const key = requireKey(ctx);
  return ctx.database.db.transaction(async (tx) => {
    const endpoint = await requireEndpoint(tx, ctx.principal.tenantId, id, true);
    const secret = newSigningSecret();
    const previousSecretUntil = new Date(Date.now() + ROTATION_OVERLAP_MS);
    await tx
      .update(webhookEndpoints)
      .set({
        secretSealed: sealEndpointSecret(key, endpoint.tenantId, endpoint.id, secret),
        previousSecretSealed: endpoint.secretSealed,
        previousSecretUntil,
        updatedAt: new Date(),
      })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await auditEndpoint(tx, ctx, 'webhook_endpoint.secret_rotated', id, {
      url: maskedUrl(endpoint.url),
      previousSecretUntil: previousSecretUntil.toISOString(),
    });
    return { secret, previousSecretUntil: previousSecretUntil.toISOString() };
  });
}
