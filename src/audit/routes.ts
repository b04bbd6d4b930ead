import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { pageOf, pageQuery } from '../http/paging.ts';
import { timeBoundsOf, timeRangeQuery } from '../http/time-range.ts';
import { listAuditEvents } from './trail.ts';

const Actor = Type.Object(
  {
    type: Type.String({ description: 'user, machine, applicant, operator or system' }),
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description:
        'The record’s id: a version 7 UUID (the time of writing, then random bits). The list’s order is the trail’s, newest first.',
    }),
    tenantId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    action: Type.String(),
    actor: Actor,
    resource: Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false }),
    data: Type.Record(Type.String(), Type.Unknown()),
    requestId: Type.Union([Type.String(), Type.Null()]),
    occurredAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'AuditEvent' },
);

const Query = Type.Object(
  {
    ...pageQuery(),
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[a-z0-9_.]+(\\*)?$',
        description: 'An exact action, or a prefix ending in a dot or `.*` (app. or app.install.*).',
      }),
    ),
    ...timeRangeQuery('occurredAt'),
  },
  { additionalProperties: false },
);

export function auditRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/audit-events',
      {
        config: { permission: 'audit:read' },
        schema: {
          tags: ['audit'],
          operationId: 'listAuditEvents',
          summary: 'The tenant audit trail, newest first',
          querystring: Query,
          response: { 200: pageOf(AuditEventSchema) },
        },
      },
      async (request) => {
        const { tenantId } = principalOf(request);
        const { limit, offset, action, from, to } = request.query;
        return listAuditEvents(database.db, {
          tenantId,
          action,
          ...timeBoundsOf({ from, to }),
          limit,
          offset,
        });
      },
    );
  };
}
