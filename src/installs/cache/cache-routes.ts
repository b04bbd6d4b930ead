// Cached values of an install (docs/cached-values.md): the listing (never a value) and the manual clear.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/responses.ts';
import { installContextOf } from '../context.ts';
import { InstallParams } from '../routes.ts';
import { CacheClearedSchema, CacheListingSchema } from '../schemas.ts';
import { clearCacheManually, listInstallCache } from './cache.ts';

export const cacheRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/app-installs/:install/cache',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['app-installs'],
        operationId: 'listInstallCache',
        summary: 'The install’s live cached values (names, expiries, sizes; never a value) and its budget',
        params: InstallParams,
        response: { 200: CacheListingSchema, ...errors('unknown_install') },
      },
    },
    async (request) => listInstallCache(installContextOf(request), request.params.install),
  );

  app.delete(
    '/app-installs/:install/cache',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'clearInstallCache',
        summary: 'Clear the install’s cached values, also for calls already running',
        params: InstallParams,
        response: { 200: CacheClearedSchema, ...errors('unknown_install') },
      },
    },
    async (request) => clearCacheManually(installContextOf(request), request.params.install),
  );
};
