// Placeholder: filled by the cache change.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstallRouteDeps } from './context.ts';

export function cacheRoutes(_deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async () => {};
}
