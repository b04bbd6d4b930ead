// GET /app-callbacks: the tenant's vendor sessions; GET /app-callbacks/:id, one; GET
// /app-callbacks/:id/events, the vendor webhooks it received (listing.ts). Read from the database alone, it answers
// without a runner or module storage too, so it is registered outside the install routes' scope (whose
// hook answers 503 apps_unavailable where apps are off), as the invocation records are.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { pageOf, pageQuery } from '../http/paging.ts';
import { errors } from '../http/responses.ts';
import { getCallback, listCallbacks, listSessionEvents } from './listing-store.ts';
import { CALLBACK_STATUSES, CallbackSession, ReceivedEvent } from './session-view.ts';
import type { CallbackStatus } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });

const CallbacksQuery = Type.Object(
  {
    install: Type.Optional(
      Type.String({
        // An install name's form (1 to 100 lower-case letters, digits and hyphens).
        pattern: '^[a-z0-9][a-z0-9-]{0,99}$',
        description:
          'An install name: sessions opened under it, and sessions of the install that bears it now (renamed since)',
      }),
    ),
    installId: Type.Optional(Uuid),
    workflowRunId: Type.Optional(Uuid),
    status: Type.Optional(
      Type.Unsafe<CallbackStatus>({
        type: 'string',
        enum: [...CALLBACK_STATUSES],
        description: 'Sessions in this status',
      }),
    ),
    // The same page bounds as the other record listings: 1 to 100 a page, 50 by default.
    ...pageQuery(),
  },
  { additionalProperties: false },
);

const SessionParams = Type.Object({ id: Uuid }, { additionalProperties: false });
const EventsQuery = Type.Object({ ...pageQuery() }, { additionalProperties: false });
const tags = ['app-callbacks'];

export function callbackRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/app-callbacks',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'listCallbacks',
          summary:
            'Vendor sessions of asynchronous actions, newest first (output and error text need runs:context)',
          querystring: CallbacksQuery,
          response: { 200: pageOf(CallbackSession) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return listCallbacks(
          database.db,
          { ...request.query, tenantId: principal.tenantId },
          principal.permissions.has('runs:context'),
        );
      },
    );

    app.get(
      '/app-callbacks/:id',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'getCallback',
          summary: 'One vendor session (output and error text need runs:context)',
          params: SessionParams,
          // 404 not_found: no session of that id in the tenant
          response: { 200: CallbackSession, ...errors('not_found') },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return getCallback(
          database.db,
          principal.tenantId,
          request.params.id,
          principal.permissions.has('runs:context'),
        );
      },
    );

    app.get(
      '/app-callbacks/:id/events',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'listCallbackEvents',
          summary:
            'The vendor webhooks a session received, newest first: event id, reported status and what each did (never the body)',
          params: SessionParams,
          querystring: EventsQuery,
          // 404 not_found: no session of that id in the tenant
          response: { 200: pageOf(ReceivedEvent), ...errors('not_found') },
        },
      },
      async (request) =>
        listSessionEvents(database.db, {
          ...request.query,
          id: request.params.id,
          tenantId: principalOf(request).tenantId,
        }),
    );
  };
}
