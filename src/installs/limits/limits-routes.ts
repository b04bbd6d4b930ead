// GET and PUT /app-installs/:install/limits (docs/limits-and-metering.md): the install's currency, prices
// and budgets. Both need apps:write, since the record shows spend. Thin: the schema shapes the body,
// limits.ts checks the rules and saves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/responses.ts';
import { installContextOf } from '../context.ts';
import { InstallParams } from '../routes.ts';
import { LimitsRecordSchema } from '../schemas.ts';
import { getLimits, saveLimits } from './limits.ts';

export const limitsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/app-installs/:install/limits',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'getInstallLimits',
        summary: 'The install’s limits record: currency, prices per action, budgets',
        params: InstallParams,
        response: { 200: LimitsRecordSchema, ...errors('unknown_install') },
      },
    },
    async (request) => getLimits(installContextOf(request), request.params.install),
  );

  app.put(
    '/app-installs/:install/limits',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'saveInstallLimits',
        summary: 'Replace the install’s limits record',
        description:
          'A currency other than the one the install spent in this UTC month answers 409 conflict.',
        params: InstallParams,
        body: LimitsRecordSchema,
        response: { 200: LimitsRecordSchema, ...errors('unknown_install', 'conflict') },
      },
    },
    async (request) => saveLimits(installContextOf(request), request.params.install, request.body),
  );
};
