// POST /webhooks/app-installs/:installId (docs/callbacks.md "Vendor webhooks"): public — the vendor has no
// token; the install's module checks the vendor's signature — and thin: the raw body, headers and query
// go to the service (webhook.ts) as they came.

import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AttemptSlots } from '../calls/index.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { errors } from '../http/responses.ts';
import type { RunnerClient } from '../runner/index.ts';
import { countWebhook } from '../telemetry/index.ts';
import { receiveWebhook, type Wake } from './webhook.ts';
import { type WebhookAnswer, webhookResultOf } from './webhook-rules.ts';

/** The largest body a vendor may send (the module gets it byte for byte); more is 413 payload_too_large. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

export interface WebhookRouteDeps {
  database: Database;
  config: Config;
  /**
   * Null where the deployment runs no apps (no runner or no module storage): at step 4, 502
   * app_webhook_failed with reason apps_unavailable, the table's answer for a runner that cannot run it.
   */
  runner: RunnerClient | null;
  /** Starts a settled session's run continuation (RunsEngine.resume); null: the worker's resumer does. */
  wake: Wake | null;
}

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('timed_out'),
]);
const CallbackId = Type.String({ format: 'uuid', description: 'The vendor session (GET /app-callbacks)' });
const closed = { additionalProperties: false } as const;

const Received = Type.Union(
  [
    Type.Object(
      { received: Type.Literal(true), accepted: Type.Literal(true), callbackId: CallbackId, status: Status },
      { ...closed, title: 'Accepted', description: 'A pending event: recorded, the session stays pending' },
    ),
    Type.Object(
      { received: Type.Literal(true), callbackId: CallbackId, status: Status },
      {
        ...closed,
        title: 'Settled',
        description: 'The event completed or failed the session, and its run moves on',
      },
    ),
    Type.Object(
      { received: Type.Literal(false), ignored: Type.Literal(true) },
      { ...closed, title: 'Ignored', description: 'The app had nothing for the platform in it' },
    ),
  ],
  {
    description:
      'The app took the delivery: an event recorded on the session (accepted, or settling it), or nothing for the platform (ignored)',
    examples: [{ received: true, callbackId: '7d0f3c52-1a3e-4c1b-9a55-2b8f0e6c1d11', status: 'completed' }],
  },
);

const NotReceived = Type.Union(
  [
    Type.Object(
      { received: Type.Literal(false), duplicate: Type.Literal(true) },
      { ...closed, title: 'Duplicate', description: 'The install received this event id before' },
    ),
    Type.Object(
      { received: Type.Literal(false), stale: Type.Literal(true), callbackId: CallbackId, status: Status },
      {
        ...closed,
        title: 'Stale',
        description: 'The session had settled or timed out: event recorded, session unchanged',
      },
    ),
  ],
  {
    description:
      'Nothing new: the install received this event id before (duplicate), or the session had settled (stale)',
    examples: [{ received: false, duplicate: true }],
  },
);

const Params = Type.Object({
  installId: Type.String({ description: 'The install’s id, as its webhookUrl names it' }),
});
const Query = Type.Object(
  {
    externalId: Type.Optional(
      Type.String({ description: 'The session’s external id, when the vendor cannot say it elsewhere' }),
    ),
  },
  // The vendor's own query parameters reach the module as they came.
  { additionalProperties: true },
);

export function webhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // This process's deliveries take turns for the runner within its bounds (webhook-call.ts).
    const slots = new AttemptSlots(deps.config.runnerConcurrency, deps.config.runnerTenantConcurrency);
    // The module checks a signature over exactly the bytes the vendor sent: every body, JSON included,
    // reaches it unparsed (this scope only).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES },
      (_r, body, done) => done(null, body),
    );
    app.post(
      '/webhooks/app-installs/:installId',
      {
        bodyLimit: MAX_WEBHOOK_BODY_BYTES,
        config: { public: true, accepts: '*/*' },
        schema: {
          tags: ['vendor-webhooks'],
          operationId: 'receiveVendorWebhook',
          summary:
            'A vendor’s event for an install’s session: any body up to 256 KiB, handed to the app byte for byte',
          params: Params,
          querystring: Query,
          response: {
            200: NotReceived,
            202: Received,
            ...errors(
              'missing_external_id',
              'webhook_rejected',
              'unknown_install',
              'not_found',
              'app_blocked',
              'app_webhook_failed',
            ),
          },
        },
      },
      async (request, reply) => {
        const answer = await counted(() => received(deps, slots, request));
        return reply.status(answer.statusCode).send(answer.body);
      },
    );
  };
}

/** Counts what a delivery came to in service.app.webhooks, its answer or its refusal. */
async function counted(receive: () => Promise<WebhookAnswer>): Promise<WebhookAnswer> {
  try {
    const answer = await receive();
    countWebhook(webhookResultOf({ answer }));
    return answer;
  } catch (error) {
    countWebhook(webhookResultOf({ errorCode: error instanceof ApiError ? error.code : null }));
    throw error;
  }
}

type WebhookRequest = Pick<FastifyRequest, 'method' | 'headers' | 'query' | 'body' | 'id' | 'log'> & {
  params: { installId: string };
};

/** The delivery through the vendor webhook's pipeline (webhook.ts). */
async function received(deps: WebhookRouteDeps, slots: AttemptSlots, request: WebhookRequest) {
  return receiveWebhook(
    {
      database: deps.database,
      runner: deps.runner,
      secretStoreKey: deps.config.secretStoreKey,
      cacheBudget: deps.config.cacheBudget,
      webhookBase: deps.config.webhookPublicUrl,
      slots,
      wake: deps.wake,
    },
    {
      installId: request.params.installId,
      method: request.method,
      headers: headerTexts(request.headers),
      query: request.query as Record<string, string | string[]>,
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    },
    { requestId: request.id, log: request.log },
  );
}

/** Headers as the module reads them: lower-case names (Node's), a repeated header's values joined. */
function headerTexts(headers: IncomingHttpHeaders): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) texts[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return texts;
}
