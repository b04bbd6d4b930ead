// Routes of the internal listener, for runners only: module bytes under the runner bearer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { bearerOf, sameSecret } from '../auth/shared-secret.ts';
import { ApiError, notFound } from '../http/errors.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';

export interface InternalDeps {
  runnerToken: string;
  modules: ModuleStorage;
  /** Whether a stored module may be served (published and not blocked; the catalogue decides). */
  servable?: (sha256: string) => Promise<boolean>;
}

export function internalRoutes(deps: InternalDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/app-modules/:sha256',
      {
        config: { public: true },
        schema: { params: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }) },
      },
      async (request, reply) => {
        const token = bearerOf(request.headers.authorization);
        if (!token || !sameSecret(token, deps.runnerToken)) {
          throw new ApiError(401, 'unauthorized', 'the runner bearer token is missing or wrong');
        }
        const { sha256 } = request.params;
        if (deps.servable && !(await deps.servable(sha256)))
          throw notFound('no published module has that hash');
        const bytes = await deps.modules.get(sha256);
        if (!bytes) throw notFound('no published module has that hash');
        return reply.header('content-type', 'application/wasm').send(Buffer.from(bytes));
      },
    );
  };
}
