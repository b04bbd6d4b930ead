// Install routes (docs/installs.md): thin — parse, authorize, call the service, shape the answer.
// Installs, the install view, secrets, renames and aliases, circuit settings. Changes, limits and cached
// values have route files of their own beside this one; the test call and metering are in src/calls/.
// All of them run in one scope (routes-scope.ts) that checks apps are on and resolves the install context.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { errors } from '../http/responses.ts';
import { UsageSchema } from './callers.ts';
import {
  CIRCUIT_FAILURE_THRESHOLD,
  CIRCUIT_OPEN_SECONDS,
  configureCircuit,
  resetCircuit,
} from './circuit/circuit.ts';
import { installContextOf } from './context.ts';
import { getInstallUsage, removeAlias, renameInstall } from './rename.ts';
import { createInstall, saveInstall } from './saves.ts';
import {
  CircuitSchema,
  CircuitSettingsSchema,
  HeldSaveSchema,
  InstallListSchema,
  InstallViewSchema,
  RenameResultSchema,
} from './schemas.ts';
import { removeSecret, storeSecret } from './secrets/secrets.ts';
import { deleteInstall, getInstall, listInstalls, type SaveBody as SaveFields } from './service.ts';

export const Name = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,99}$' });
const SecretName = Type.String({ minLength: 1, maxLength: 64 });
const Host = Type.String({ minLength: 1, maxLength: 259 });
/** What a save takes when the body leaves a field out; the schema shows them as defaults. */
const SAVE_DEFAULTS = { enabled: true, config: {}, approveHosts: [] } as const;
const saveFields = {
  versionId: Type.String({ format: 'uuid' }),
  enabled: Type.Optional(Type.Boolean({ default: SAVE_DEFAULTS.enabled })),
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: SAVE_DEFAULTS.config })),
  approveHosts: Type.Optional(Type.Array(Host, { maxItems: 20, default: SAVE_DEFAULTS.approveHosts })),
  comment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  autoUpgrade: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('compatible')])),
};
const saveExample = {
  versionId: '0f8e7a52-3c1d-4b7a-9e2f-5a6b7c8d9e0f',
  enabled: true,
  config: { baseUrl: 'https://api.vendor.example' },
  approveHosts: ['api.vendor.example'],
  comment: 'Screening for onboarding',
};
const CreateBody = Type.Object(
  { name: Name, ...saveFields },
  { additionalProperties: false, examples: [{ name: 'screening', ...saveExample }] },
);
const SaveBody = Type.Object(saveFields, { additionalProperties: false, examples: [saveExample] });
export const InstallParams = Type.Object({ install: Name });
const SecretParams = Type.Object({ install: Name, secret: SecretName });
const SecretBody = Type.Object(
  { value: Type.String({ minLength: 1, maxLength: 16384 }) },
  { additionalProperties: false },
);
const RenameBody = Type.Object(
  {
    name: Name,
    keepAlias: Type.Optional(Type.Boolean({ default: true })),
    rewrite: Type.Optional(Type.Union([Type.Literal('drafts'), Type.Literal('publish')])),
  },
  { additionalProperties: false },
);
const AliasParams = Type.Object({ install: Name, alias: Name });
const ForceQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
const CircuitBody = Type.Object(
  {
    failureThreshold: nullableInteger(CIRCUIT_FAILURE_THRESHOLD),
    openSeconds: nullableInteger(CIRCUIT_OPEN_SECONDS),
  },
  { additionalProperties: false },
);

/**
 * An integer in range, or null. One `type: [integer, null]` rather than anyOf: a refusal names the field
 * once instead of once per branch.
 */
function nullableInteger(range: { min: number; max: number }) {
  return Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: range.min, maximum: range.max });
}

/** The save a body asks for, its left-out fields taken at their defaults. */
function saveOf(body: Static<typeof SaveBody>): SaveFields {
  return {
    versionId: body.versionId,
    enabled: body.enabled ?? SAVE_DEFAULTS.enabled,
    config: body.config ?? { ...SAVE_DEFAULTS.config },
    approveHosts: body.approveHosts ?? [...SAVE_DEFAULTS.approveHosts],
    comment: body.comment ?? null,
    ...(body.autoUpgrade ? { autoUpgrade: body.autoUpgrade } : {}),
  };
}

export const installRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/app-installs',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['app-installs'],
        operationId: 'listInstalls',
        summary: 'The tenant’s installs, optionally of one app',
        querystring: Type.Object({ app: Type.Optional(Name) }, { additionalProperties: false }),
        response: { 200: InstallListSchema },
      },
    },
    async (request) => ({ items: await listInstalls(installContextOf(request), request.query.app) }),
  );

  app.get(
    '/app-installs/:install',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['app-installs'],
        operationId: 'getInstall',
        summary: 'One install: its version, secrets, open change, aliases and circuit',
        params: InstallParams,
        response: { 200: InstallViewSchema, ...errors('unknown_install') },
      },
    },
    async (request) => getInstall(installContextOf(request), request.params.install),
  );

  app.post(
    '/app-installs',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'createInstall',
        summary: 'Install an app version',
        description:
          '201 when the install applies at once; 202 { install, change } when the tenant requires approvals for apps and the install adds hosts.',
        body: CreateBody,
        response: {
          201: InstallViewSchema,
          202: HeldSaveSchema,
          ...errors(
            'install_name_taken',
            'install_limit_reached',
            'hosts_not_approved',
            'install_not_configured',
            'app_blocked',
            'conflict',
            'provenance_required',
          ),
        },
      },
    },
    async (request, reply) => {
      const saved = await createInstall(installContextOf(request), {
        name: request.body.name,
        ...saveOf(request.body),
      });
      return reply.status(saved.status).send(saved.body);
    },
  );

  app.put(
    '/app-installs/:install',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'saveInstall',
        summary: 'Save an install: the whole state it should have (autoUpgrade left out keeps it)',
        description:
          '200 when the save applies at once; 202 { install, change } when it adds hosts under approvals for apps.',
        params: InstallParams,
        body: SaveBody,
        response: {
          200: InstallViewSchema,
          202: HeldSaveSchema,
          ...errors(
            'unknown_install',
            'hosts_not_approved',
            'install_not_configured',
            'app_blocked',
            'conflict',
            'provenance_required',
          ),
        },
      },
    },
    async (request, reply) => {
      const saved = await saveInstall(
        installContextOf(request),
        request.params.install,
        saveOf(request.body),
      );
      return reply.status(saved.status).send(saved.body);
    },
  );

  app.delete(
    '/app-installs/:install',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'deleteInstall',
        summary: 'Remove an install with its secrets, aliases, changes, limits and cached values',
        description:
          'While runs wait on its callbacks: 409 install_in_use naming them (details.runs: [{ id }], the longest waiting first, at most 100; details.pendingCallbacks: how many sessions), unless force fails them.',
        params: InstallParams,
        querystring: ForceQuery,
        response: { 204: Type.Null(), ...errors('unknown_install', 'install_in_use') },
      },
    },
    async (request, reply) => {
      await deleteInstall(installContextOf(request), request.params.install, request.query.force ?? false);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/app-installs/:install/secrets/:secret',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'storeInstallSecret',
        summary: 'Store or replace a sealed secret; the value is never returned',
        params: SecretParams,
        body: SecretBody,
        response: { 200: InstallViewSchema, ...errors('unknown_install', 'secret_store_unavailable') },
      },
    },
    async (request) =>
      storeSecret(
        installContextOf(request),
        request.params.install,
        request.params.secret,
        request.body.value,
      ),
  );

  app.delete(
    '/app-installs/:install/secrets/:secret',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'removeInstallSecret',
        summary: 'Remove a stored secret',
        params: SecretParams,
        response: {
          200: InstallViewSchema,
          ...errors('unknown_install', 'not_found', 'secret_store_unavailable'),
        },
      },
    },
    async (request) => removeSecret(installContextOf(request), request.params.install, request.params.secret),
  );

  app.post(
    '/app-installs/:install/rename',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'renameInstall',
        summary: 'Rename an install, keeping its former name as an alias by default',
        description:
          'Without an alias: 409 install_in_use while published definitions or runs in flight call the former name. rewrite drafts (definitions:write) writes a new draft of each calling definition naming the new name; publish (definitions:publish too) also publishes it, or opens its approval request when the tenant requires approval for definitions (status approval_requested with approvalId).',
        params: InstallParams,
        body: RenameBody,
        response: {
          200: RenameResultSchema,
          ...errors('unknown_install', 'install_name_taken', 'alias_limit_reached', 'install_in_use'),
        },
      },
    },
    async (request) =>
      renameInstall(installContextOf(request), request.params.install, {
        ...request.body,
        keepAlias: request.body.keepAlias ?? true,
      }),
  );

  app.delete(
    '/app-installs/:install/aliases/:alias',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'removeInstallAlias',
        summary: 'Remove a kept former name; the name becomes free',
        description:
          'While published definitions or runs in flight call it: 409 alias_in_use, unless force (their calls then fail with unknown_install).',
        params: AliasParams,
        querystring: ForceQuery,
        response: { 200: InstallViewSchema, ...errors('unknown_install', 'not_found', 'alias_in_use') },
      },
    },
    async (request) =>
      removeAlias(
        installContextOf(request),
        request.params.install,
        request.params.alias,
        request.query.force ?? false,
      ),
  );

  app.get(
    '/app-installs/:install/usage',
    {
      config: { permission: 'apps:read' },
      schema: {
        tags: ['app-installs'],
        operationId: 'getInstallUsage',
        summary: 'The published workflows and rule sets calling the install, by its name or an alias',
        params: InstallParams,
        response: { 200: UsageSchema, ...errors('unknown_install') },
      },
    },
    async (request) => getInstallUsage(installContextOf(request), request.params.install),
  );

  app.put(
    '/app-installs/:install/circuit',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'configureInstallCircuit',
        summary: 'Set the install’s own circuit settings (null: the deployment’s)',
        params: InstallParams,
        body: CircuitBody,
        response: { 200: CircuitSettingsSchema, ...errors('unknown_install') },
      },
    },
    async (request) => configureCircuit(installContextOf(request), request.params.install, request.body),
  );

  app.post(
    '/app-installs/:install/circuit/reset',
    {
      config: { permission: 'apps:write' },
      schema: {
        tags: ['app-installs'],
        operationId: 'resetInstallCircuit',
        summary: 'Close the install’s circuit and clear its count',
        params: InstallParams,
        response: { 200: CircuitSchema, ...errors('unknown_install') },
      },
    },
    async (request) => resetCircuit(installContextOf(request), request.params.install),
  );
};
