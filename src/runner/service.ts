// The runner role's HTTP service: module routes under the runner bearer, open health routes.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyError, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { bearerOf, secretMatcher } from '../auth/shared-secret.ts';
import { ApiError, issuesFromAjv, sendError } from '../http/errors.ts';
import { errors } from '../http/responses.ts';
import { createServer } from '../http/server.ts';
import { MAX_MODULE_BYTES } from '../module/index.ts';
import { isUuid } from '../uuid.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { TENANT_HEADER } from './client.ts';
import { RunnerFailure } from './errors.ts';
import { type ExportRequest, executeExport, outcomeJson } from './execute.ts';
import { Gate } from './gate.ts';
import type { BindingDeps } from './host/binding.ts';
import { bindHostFunctions } from './host/binding.ts';
import { inspectUpload } from './inspect.ts';
import { ModuleStore } from './modules.ts';
import { HandoffBody, InvokeBody, WebhookBody } from './schemas.ts';
import { SandboxPool } from './threads/sandbox-pool.ts';

export interface RunnerOptions {
  host: string;
  port: number;
  cacheDir: string;
  concurrency: number;
  tenantConcurrency: number;
  warmPlugins: number;
  warmIdleMs: number;
  /** APP_RUNNER_START_LIMIT_MS; START_LIMIT_MS when unset. */
  startLimitMs?: number;
  runnerToken: string;
  apiInternalUrl: string;
  logger: FastifyBaseLogger;
  hostFunctions: BindingDeps;
}

/**
 * Who uploads: the api names the tenant on POST /v1/inspect (TENANT_HEADER), whose inspections then
 * count against that tenant's concurrency like its calls. An inspection naming none (an older api)
 * counts under this key, which no tenant id (a UUID) can be.
 */
const UNNAMED_INSPECTIONS = 'inspections';

const RunnerHealth = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  inFlight: Type.Integer(),
  concurrency: Type.Integer(),
  cachedModules: Type.Integer(),
  warmPlugins: Type.Integer(),
  /** Sandbox threads running now, and how many were replaced since the start (deadlines, failures). */
  threads: Type.Integer(),
  threadsReplaced: Type.Integer(),
  /** Warm instances being prepared now, and modules never warmed again (start code past its limit). */
  warmPreparing: Type.Integer(),
  warmBarred: Type.Integer(),
  /** Calls in flight that have used 50 ms of CPU: each counts twice against its tenant. */
  longCalls: Type.Integer(),
});

/** Whether the module cache directory takes a write (the readiness condition besides capacity). */
export async function cacheWritable(cacheDir: string): Promise<boolean> {
  try {
    await fs.mkdir(cacheDir, { recursive: true });
    const probe = path.join(cacheDir, `.probe-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe);
    return true;
  } catch {
    return false;
  }
}

interface RunnerParts {
  gate: Gate;
  modules: ModuleStore;
  sandbox: SandboxPool;
}

function healthRoutes(options: RunnerOptions, parts: RunnerParts): FastifyPluginAsyncTypebox {
  return async (app) => {
    const snapshot = async (status: 'ok' | 'unavailable') => ({
      status,
      version: PLATFORM_VERSION,
      inFlight: parts.gate.inFlight,
      concurrency: parts.gate.concurrency,
      cachedModules: await parts.modules.cachedCount(),
      warmPlugins: parts.sandbox.warmCount,
      threads: parts.sandbox.threadCount,
      threadsReplaced: parts.sandbox.replaced,
      warmPreparing: parts.sandbox.preparing,
      warmBarred: parts.sandbox.barredCount,
      longCalls: parts.gate.longCalls,
    });
    const config = { public: true, rateLimit: false } as const;
    app.get('/health', { config, schema: { response: { 200: RunnerHealth } } }, async () => snapshot('ok'));
    app.get(
      '/health/ready',
      { config, schema: { response: { 200: RunnerHealth, 503: RunnerHealth } } },
      async (_request, reply) => {
        const ready = (await cacheWritable(options.cacheDir)) && !parts.gate.full;
        return reply.status(ready ? 200 : 503).send(await snapshot(ready ? 'ok' : 'unavailable'));
      },
    );
  };
}

/** What a call of a module's export may answer beyond the generic codes (the runner's failures). */
const CALL_ERRORS = errors(
  'module_not_found',
  'invalid_module',
  'missing_export',
  'timeout',
  'trapped',
  'bad_output',
  'busy',
  'module_unavailable',
);
const INSPECT_SCHEMA = { response: errors('busy') };

function exportRoutes(options: RunnerOptions, parts: RunnerParts): FastifyPluginAsyncTypebox {
  return async (app) => {
    // A request that does not match the runner's contract answers 400 bad_request.
    app.setErrorHandler(
      (error: FastifyError & { validation?: unknown[]; validationContext?: string }, request, reply) => {
        const translated = error.validation
          ? new ApiError('bad_request', 'the request does not match the runner contract', {
              issues: issuesFromAjv(error.validation as never[], error.validationContext),
            })
          : error;
        sendError(translated as FastifyError, request, reply);
      },
    );
    const isRunnerToken = secretMatcher(options.runnerToken);
    app.addHook('onRequest', async (request) => {
      const token = bearerOf(request.headers.authorization);
      if (!token || !isRunnerToken(token)) {
        throw new ApiError('unauthorized', 'the runner bearer token is missing or wrong');
      }
    });
    const bind = (state: Parameters<typeof bindHostFunctions>[0]) =>
      bindHostFunctions(state, options.hostFunctions);
    /** The call's answer as JSON text (outcomeJson), sent as it is. */
    const run = async (reply: FastifyReply, request: ExportRequest) => {
      const { tenantId } = request.call;
      if (!parts.gate.tryEnter(tenantId)) throw busy(parts.gate, tenantId);
      // The pool learns whose call it runs: the warm-ups the call asks for count against that tenant.
      const deps = {
        modules: parts.modules,
        sandbox: forTenant(parts.sandbox, tenantId),
        apiInternalUrl: options.apiInternalUrl,
        bind,
      };
      try {
        const text = outcomeJson(await executeExport(deps, request));
        reply.type('application/json; charset=utf-8');
        return text;
      } catch (error) {
        if (error instanceof RunnerFailure) throw new ApiError(error.code, error.message, error.details);
        throw error;
      } finally {
        parts.gate.leave(request.call.tenantId);
      }
    };
    const common = (body: {
      module: { sha256: string };
      call: ExportRequest['call'];
      config: Record<string, unknown>;
      secrets: Record<string, string>;
      hosts: string[];
      cache: ExportRequest['cache'];
    }) => ({
      sha256: body.module.sha256,
      call: body.call,
      config: body.config,
      secrets: body.secrets,
      hosts: body.hosts,
      cache: body.cache,
    });

    app.addContentTypeParser(
      'application/wasm',
      { parseAs: 'buffer', bodyLimit: MAX_MODULE_BYTES },
      (_req, body, done) => done(null, body),
    );
    app.post('/v1/inspect', { bodyLimit: MAX_MODULE_BYTES, schema: INSPECT_SCHEMA }, async (request) => {
      if (!Buffer.isBuffer(request.body)) {
        throw new ApiError('bad_request', 'send the module as the body, Content-Type application/wasm');
      }
      const named = request.headers[TENANT_HEADER];
      if (named !== undefined && (typeof named !== 'string' || !isUuid(named)))
        throw new ApiError('bad_request', `${TENANT_HEADER} must be the uploading tenant's id`);
      const tenantId = named ?? UNNAMED_INSPECTIONS;
      if (!parts.gate.tryEnter(tenantId)) throw busy(parts.gate, tenantId);
      try {
        return await inspectUpload(new Uint8Array(request.body), forTenant(parts.sandbox, tenantId));
      } finally {
        parts.gate.leave(tenantId);
      }
    });
    app.post(
      '/v1/invoke',
      { schema: { body: InvokeBody, response: CALL_ERRORS } },
      async (request, reply) => {
        const body = request.body;
        return run(reply, {
          exportName: 'invoke',
          ...common(body),
          documents: body.documents,
          timeoutMs: body.timeoutMs,
          fields: { action: body.action, idempotencyKey: body.idempotencyKey, input: body.input },
        });
      },
    );
    app.post(
      '/v1/webhooks/handle',
      { schema: { body: WebhookBody, response: CALL_ERRORS } },
      async (request, reply) =>
        run(reply, {
          exportName: 'handle_webhook',
          ...common(request.body),
          documents: null,
          timeoutMs: 15_000,
          fields: { request: request.body.request },
        }),
    );
    app.post(
      '/v1/handoff',
      { schema: { body: HandoffBody, response: CALL_ERRORS } },
      async (request, reply) =>
        run(reply, {
          exportName: 'handoff',
          ...common(request.body),
          documents: null,
          timeoutMs: 15_000,
          fields: { externalId: request.body.externalId, returnUrl: request.body.returnUrl },
        }),
    );
  };
}

function busy(gate: Gate, tenantId: string): ApiError {
  return gate.restricted(tenantId)
    ? new ApiError(
        'busy',
        "the tenant's calls ended too many sandbox threads lately (deadlines, start code past its limit)",
      )
    : new ApiError(
        'busy',
        'the runner or the tenant is at its concurrency limit (a call that has used 50 ms of CPU counts twice)',
      );
}

/** The pool as one tenant's work sees it: every run names that tenant. */
function forTenant(sandbox: SandboxPool, tenantId: string): Pick<SandboxPool, 'run' | 'startLimitMs'> {
  return {
    run: (module, call) => sandbox.run(module, { ...call, tenantId }),
    startLimitMs: sandbox.startLimitMs,
  };
}

export async function startRunner(options: RunnerOptions) {
  const gate = new Gate(options.concurrency, options.tenantConcurrency);
  const parts: RunnerParts = {
    gate,
    modules: new ModuleStore({
      cacheDir: options.cacheDir,
      apiInternalUrl: options.apiInternalUrl,
      runnerToken: options.runnerToken,
    }),
    sandbox: new SandboxPool({
      threads: options.concurrency,
      tenantConcurrency: options.tenantConcurrency,
      threadEnded: (tenantId) => gate.threadEnded(tenantId),
      longCall: (tenantId, delta) => gate.longCall(tenantId, delta),
      warmCapacity: options.warmPlugins,
      warmIdleMs: options.warmIdleMs,
      startLimitMs: options.startLimitMs,
      onError: (err) => options.logger.warn({ err }, 'a host function failed'),
    }),
  };
  const app = await createServer({
    logger: options.logger,
    bodyLimit: 2 * 1024 * 1024,
    // A call's input reaches the module as the platform built it; the module's answer is made storable.
    refuseUnstorableText: false,
  });
  await app.register(healthRoutes(options, parts));
  await app.register(exportRoutes(options, parts));
  const url = await app.listen({ host: options.host, port: options.port });
  return {
    url,
    close: async () => {
      await app.close();
      await parts.sandbox.close();
    },
  };
}
