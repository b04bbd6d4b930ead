// Placeholder: filled by the test-call change.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstallRouteDeps } from '../installs/context.ts';

export function callRoutes(_deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async () => {};
}
