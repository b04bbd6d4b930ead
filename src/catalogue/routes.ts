// Catalogue routes (spec part 1 §4.1): thin — parse, authorize, call the service, shape the answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { absentBodyIsEmpty } from '../http/optional-body.ts';
import { MAX_MODULE_BYTES } from '../module/wasm.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';
import { approveVersion, publishVersion, rejectVersion, withdrawVersion } from './lifecycle.ts';
import { getApp, type InstallNames, listApprovals, listApps, listVersions, noInstalls } from './reading.ts';
import { type Inspector, uploadVersion } from './uploads.ts';

export interface CatalogueDeps {
  database: Database;
  /** Null when the deployment has no runner or no object storage: /apps answers 503 apps_unavailable. */
  apps: { storage: ModuleStorage; inspect: Inspector } | null;
  signatures: 'off' | 'optional' | 'required';
  installs?: InstallNames;
}

const AppName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,99}$' });
const VersionParams = Type.Object({ name: AppName, id: Type.String({ format: 'uuid' }) });
const Decision = Type.Object(
  { comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

export function catalogueRoutes(deps: CatalogueDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = deps.database.db;
    const available = () => {
      if (!deps.apps)
        throw new ApiError(503, 'apps_unavailable', 'this deployment has no app runner or no module storage');
      return deps.apps;
    };
    const context = (request: { id: string } & Parameters<typeof principalOf>[0]) => ({
      database: deps.database,
      principal: principalOf(request),
      requestId: request.id,
    });

    app.addContentTypeParser(
      'application/wasm',
      { parseAs: 'buffer', bodyLimit: MAX_MODULE_BYTES },
      (_req, body, done) => done(null, body),
    );

    app.post(
      '/apps/uploads',
      {
        bodyLimit: MAX_MODULE_BYTES,
        config: { permission: 'apps:publish', accepts: 'application/wasm' },
        schema: {
          tags: ['apps'],
          summary:
            'Upload a module: the raw WebAssembly bytes as the body, Content-Type application/wasm, at most 32 MiB',
        },
      },
      async (request, reply) => {
        const apps = available();
        if (!Buffer.isBuffer(request.body))
          throw new ApiError(
            415,
            'unsupported_media_type',
            'send the module with Content-Type application/wasm',
          );
        const summary = await uploadVersion(
          { database: deps.database, ...apps },
          principalOf(request),
          new Uint8Array(request.body),
          request.id,
        );
        return reply.status(201).send(summary);
      },
    );

    app.get(
      '/apps',
      {
        config: { permission: 'apps:read' },
        schema: { tags: ['apps'], summary: 'Apps the tenant sees, one entry per name' },
      },
      async (request) => {
        available();
        return {
          items: await listApps(db, principalOf(request), deps.installs ?? noInstalls),
          signatures: deps.signatures,
        };
      },
    );

    app.get(
      '/apps/approvals',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['apps'],
          summary:
            'Publish requests of the tenant’s own versions: open oldest first, or decided newest first',
          querystring: Type.Object(
            { open: Type.Boolean({ default: true }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        available();
        return { items: await listApprovals(db, principalOf(request), request.query.open) };
      },
    );

    app.get(
      '/apps/:name',
      {
        config: { permission: 'apps:read' },
        schema: { tags: ['apps'], params: Type.Object({ name: AppName }) },
      },
      async (request) => {
        available();
        const entry = await getApp(
          db,
          principalOf(request),
          request.params.name,
          deps.installs ?? noInstalls,
        );
        if (!entry) throw notFound('no app of that name');
        return { ...entry, signatures: deps.signatures };
      },
    );

    app.get(
      '/apps/:name/versions',
      {
        config: { permission: 'apps:read' },
        schema: { tags: ['apps'], params: Type.Object({ name: AppName }) },
      },
      async (request) => {
        available();
        const items = await listVersions(db, principalOf(request), request.params.name);
        if (items.length === 0) throw notFound('no app of that name');
        return { items };
      },
    );

    app.post(
      '/apps/:name/versions/:id/publish',
      { config: { permission: 'apps:publish' }, schema: { tags: ['apps'], params: VersionParams } },
      async (request, reply) => {
        available();
        const result = await publishVersion(context(request), request.params.name, request.params.id);
        return reply.status(result.status).send(result.body);
      },
    );

    for (const [action, decide] of [
      ['approve', approveVersion],
      ['reject', rejectVersion],
    ] as const) {
      app.post(
        `/apps/:name/versions/:id/${action}`,
        {
          config: { permission: 'apps:publish' },
          schema: { tags: ['apps'], params: VersionParams, body: Decision },
          preValidation: absentBodyIsEmpty,
        },
        async (request, reply) => {
          available();
          const comment = request.body.comment ?? null;
          const result = await decide(context(request), request.params.name, request.params.id, comment);
          return reply.status(result.status).send(result.body);
        },
      );
    }

    app.delete(
      '/apps/:name/versions/:id',
      { config: { permission: 'apps:publish' }, schema: { tags: ['apps'], params: VersionParams } },
      async (request) => {
        available();
        return withdrawVersion(context(request), request.params.name, request.params.id);
      },
    );
  };
}
