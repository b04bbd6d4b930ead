// The outbound webhooks' front door: the api's routes, and what the worker's trail reader and sender use.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deliveryRoutes } from './delivery-routes.ts';
import { endpointRoutes } from './endpoint-routes.ts';
import { eventRoutes } from './event-routes.ts';
import type { WebhookRouteDeps } from './route-context.ts';

export { failingEndpoints } from './attention.ts';
export { type OutboundBackground, startOutboundWebhooks } from './background.ts';
export { DELIVERY_STATUSES, type DeliveryStatus } from './deliveries.ts';
export { ROTATION_OVERLAP_MS, sealEndpointSecret, signingSecrets } from './endpoint-secrets.ts';
export { type EventBody, type EventSource, eventBody } from './event-body.ts';
export { EVENT_OF_ACTION, EVENT_TYPE_NAMES, EVENT_TYPES, type EventType, PING } from './event-types.ts';
export { type FanoutResult, fanoutPass, TRAIL_HOLD_MS } from './fanout.ts';
export { DELIVERY_TIMEOUT_MS, DeliveryPoster, type OutgoingDelivery, type PostResult } from './post.ts';
export { type DeliverySender, startDeliverySender } from './sender.ts';
export { newSigningSecret, signatureHeader } from './signing.ts';
export {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookTrailCursor,
} from './tables.ts';
export { maskedUrl } from './url-mask.ts';
export { endpointUrlRefusal } from './url-rules.ts';
export { type Verdict, verifyDelivery } from './verify.ts';
export type { WebhookRouteDeps };

/** Every outbound webhook route: endpoints, deliveries (and a run's), the event catalogue. */
export function outboundWebhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(eventRoutes);
    await app.register(endpointRoutes(deps));
    await app.register(deliveryRoutes(deps));
  };
}
