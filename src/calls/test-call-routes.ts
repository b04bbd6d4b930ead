// POST /app-installs/:install/test (docs/calls.md "Test call"): one action of an install, called once.
// A route of the install routes' scope (src/installs/routes-scope.ts), which answers for it where apps
// are off and resolves its install context.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../http/responses.ts';
import { InstallParams, type InstallRouteDeps, installContextOf } from '../installs/index.ts';
import { attemptDepsOf } from './attempt.ts';
import { TestCallAnswer } from './schemas.ts';
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

export function testCallRoutes(deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
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
          response: {
            200: TestCallAnswer,
            ...errors(
              'unknown_install',
              'install_not_configured',
              'app_blocked',
              'app_quota_exceeded',
              'secret_store_unavailable',
            ),
          },
        },
      },
      async (request) => {
        const ctx = installContextOf(request);
        const runner = deps.runner;
        if (!runner) throw new Error('apps are available only with a runner');
        const outcome = await testInstall(
          ctx,
          attemptDepsOf(deps.config, deps.database, runner),
          request.params.install,
          request.body,
        );
        return testCallAnswer(outcome);
      },
    );
  };
}
