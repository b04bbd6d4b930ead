// Placeholder: filled by the changes change.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstallRouteDeps } from './context.ts';

export function changesRoutes(_deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async () => {};
}
