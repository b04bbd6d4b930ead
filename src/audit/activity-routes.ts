import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { nullable } from '../http/responses.ts';
import { listActivity } from './activity.ts';

export const ACTIVITY_LIMIT = { minimum: 1, maximum: 50, default: 5 } as const;

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ActivityItemSchema = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: 'The audit record’s id (GET /audit-events), a version 7 UUID',
    }),
    occurredAt: Type.String({ format: 'date-time' }),
    action: Type.String({
      description:
        'case.decided, case.sla.breached; with definitions:read also workflow.published, rule_set.published and definition.approval.requested, .approved, .rejected, .withdrawn',
    }),
    actor: Type.Object(
      {
        type: Type.String({ description: 'user, machine, applicant, operator or system' }),
        id: Type.String(),
        name: nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
    text: Type.String({
      description: 'A sentence naming the actor, e.g. “Ana Ruiz published workflow onboarding version 3”',
    }),
    href: nullable(
      Type.String({
        description:
          'The console page, relative to the console’s root: /cases/<id>, /workflows/<key>/versions/<n>, /rule-sets/<key>/versions/<n>',
      }),
    ),
    tone: Type.Union([Type.Literal('neutral'), Type.Literal('alert')], {
      description: 'alert for case.sla.breached and definition.approval.rejected, neutral otherwise',
    }),
    data: Type.Object(
      {
        outcome: Type.Optional(Scalar),
        kind: Type.Optional(Scalar),
        key: Type.Optional(Scalar),
        version: Type.Optional(Scalar),
      },
      {
        additionalProperties: false,
        description:
          'The record’s payload trimmed to outcome, kind, key and version; the rest is in GET /audit-events (audit:read)',
      },
    ),
  },
  { additionalProperties: false, title: 'ActivityItem' },
);

export function activityRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/activity',
      {
        schema: {
          tags: ['audit'],
          operationId: 'listActivity',
          summary:
            'The tenant’s newest case decisions and SLA breaches, with publishes and approvals for definitions:read',
          querystring: Type.Object(
            {
              limit: Type.Integer({
                ...ACTIVITY_LIMIT,
                description: `Items, ${ACTIVITY_LIMIT.minimum} to ${ACTIVITY_LIMIT.maximum} (default ${ACTIVITY_LIMIT.default})`,
              }),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object(
              { items: Type.Array(ActivityItemSchema, { description: 'Newest first' }) },
              { additionalProperties: false },
            ),
          },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const items = await listActivity(database.db, {
          tenantId: principal.tenantId,
          limit: request.query.limit,
          definitionsRead: principal.permissions.has('definitions:read'),
        });
        return { items };
      },
    );
  };
}
