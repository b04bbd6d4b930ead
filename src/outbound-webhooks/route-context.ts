// What the outbound webhook routes are given, and the service context of one request.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import type { WebhookContext } from './endpoints/endpoints-store.ts';
import type { Poster } from './endpoints/ping.ts';

export interface WebhookRouteDeps {
  database: Database;
  config: Pick<Config, 'secretStoreKey' | 'webhookAllowPrivateNetworks'>;
  /** Sends test pings: the api's one DeliveryPoster. */
  poster: Poster;
}

export const webhookContextOf = (deps: WebhookRouteDeps, request: FastifyRequest): WebhookContext => ({
  database: deps.database,
  principal: principalOf(request),
  requestId: request.id,
  secretStoreKey: deps.config.secretStoreKey,
  allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks,
});
