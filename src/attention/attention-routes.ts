import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { nullable } from '../http/responses.ts';
import type { UpgradeReading } from '../installs/index.ts';
import { readAttention, sourcesOf } from './attention.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const AttentionSchema = Type.Object(
  {
    counts: Type.Object(
      {
        installChangesPending: Count('Open install changes (apps:read; else 0)'),
        installUpgradesWaiting: Count('Installs whose automatic upgrade waits (apps:read; else 0)'),
        failingEndpoints: Count(
          'Outbound webhook endpoints failing (webhooks:read); 0 until this service has outbound webhook endpoints',
        ),
      },
      { additionalProperties: false },
    ),
    items: Type.Array(
      Type.Object(
        {
          kind: Type.Union([
            Type.Literal('install_change_pending'),
            Type.Literal('install_upgrade_waiting'),
            Type.Literal('webhook_endpoint_failing'),
          ]),
          resource: Type.Object(
            {
              type: Type.String({ description: 'app_install_change, app_install or webhook_endpoint' }),
              id: Type.String(),
            },
            { additionalProperties: false },
          ),
          title: Type.String({ description: 'A sentence saying what waits, e.g. who asked for a change' }),
          href: nullable(
            Type.String({
              description:
                'The console page, relative to the console’s root: /apps/installs/<name>/changes/<id>, /apps/installs/<name>',
            }),
          ),
          since: Type.String({ format: 'date-time', description: 'Since when it waits' }),
        },
        { additionalProperties: false, title: 'AttentionItem' },
      ),
      { description: 'By kind (changes, upgrades, endpoints), each oldest first' },
    ),
  },
  { additionalProperties: false, title: 'Attention' },
);

/** GET /attention; `upgrades`: what deciding a waiting upgrade reads (who calls installs, host rules). */
export function attentionRoutes(database: Database, upgrades: UpgradeReading): FastifyPluginAsyncTypebox {
  const sources = sourcesOf(upgrades);
  return async (app) => {
    app.get(
      '/attention',
      {
        schema: {
          tags: ['attention'],
          operationId: 'getAttention',
          summary: 'What waits for someone in the tenant: open install changes and waiting upgrades (Home)',
          response: { 200: AttentionSchema },
        },
      },
      async (request) => readAttention(database.db, principalOf(request), sources),
    );
  };
}
