// The install routes as one encapsulated Fastify scope: /app-installs and /app-install-changes, with the
// routes other layers add to it (the test call, the metering reports, the apps' health). Where the
// deployment runs no apps, one hook answers 503 apps_unavailable for all of them; otherwise it resolves
// the request's install context once, for the handler to read (installContextOf).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../http/errors.ts';
import { cacheRoutes } from './cache/cache-routes.ts';
import { changesRoutes } from './changes/changes-routes.ts';
import { buildInstallContext, type InstallRouteDeps } from './context.ts';
import { limitsRoutes } from './limits/limits-routes.ts';
import { installRoutes } from './routes.ts';

/** The scope of the install routes, then `others` (route plugins of other layers that read the context). */
export function installRoutesScope(
  deps: InstallRouteDeps,
  others: FastifyPluginAsyncTypebox[],
): FastifyPluginAsyncTypebox {
  return async (scope) => {
    scope.decorateRequest('installContext', null);
    // preHandler runs after authentication, the permission check and validation, so those refusals
    // (401, 403, 400) still come before apps_unavailable, as when each handler checked.
    scope.addHook('preHandler', async (request) => {
      if (!deps.available)
        throw new ApiError('apps_unavailable', 'this deployment has no app runner or no module storage');
      request.installContext = buildInstallContext(deps, request);
    });
    for (const routes of [installRoutes, changesRoutes, limitsRoutes, cacheRoutes, ...others]) {
      await scope.register(routes);
    }
  };
}
