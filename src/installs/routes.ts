// Install routes (spec part 1 §4.2): thin — parse, authorize, call the service, shape the answer.
// Installs, the install view, secrets, renames and aliases, circuit settings. Changes, limits and cached
// values have route files of their own beside this one; the test call and metering are in src/calls/.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  CIRCUIT_FAILURE_THRESHOLD,
  CIRCUIT_OPEN_SECONDS,
  configureCircuit,
  resetCircuit,
} from './circuit.ts';
import { type InstallRouteDeps, installContextOf } from './context.ts';
import { removeAlias, renameInstall } from './rename.ts';
import { createInstall, saveInstall } from './saves.ts';
import { removeSecret, storeSecret } from './secrets.ts';
import { deleteInstall, getInstall, listInstalls } from './service.ts';

export const Name = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,99}$' });
const SecretName = Type.String({ minLength: 1, maxLength: 64 });
const Host = Type.String({ minLength: 1, maxLength: 259 });
const saveFields = {
  versionId: Type.String({ format: 'uuid' }),
  enabled: Type.Boolean({ default: true }),
  config: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
  approveHosts: Type.Array(Host, { maxItems: 20, default: [] }),
  comment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  autoUpgrade: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('compatible')])),
};
const CreateBody = Type.Object({ name: Name, ...saveFields }, { additionalProperties: false });
const SaveBody = Type.Object(saveFields, { additionalProperties: false });
export const InstallParams = Type.Object({ install: Name });
const SecretParams = Type.Object({ install: Name, secret: SecretName });
const SecretBody = Type.Object(
  { value: Type.String({ minLength: 1, maxLength: 16384 }) },
  { additionalProperties: false },
);
const RenameBody = Type.Object(
  {
    name: Name,
    keepAlias: Type.Boolean({ default: true }),
    rewrite: Type.Optional(Type.Union([Type.Literal('drafts'), Type.Literal('publish')])),
  },
  { additionalProperties: false },
);
const AliasParams = Type.Object({ install: Name, alias: Name });
const ForceQuery = Type.Object({ force: Type.Boolean({ default: false }) }, { additionalProperties: false });
const CircuitBody = Type.Object(
  {
    failureThreshold: nullableInteger(CIRCUIT_FAILURE_THRESHOLD),
    openSeconds: nullableInteger(CIRCUIT_OPEN_SECONDS),
  },
  { additionalProperties: false },
);

/**
 * An integer in range, or null. One `type: [integer, null]` rather than anyOf: under the server's
 * coerceTypes an anyOf's null branch would turn an out-of-range 0 into null and accept it.
 */
function nullableInteger(range: { min: number; max: number }) {
  return Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: range.min, maximum: range.max });
}

export function installRoutes(deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const context = (request: FastifyRequest) => installContextOf(deps, request);

    app.get(
      '/app-installs',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['app-installs'],
          summary: 'The tenant’s installs, optionally of one app',
          querystring: Type.Object({ app: Type.Optional(Name) }, { additionalProperties: false }),
        },
      },
      async (request) => ({ items: await listInstalls(context(request), request.query.app) }),
    );

    app.get(
      '/app-installs/:install',
      { config: { permission: 'apps:read' }, schema: { tags: ['app-installs'], params: InstallParams } },
      async (request) => getInstall(context(request), request.params.install),
    );

    app.post(
      '/app-installs',
      {
        config: { permission: 'apps:write' },
        schema: { tags: ['app-installs'], summary: 'Install an app version', body: CreateBody },
      },
      async (request, reply) => {
        const { comment, ...body } = request.body;
        const saved = await createInstall(context(request), { ...body, comment: comment ?? null });
        return reply.status(saved.status).send(saved.body);
      },
    );

    app.put(
      '/app-installs/:install',
      {
        config: { permission: 'apps:write' },
        schema: { tags: ['app-installs'], summary: 'Save an install', params: InstallParams, body: SaveBody },
      },
      async (request, reply) => {
        const { comment, ...body } = request.body;
        const saved = await saveInstall(context(request), request.params.install, {
          ...body,
          comment: comment ?? null,
        });
        return reply.status(saved.status).send(saved.body);
      },
    );

    app.delete(
      '/app-installs/:install',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          params: InstallParams,
          querystring: ForceQuery,
        },
      },
      async (request, reply) => {
        await deleteInstall(context(request), request.params.install, request.query.force);
        return reply.status(204).send();
      },
    );

    app.post(
      '/app-installs/:install/secrets/:secret',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Store or replace a sealed secret; the value is never returned',
          params: SecretParams,
          body: SecretBody,
        },
      },
      async (request) =>
        storeSecret(context(request), request.params.install, request.params.secret, request.body.value),
    );

    app.delete(
      '/app-installs/:install/secrets/:secret',
      {
        config: { permission: 'apps:write' },
        schema: { tags: ['app-installs'], summary: 'Remove a stored secret', params: SecretParams },
      },
      async (request) => removeSecret(context(request), request.params.install, request.params.secret),
    );

    app.post(
      '/app-installs/:install/rename',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Rename an install, keeping its former name as an alias by default',
          params: InstallParams,
          body: RenameBody,
        },
      },
      async (request) => renameInstall(context(request), request.params.install, request.body),
    );

    app.delete(
      '/app-installs/:install/aliases/:alias',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Remove a kept former name; the name becomes free',
          params: AliasParams,
          querystring: ForceQuery,
        },
      },
      async (request) =>
        removeAlias(context(request), request.params.install, request.params.alias, request.query.force),
    );

    app.put(
      '/app-installs/:install/circuit',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Set the install’s own circuit settings (null: the deployment’s)',
          params: InstallParams,
          body: CircuitBody,
        },
      },
      async (request) => configureCircuit(context(request), request.params.install, request.body),
    );

    app.post(
      '/app-installs/:install/circuit/reset',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Close the install’s circuit and clear its count',
          params: InstallParams,
        },
      },
      async (request) => resetCircuit(context(request), request.params.install),
    );
  };
}
