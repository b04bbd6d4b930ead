// GET /webhook-deliveries, GET /webhook-deliveries/:id/attempts (attempts-store.ts), POST
// /webhook-deliveries/:id/retry and GET /workflow-runs/:id/related (deliveries-store.ts). The run's deliveries answer where runs are not served (no engine) too: they are read
// from the database alone.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { validationError } from '../../http/errors.ts';
import { pageOf } from '../../http/paging.ts';
import { errors } from '../../http/responses.ts';
import { type WebhookRouteDeps, webhookContextOf } from '../route-context.ts';
import {
  AttemptsQuery,
  DeliveriesQuery,
  Delivery,
  DeliveryAttempt,
  DeliveryList,
  IdParams,
} from '../schemas.ts';
import { listAttempts } from './attempts-store.ts';
import { listDeliveries, retryDelivery, runDeliveries } from './deliveries-store.ts';
import { timeFilterOf } from './time-filter-rules.ts';

const tags = ['webhook-deliveries'];

export function deliveryRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/webhook-deliveries',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags,
          operationId: 'listWebhookDeliveries',
          summary:
            'The tenant’s webhook deliveries, newest first (filters endpointId, status, event, workflowRunId, time or from and to)',
          querystring: DeliveriesQuery,
          response: { 200: pageOf(Delivery) },
        },
      },
      async (request) => {
        const { time, from, to, ...query } = request.query;
        const filter = timeFilterOf({ time, from, to });
        if ('refused' in filter) throw validationError([filter.refused]);
        return listDeliveries(deps.database.db, {
          ...query,
          ...filter.bounds,
          tenantId: principalOf(request).tenantId,
        });
      },
    );

    app.get(
      '/webhook-deliveries/:id/attempts',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags,
          operationId: 'listWebhookDeliveryAttempts',
          summary:
            'A delivery’s attempts, newest first: when, how long, the answer’s status, the error, the answer’s first KiB (needs runs:context)',
          params: IdParams,
          querystring: AttemptsQuery,
          response: { 200: pageOf(DeliveryAttempt), ...errors('not_found') },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return listAttempts(deps.database.db, {
          ...request.query,
          tenantId: principal.tenantId,
          deliveryId: request.params.id,
          withContext: principal.permissions.has('runs:context'),
        });
      },
    );

    app.post(
      '/webhook-deliveries/:id/retry',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'retryWebhookDelivery',
          summary: 'Make a failed, exhausted or pending delivery due now (409 for a delivered one)',
          description:
            'Attempts are kept: an exhausted delivery gets one more attempt, and is exhausted again if that fails.',
          params: IdParams,
          response: { 200: Delivery, ...errors('not_found', 'conflict') },
        },
      },
      async (request) => retryDelivery(webhookContextOf(deps, request), request.params.id),
    );

    app.get(
      '/workflow-runs/:id/related',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags: ['workflow-runs'],
          operationId: 'listWorkflowRunDeliveries',
          summary:
            'The webhook deliveries of a run’s events (its end, its decisions, its cases), newest first',
          params: IdParams,
          response: { 200: DeliveryList, ...errors('not_found') },
        },
      },
      async (request) => ({
        items: await runDeliveries(deps.database.db, principalOf(request).tenantId, request.params.id),
      }),
    );
  };
}
