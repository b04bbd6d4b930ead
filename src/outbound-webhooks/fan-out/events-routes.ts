// GET /webhook-events: the event catalogue (event-types.ts) with a sample body per type (event-samples.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { EventCatalogue } from '../schemas.ts';
import { sampleBody } from './event-samples.ts';
import { EVENT_TYPES, PING } from './event-types.ts';

const PING_ENTRY = {
  type: PING,
  actions: [] as string[],
  resourceType: 'webhook_endpoint',
  description: 'POST /webhook-endpoints/:id/test sends it; the trail never raises it.',
};

export function eventCatalogue(tenantId?: string) {
  return [...EVENT_TYPES, PING_ENTRY].map((event) => ({
    type: event.type,
    description: event.description,
    actions: [...event.actions],
    resourceType: event.resourceType,
    // Every type has one (test/outbound-webhooks/event-samples.test.ts).
    sample: sampleBody(event.type, tenantId) as NonNullable<ReturnType<typeof sampleBody>>,
  }));
}

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook-events',
    {
      config: { permission: 'webhooks:read' },
      schema: {
        tags: ['webhook-events'],
        operationId: 'listWebhookEvents',
        summary: 'The event types an endpoint may subscribe to, each with a sample body (and the test ping)',
        response: { 200: EventCatalogue },
      },
    },
    async (request) => ({ items: eventCatalogue(principalOf(request).tenantId) }),
  );
};
