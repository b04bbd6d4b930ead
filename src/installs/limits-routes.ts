// Placeholder: filled by the limits change.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstallRouteDeps } from './context.ts';

export function limitsRoutes(_deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async () => {};
}
