import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { PLATFORM_VERSION } from '../version.ts';

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    version: Type.String({ description: 'The platform version' }),
  },
  { additionalProperties: false, title: 'Health' },
);

/** Liveness (the process answers) and readiness (its database answers); public and never rate limited. */
export function healthRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { public: true, rateLimit: false } as const;
    app.get(
      '/health',
      {
        config,
        schema: {
          tags: ['health'],
          operationId: 'getHealth',
          summary: 'Liveness: the process answers',
          response: { 200: Health },
        },
      },
      async () => ({ status: 'ok' as const, version: PLATFORM_VERSION }),
    );
    app.get(
      '/health/ready',
      {
        config,
        schema: {
          tags: ['health'],
          operationId: 'getReadiness',
          summary: 'Readiness: the process and its database answer (503 with status unavailable when not)',
          response: { 200: Health, 503: Health },
        },
      },
      async (_request, reply) => {
        try {
          await database.pool.query('SELECT 1');
          return { status: 'ok' as const, version: PLATFORM_VERSION };
        } catch {
          return reply.status(503).send({ status: 'unavailable' as const, version: PLATFORM_VERSION });
        }
      },
    );
  };
}
