// GET /apps/health (docs/calls.md): the route and its answer's schema; health.ts reads and builds it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { dateTime, nullable } from '../http/responses.ts';
import { installContextOf } from '../installs/index.ts';
import { healthReport } from './health.ts';

const closed = { additionalProperties: false } as const;
const Count = Type.Integer({ minimum: 0 });
const named = {
  installId: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'The install’s current name' }),
  appName: Type.String(),
  version: Type.String({ description: 'The version the install runs' }),
};

const HealthQuery = Type.Object(
  {
    windowMinutes: Type.Optional(
      Type.Integer({ minimum: 5, maximum: 1440, default: 60, description: 'The window, ending now' }),
    ),
  },
  closed,
);

const HealthReport = Type.Object(
  {
    windowMinutes: Type.Integer({ minimum: 5, maximum: 1440 }),
    from: dateTime('Where the window starts (the database’s now minus windowMinutes)'),
    to: dateTime('The database’s now'),
    installs: Type.Array(
      Type.Object(
        {
          ...named,
          enabled: Type.Boolean(),
          calls: {
            ...Count,
            description: 'Attempts recorded in the window (retries and fallbacks each count)',
          },
          failures: { ...Count, description: 'Those that ended error or timeout' },
          timeouts: { ...Count, description: 'Those that ended timeout' },
          p95Ms: nullable(Count, { description: 'The 95th percentile of their durations; null: no call' }),
          lastCallAt: nullable(dateTime()),
          lastFailureAt: nullable(dateTime()),
        },
        closed,
      ),
      { description: 'Every current install, by name; removed installs are left out' },
    ),
    circuits: Type.Array(
      Type.Object(
        {
          ...named,
          state: Type.Union([Type.Literal('open'), Type.Literal('half_open')]),
          failures: { ...Count, description: 'Outages in a row that opened it' },
          since: nullable(dateTime('When it opened; half-open: when its open time ended')),
          retryAt: nullable(
            dateTime('When calls may next try it (a trial); null: a trial may be claimed now'),
          ),
          failureThreshold: Type.Integer({ minimum: 1, maximum: 100, description: 'In force' }),
          openSeconds: Type.Integer({ minimum: 5, maximum: 3600, description: 'In force' }),
        },
        closed,
      ),
      { description: 'The open and half-open circuits' },
    ),
    blocked: Type.Array(
      Type.Object(
        {
          ...named,
          sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The module the install runs' }),
          reason: Type.String(),
          blockedAt: dateTime(),
        },
        closed,
      ),
      { description: 'Installs whose module (or every version of its app) the operator blocked' },
    ),
  },
  { ...closed, title: 'HealthReport' },
);

export const appsHealthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // A static path, matched before GET /apps/:name; no app may be named health (src/module/names.ts).
  app.get(
    '/apps/health',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['apps'],
        operationId: 'getAppsHealth',
        summary:
          'How the tenant’s installs fared over a window: calls, failures, timeouts and p95 per install, open circuits, blocked installs',
        querystring: HealthQuery,
        response: { 200: HealthReport },
      },
    },
    async (request) => {
      const ctx = installContextOf(request);
      return healthReport(ctx.database.db, {
        tenantId: ctx.principal.tenantId,
        windowMinutes: request.query.windowMinutes ?? 60,
        defaults: ctx.settings.circuitDefaults,
      });
    },
  );
};
