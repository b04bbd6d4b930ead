// POST /webhook-endpoints/:id/test: a signed ping sent now, through the same poster and address rules
// as every delivery, to the endpoint whether it is enabled or not. It is no delivery: nothing is queued
// or retried, no delivery or attempt row is written; only webhook_endpoint.tested is audited (with what
// happened). The receiver's answer body is neither kept nor answered.
import { randomUUID } from 'node:crypto';
import type { EventBody } from '../fan-out/event-body.ts';
import { PING } from '../fan-out/event-types.ts';
import type { DeliveryPoster, PostResult } from '../sending/post.ts';
import { signingSecrets } from './endpoint-secrets.ts';
import { auditEndpoint, requireEndpoint, requireKey, type WebhookContext } from './endpoints-store.ts';
import { maskedUrl } from './url-mask-rules.ts';

/** The one thing of a poster a ping needs. */
export type Poster = Pick<DeliveryPoster, 'post'>;

export function pingBody(tenantId: string, endpointId: string, now: Date): EventBody {
  return {
    id: randomUUID(),
    type: PING,
    occurredAt: now.toISOString(),
    tenantId,
    resource: { type: 'webhook_endpoint', id: endpointId },
    data: {},
  };
}

/** What a ping answers: what happened, without the receiver's body. */
export type PingResult = Omit<PostResult, 'responseBody'>;

export async function pingEndpoint(ctx: WebhookContext, poster: Poster, id: string): Promise<PingResult> {
  const key = requireKey(ctx);
  const endpoint = await requireEndpoint(ctx.database.db, ctx.principal.tenantId, id);
  const now = new Date();
  const secrets = signingSecrets(key, endpoint, now);
  // Sealed under another key (SECRET_STORE_KEY changed since): nothing is sent unsigned.
  const { responseBody: _body, ...result }: PostResult =
    secrets === null
      ? {
          delivered: false,
          responseCode: null,
          latencyMs: 0,
          error: 'the endpoint’s secret does not open with this deployment’s key: rotate it',
          responseBody: null,
        }
      : await poster.post({
          url: endpoint.url,
          endpointId: endpoint.id,
          eventType: PING,
          deliveryId: randomUUID(),
          body: JSON.stringify(pingBody(endpoint.tenantId, endpoint.id, now)),
          secrets,
        });
  await auditEndpoint(ctx.database.db, ctx, 'webhook_endpoint.tested', endpoint.id, {
    url: maskedUrl(endpoint.url),
    enabled: endpoint.enabled,
    delivered: result.delivered,
    responseCode: result.responseCode,
    latencyMs: result.latencyMs,
    ...(result.error !== undefined ? { error: result.error } : {}),
  });
  return result;
}
