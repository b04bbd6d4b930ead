import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { notFound } from '../http/errors.ts';
import { pageOf, pageQuery } from '../http/paging.ts';
import { errors } from '../http/responses.ts';
import { listNotifications, markRead } from './service.ts';

const Notification = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: Type.String({
      description:
        'approval_requested, approval_decided, install_change_pending, install_upgrade_waiting, app_upgraded, app_degraded, app_blocked, app_quota_exceeded, app_review_decided, webhook_endpoint_failing',
    }),
    resource: Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false }),
    data: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Type.String({ format: 'date-time' }),
    read: Type.Boolean(),
  },
  { additionalProperties: false, title: 'Notification' },
);

export function notificationRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/notifications',
      {
        schema: {
          tags: ['notifications'],
          operationId: 'listNotifications',
          summary: 'The current principal’s notifications, newest first',
          querystring: Type.Object(
            {
              ...pageQuery(),
              unread: Type.Optional(
                Type.Boolean({
                  default: false,
                  description: 'true: only the notifications the current principal has not marked read',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 200: pageOf(Notification) },
        },
      },
      async (request) =>
        listNotifications(database.db, principalOf(request), {
          ...request.query,
          unread: request.query.unread === true,
        }),
    );
    app.post(
      '/notifications/:id/read',
      {
        schema: {
          tags: ['notifications'],
          operationId: 'markNotificationRead',
          summary: 'Mark a notification read for the current principal',
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          response: { 204: Type.Null(), ...errors('not_found') },
        },
      },
      async (request, reply) => {
        if (!(await markRead(database.db, principalOf(request), request.params.id)))
          throw notFound('notification not found');
        return reply.status(204).send(null);
      },
    );
  };
}
