// Call routes: POST /app-installs/:install/test (spec part 1 §4.2) and GET /app-installs/metering. Steps and rules call installs from
// workflows (calls issue), not over HTTP.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../http/responses.ts';
import { type InstallRouteDeps, installContextOf } from '../installs/context.ts';
import { InstallParams, Name } from '../installs/routes.ts';
import { meteringReport } from './metering-report.ts';
import { MeteringReport, TestCallAnswer } from './schemas.ts';
import { testCallAnswer, testInstall } from './test-call.ts';

const TestBody = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 100 }),
    input: Type.Optional(Type.Unknown({ default: {}, description: 'The action’s input; {} when left out' })),
  },
  {
    additionalProperties: false,
    examples: [{ action: 'screen', input: { fullName: 'Ada Lovelace', birthDate: '1815-12-10' } }],
  },
);

const Day = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$' });
const MeteringQuery = Type.Object(
  { install: Type.Optional(Name), from: Type.Optional(Day), to: Type.Optional(Day) },
  { additionalProperties: false },
);

export function callRoutes(deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/app-installs/metering',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['app-installs'],
          operationId: 'getInstallMetering',
          summary: 'What installs used per UTC day and action (spend only with apps:write)',
          querystring: MeteringQuery,
          response: { 200: MeteringReport },
        },
      },
      async (request) => {
        const ctx = installContextOf(deps, request);
        return meteringReport(ctx.database.db, {
          tenantId: ctx.principal.tenantId,
          ...request.query,
          withSpend: ctx.principal.permissions.has('apps:write'),
        });
      },
    );

    app.post(
      '/app-installs/:install/test',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          operationId: 'testInstall',
          summary: 'Call one action of the install once (enabled or not); metered, not recorded',
          params: InstallParams,
          body: TestBody,
          // 404 unknown_install; 409 install_not_configured (secrets missing) or app_blocked
          response: { 200: TestCallAnswer, ...errors(404, 409) },
        },
      },
      async (request) => {
        const ctx = installContextOf(deps, request);
        const runner = deps.runner;
        if (!runner) throw new Error('apps are available only with a runner');
        const outcome = await testInstall(
          ctx,
          {
            database: deps.database,
            runner,
            secretStoreKey: deps.config.secretStoreKey,
            cacheBudget: deps.config.cacheBudget,
            callTokenSecret: deps.config.appCallTokenSecret,
          },
          request.params.install,
          request.body,
        );
        return testCallAnswer(outcome);
      },
    );
  };
}
