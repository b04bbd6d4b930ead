// /webhook-endpoints: list, create, read, replace, delete, rotate the secret and send a test ping
// (endpoints-store.ts, ping.ts). Thin: schemas, permission, the service.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../http/responses.ts';
import { type WebhookRouteDeps, webhookContextOf } from '../route-context.ts';
import {
  CreatedEndpoint,
  Endpoint,
  EndpointBody,
  EndpointList,
  IdParams,
  RotatedSecret,
  TestResult,
} from '../schemas.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  replaceEndpoint,
  rotateSecret,
} from './endpoints-store.ts';
import { pingEndpoint } from './ping.ts';

const tags = ['webhook-endpoints'];

export function endpointRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/webhook-endpoints',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags,
          operationId: 'listWebhookEndpoints',
          summary: 'The tenant’s webhook endpoints, oldest first, with lastDeliveryAt and failing',
          response: { 200: EndpointList },
        },
      },
      async (request) => ({ items: await listEndpoints(webhookContextOf(deps, request)) }),
    );

    app.post(
      '/webhook-endpoints',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'createWebhookEndpoint',
          summary: 'Add a webhook endpoint; its signing secret is answered this once',
          description:
            'At most 20 endpoints per tenant (409 conflict, details.max). Without SECRET_STORE_KEY: 503 secret_store_unavailable, nothing written. An endpoint receives only events that happen after it is created.',
          body: EndpointBody,
          response: { 201: CreatedEndpoint, ...errors('conflict', 'secret_store_unavailable') },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await createEndpoint(webhookContextOf(deps, request), request.body)),
    );

    app.get(
      '/webhook-endpoints/:id',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags,
          operationId: 'getWebhookEndpoint',
          summary: 'A webhook endpoint',
          params: IdParams,
          response: { 200: Endpoint, ...errors('not_found') },
        },
      },
      async (request) => getEndpoint(webhookContextOf(deps, request), request.params.id),
    );

    app.put(
      '/webhook-endpoints/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'replaceWebhookEndpoint',
          summary: 'Replace an endpoint’s url, description, events and enabled (the secret is kept)',
          description:
            'Fields left out take their defaults: description none, enabled true. Deliveries already queued stay, and go to the new URL.',
          params: IdParams,
          body: EndpointBody,
          response: { 200: Endpoint, ...errors('not_found') },
        },
      },
      async (request) => replaceEndpoint(webhookContextOf(deps, request), request.params.id, request.body),
    );

    app.delete(
      '/webhook-endpoints/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'deleteWebhookEndpoint',
          summary: 'Remove a webhook endpoint and its deliveries',
          params: IdParams,
          response: { 204: Type.Null(), ...errors('not_found') },
        },
      },
      async (request, reply) => {
        await deleteEndpoint(webhookContextOf(deps, request), request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'rotateWebhookSecret',
          summary: 'A new signing secret, answered this once; the previous one keeps signing for 24 hours',
          description:
            'Until previousSecretUntil deliveries carry two v1 signatures. Rotating again within those 24 hours makes the secret current until then the previous one: the one before it stops signing at once.',
          params: IdParams,
          response: { 200: RotatedSecret, ...errors('not_found', 'secret_store_unavailable') },
        },
      },
      async (request) => rotateSecret(webhookContextOf(deps, request), request.params.id),
    );

    app.post(
      '/webhook-endpoints/:id/test',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags,
          operationId: 'testWebhookEndpoint',
          summary: 'Send a signed ping to the endpoint now and answer what happened',
          description:
            'The ping ({ type: "ping", resource { type: "webhook_endpoint" }, data {} }) goes under the same rules as deliveries (10 s, no redirects, checked addresses), to a disabled endpoint too. It is not a delivery: nothing is queued or retried.',
          params: IdParams,
          response: { 200: TestResult, ...errors('not_found', 'secret_store_unavailable') },
        },
      },
      async (request) => pingEndpoint(webhookContextOf(deps, request), deps.poster, request.params.id),
    );
  };
}
