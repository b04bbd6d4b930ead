// Install change routes (docs/install-changes.md): the list and the decisions. Thin: parse, authorize, call
// changes.ts, answer the change view.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { absentBodyIsEmpty } from '../../http/optional-body.ts';
import { pageQuery } from '../../http/paging.ts';
import { errors } from '../../http/responses.ts';
import { installContextOf } from '../context.ts';
import { Name } from '../routes.ts';
import { ChangePageSchema, ChangeViewSchema } from '../schemas.ts';
import { approveChange, listChanges, rejectChange, withdrawChange } from './changes.ts';

const ChangeParams = Type.Object({ install: Name, id: Type.String({ format: 'uuid' }) });
const DecisionBody = Type.Object(
  { comment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])) },
  { additionalProperties: false, examples: [{ comment: 'Vendor contract signed; host checked' }] },
);
const ChangesQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('decided')], { default: 'open' })),
    install: Type.Optional(Name),
    ...pageQuery({ maxLimit: 100, defaultLimit: 50 }),
  },
  { additionalProperties: false },
);

export const changesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/app-install-changes',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['app-installs'],
        operationId: 'listInstallChanges',
        summary: 'Install changes: open ones oldest first (default), or decided ones newest first',
        querystring: ChangesQuery,
        response: { 200: ChangePageSchema },
      },
    },
    async (request) =>
      listChanges(installContextOf(request), { ...request.query, status: request.query.status ?? 'open' }),
  );

  app.post(
    '/app-installs/:install/changes/:id/approve',
    {
      config: { permission: 'apps:publish' },
      schema: {
        tags: ['app-installs'],
        operationId: 'approveInstallChange',
        summary: 'Approve a held save: its version, config and hosts apply in one transaction',
        params: ChangeParams,
        body: DecisionBody,
        response: {
          200: ChangeViewSchema,
          ...errors(
            'unknown_install',
            'not_found',
            'four_eyes',
            'install_changed',
            'app_blocked',
            'conflict',
          ),
        },
      },
      preValidation: absentBodyIsEmpty,
    },
    async (request) =>
      approveChange(
        installContextOf(request),
        request.params.install,
        request.params.id,
        request.body.comment ?? null,
      ),
  );

  app.post(
    '/app-installs/:install/changes/:id/reject',
    {
      config: { permission: 'apps:publish' },
      schema: {
        tags: ['app-installs'],
        operationId: 'rejectInstallChange',
        summary: 'Reject a held save: the install stays as it is; a new install goes with its change',
        params: ChangeParams,
        body: DecisionBody,
        response: { 200: ChangeViewSchema, ...errors('unknown_install', 'not_found', 'conflict') },
      },
      preValidation: absentBodyIsEmpty,
    },
    async (request) =>
      rejectChange(
        installContextOf(request),
        request.params.install,
        request.params.id,
        request.body.comment ?? null,
      ),
  );

  app.post(
    '/app-installs/:install/changes/:id/withdraw',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'withdrawInstallChange',
        summary: 'Withdraw a held save (its requester, or an administrator holding tenants:settings)',
        params: ChangeParams,
        response: {
          200: ChangeViewSchema,
          ...errors('unknown_install', 'not_found', 'not_requester', 'conflict'),
        },
      },
    },
    async (request) => withdrawChange(installContextOf(request), request.params.install, request.params.id),
  );
};
