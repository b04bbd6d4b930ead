import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { PLATFORM_VERSION } from '../version.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
});

/** Liveness (the process answers) and readiness (its database answers); public and never rate limited. */
export function healthRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { public: true, rateLimit: false } as const;
    app.get('/health', { config, schema: { tags: ['health'], response: { 200: Health } } }, async () => ({
      status: 'ok' as const,
      version: PLATFORM_VERSION,
    }));
    app.get(
      '/health/ready',
      { config, schema: { tags: ['health'], response: { 200: Health, 503: Health } } },
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
