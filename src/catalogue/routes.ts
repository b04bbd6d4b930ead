// Catalogue routes (docs/catalogue.md): thin — parse, authorize, call the service, shape the answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from 'typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { RUNNER_RELAY_CODES } from '../http/error-codes.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { absentBodyIsEmpty } from '../http/optional-body.ts';
import { pageQuery } from '../http/paging.ts';
import { errors } from '../http/responses.ts';
import { MAX_MODULE_BYTES } from '../module/index.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';
import { uploadedExample } from './examples.ts';
import { approveVersion, publishVersion, rejectVersion, withdrawVersion } from './lifecycle.ts';
import { getApp, type InstallNames, listApprovals, listApps, listVersions, noInstalls } from './reading.ts';
import {
  AppDetail,
  AppList,
  AppName,
  ApprovalList,
  Decided,
  DecidedForReview,
  Published,
  PublishHeld,
  VersionList,
  VersionSummary,
} from './schemas.ts';
import { type Inspector, uploadVersion } from './uploads.ts';

export interface CatalogueDeps {
  database: Database;
  /** Null when the deployment has no runner or no object storage: /apps answers 503 apps_unavailable. */
  apps: { storage: ModuleStorage; inspect: Inspector } | null;
  signatures: 'off' | 'optional' | 'required';
  installs?: InstallNames;
}

const VersionParams = Type.Object({ name: AppName, id: Type.String({ format: 'uuid' }) });
const Decision = Type.Object(
  { comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false, examples: [{ comment: 'Checked the hosts and the pricing note' }] },
);

/** The upload body as described: the module's bytes (the content type parser hands the route a Buffer). */
const ModuleBytes = Type.String({
  format: 'binary',
  description: 'The WebAssembly module as built (e.g. by `app build`), at most 32 MiB',
  examples: ['\u0000asm\u0001\u0000\u0000\u0000'],
});

interface DecisionRoute {
  action: 'approve' | 'reject';
  decide: typeof approveVersion;
  description: { operationId: string; summary: string; response: Record<number, TSchema> };
}

/** Approve and reject: the same body and errors; approve may open the operator's review (202). */
const decisions: DecisionRoute[] = [
  {
    action: 'approve',
    decide: approveVersion,
    description: {
      operationId: 'approveAppVersion',
      summary: 'Approve the open publish request: 200 published, or 202 with the operator’s review it opened',
      response: {
        200: Decided,
        202: DecidedForReview,
        ...errors('not_found', 'four_eyes', 'conflict', 'provenance_required'),
      },
    },
  },
  {
    action: 'reject',
    decide: rejectVersion,
    description: {
      operationId: 'rejectAppVersion',
      summary: 'Reject the open publish request; the version stays uploaded',
      response: { 200: Decided, ...errors('not_found', 'conflict') },
    },
  },
];

export function catalogueRoutes(deps: CatalogueDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = deps.database.db;
    const available = () => {
      if (!deps.apps)
        throw new ApiError('apps_unavailable', 'this deployment has no app runner or no module storage');
      return deps.apps;
    };
    const context = (request: { id: string } & Parameters<typeof principalOf>[0]) => ({
      database: deps.database,
      principal: principalOf(request),
      requestId: request.id,
      signatures: deps.signatures,
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
          operationId: 'uploadAppVersion',
          summary:
            'Upload a module: the raw WebAssembly bytes as the body, Content-Type application/wasm, at most 32 MiB',
          body: { content: { 'application/wasm': { schema: ModuleBytes } } },
          response: {
            201: { ...VersionSummary, examples: [uploadedExample] },
            // 409 app_blocked (a blocked module or app) or conflict (a platform app's name, a version that exists)
            ...errors('app_blocked', 'conflict', ...RUNNER_RELAY_CODES),
          },
        },
        // The body schema only describes the bytes; inspection checks them (a schema would see a Buffer).
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const apps = available();
        if (!Buffer.isBuffer(request.body))
          throw new ApiError('unsupported_media_type', 'send the module with Content-Type application/wasm');
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
        schema: {
          tags: ['apps'],
          operationId: 'listApps',
          summary: 'Apps the tenant sees, one entry per name',
          response: { 200: AppList },
        },
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
          operationId: 'listAppApprovals',
          summary:
            'Publish requests of the tenant’s own versions, paged: open oldest first, or decided newest first',
          querystring: Type.Object(
            {
              open: Type.Optional(Type.Boolean({ default: true, description: 'false: the decided ones' })),
              ...pageQuery(),
            },
            { additionalProperties: false },
          ),
          response: { 200: ApprovalList },
        },
      },
      async (request) => {
        available();
        const { open, limit, offset } = request.query;
        return listApprovals(db, principalOf(request), { open: open !== false, limit, offset });
      },
    );

    app.get(
      '/apps/:name',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags: ['apps'],
          operationId: 'getApp',
          summary: 'One app: its entry with the tenant’s installs and every version the tenant sees',
          params: Type.Object({ name: AppName }),
          response: { 200: AppDetail, ...errors('not_found') },
        },
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
        schema: {
          tags: ['apps'],
          operationId: 'listAppVersions',
          summary: 'The app’s versions the tenant sees, highest number first',
          params: Type.Object({ name: AppName }),
          response: { 200: VersionList, ...errors('not_found') },
        },
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
      {
        config: { permission: 'apps:publish' },
        schema: {
          tags: ['apps'],
          operationId: 'publishAppVersion',
          summary:
            'Publish an uploaded version of the tenant’s own: 200 published, or 202 with the approval request or operator review it opened',
          params: VersionParams,
          response: {
            200: Published,
            202: PublishHeld,
            ...errors('not_found', 'conflict', 'provenance_required'),
          },
        },
      },
      async (request, reply) => {
        available();
        const result = await publishVersion(context(request), request.params.name, request.params.id);
        return reply.status(result.status).send(result.body);
      },
    );

    for (const { action, decide, description } of decisions) {
      app.post(
        `/apps/:name/versions/:id/${action}`,
        {
          config: { permission: 'apps:publish' },
          schema: { tags: ['apps'], ...description, params: VersionParams, body: Decision },
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
      {
        config: { permission: 'apps:publish' },
        schema: {
          tags: ['apps'],
          operationId: 'withdrawAppVersion',
          summary: 'Withdraw a version of the tenant’s own, with its open publish request and review',
          params: VersionParams,
          response: { 200: VersionSummary, ...errors('not_found', 'conflict') },
        },
      },
      async (request) => {
        available();
        return withdrawVersion(context(request), request.params.name, request.params.id);
      },
    );
  };
}
