// The metering reports (docs/limits-and-metering.md "Metering"): GET
// /app-installs/metering (per install, action and UTC day over a range) and GET /apps/metering (a month in
// total, per day and per install, with quotas and budgets). Both read metering through meteringRows, and
// both show spend only to holders of apps:write. Thin: the schemas shape the query, the reports read.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { installContextOf, Name } from '../installs/index.ts';
import { meteringReport } from './metering-report.ts';
import { monthReport } from './month-report.ts';
import { MeteringReport, Month, MonthMeteringReport } from './schemas.ts';

const Day = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$' });
const MeteringQuery = Type.Object(
  { install: Type.Optional(Name), from: Type.Optional(Day), to: Type.Optional(Day) },
  { additionalProperties: false },
);
const MonthQuery = Type.Object(
  { month: Type.Optional({ ...Month, description: 'YYYY-MM; default the current UTC month' }) },
  { additionalProperties: false },
);

/** What either report needs of a request: the database, the tenant, and whether spend may be shown. */
function reportScope(request: FastifyRequest) {
  const ctx = installContextOf(request);
  return {
    db: ctx.database.db,
    tenantId: ctx.principal.tenantId,
    withSpend: ctx.principal.permissions.has('apps:write'),
  };
}

export const meteringRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const { db, ...scope } = reportScope(request);
      return meteringReport(db, { ...scope, ...request.query });
    },
  );

  // A static path, matched before GET /apps/:name; no app may be named metering (src/module/names.ts).
  app.get(
    '/apps/metering',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['apps'],
        operationId: 'getMonthMetering',
        summary:
          'A month’s use in total, per UTC day and per install, with the operator’s quotas and the installs’ budgets now (spend only with apps:write)',
        querystring: MonthQuery,
        response: { 200: MonthMeteringReport },
      },
    },
    async (request) => {
      const { db, ...scope } = reportScope(request);
      return monthReport(db, { ...scope, ...request.query });
    },
  );
};
