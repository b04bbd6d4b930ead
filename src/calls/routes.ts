// The invocation records: GET /app-invocations and GET /app-invocations/:id. The test call is in
// test-call-routes.ts, the metering reports in metering-routes.ts. Steps and rules call installs from
// workflows (call-install.ts), not over HTTP.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { pageOf, pageQuery } from '../http/paging.ts';
import { errors } from '../http/responses.ts';
import { timeBoundsOf, timeRangeQuery } from '../http/time-range.ts';
import { getInvocation, listInvocations } from './invocations.ts';
import { InvocationRecord } from './schemas.ts';
import type { InvocationStatus } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const STATUSES: InvocationStatus[] = ['success', 'pending', 'error', 'timeout'];
const InvocationsQuery = Type.Object(
  {
    install: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9-]{0,99}$',
        description:
          'The name the call used (an install’s name or a kept alias), or the install’s name at the time: records of earlier installs of that name too',
      }),
    ),
    installId: Type.Optional(Uuid),
    workflowRunId: Type.Optional(Uuid),
    status: Type.Optional(
      Type.Array(Type.Unsafe<InvocationStatus>({ type: 'string', enum: STATUSES }), {
        maxItems: STATUSES.length,
        description: 'Repeatable (status=error&status=timeout): records of any of these statuses',
      }),
    ),
    ...timeRangeQuery('createdAt'),
    ...pageQuery(),
  },
  { additionalProperties: false },
);
const InvocationParams = Type.Object({ id: Uuid });

export function invocationRoutes(database: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/app-invocations',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['app-invocations'],
          operationId: 'listInvocations',
          summary:
            'Records of the attempts steps, rules and fallbacks made, newest first (input, output and error text need runs:context)',
          querystring: InvocationsQuery,
          response: { 200: pageOf(InvocationRecord) },
        },
      },
      // Records are read from the database alone: they answer without a runner or module storage too
      // (the listing routes stay up where apps are off), so these routes stay outside the install
      // routes' scope.
      async (request) => {
        const principal = principalOf(request);
        const { from, to, ...query } = request.query;
        return listInvocations(
          database.db,
          { ...query, ...timeBoundsOf({ from, to }), tenantId: principal.tenantId },
          principal.permissions.has('runs:context'),
        );
      },
    );

    app.get(
      '/app-invocations/:id',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['app-invocations'],
          operationId: 'getInvocation',
          summary: 'One invocation record (input, output and error text need runs:context)',
          params: InvocationParams,
          // 404 not_found: no record of that id in the tenant
          response: { 200: InvocationRecord, ...errors('not_found') },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return getInvocation(
          database.db,
          principal.tenantId,
          request.params.id,
          principal.permissions.has('runs:context'),
        );
      },
    );
  };
}
