// The outbound webhooks' front door: the api's routes, and what the worker's trail reader and sender use.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deliveryRoutes } from './deliveries/deliveries-routes.ts';
import { endpointRoutes } from './endpoints/endpoints-routes.ts';
import { eventRoutes } from './fan-out/events-routes.ts';
import type { WebhookRouteDeps } from './route-context.ts';

export { type OutboundBackground, startOutboundWebhooks } from './background.ts';
export { DELIVERY_STATUSES, type DeliveryStatus } from './deliveries/deliveries-store.ts';
export { ROTATION_OVERLAP_MS, sealEndpointSecret, signingSecrets } from './endpoints/endpoint-secrets.ts';
export { failingEndpointRows } from './endpoints/failing-store.ts';
export { maskedUrl } from './endpoints/url-mask-rules.ts';
export { endpointUrlRefusal } from './endpoints/url-rules.ts';
export { type EventBody, type EventSource, eventBody } from './fan-out/event-body.ts';
export {
  EVENT_OF_ACTION,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  type EventType,
  PING,
} from './fan-out/event-types.ts';
export { type FanoutResult, fanoutPass, TRAIL_HOLD_MS } from './fan-out/fan-out-store.ts';
export {
  DELIVERY_TIMEOUT_MS,
  DeliveryPoster,
  type OutgoingDelivery,
  type PostResult,
} from './sending/post.ts';
export { type DeliverySender, startDeliverySender } from './sending/sender.ts';
export { newSigningSecret, signatureHeader } from './sending/signing.ts';
export { type Verdict, verifyDelivery } from './sending/verify.ts';
export {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookTrailCursor,
} from './tables.ts';
export type { WebhookRouteDeps };

/** Every outbound webhook route: endpoints, deliveries (and a run's), the event catalogue. */
export function outboundWebhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(eventRoutes);
    await app.register(endpointRoutes(deps));
    await app.register(deliveryRoutes(deps));
  };
}
