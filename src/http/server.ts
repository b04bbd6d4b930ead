// The Fastify instance every HTTP-facing role builds on: request ids, the error body, no-store,
// one log line per request, rate limits, OpenAPI and bearer authentication.
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { TokenVerifier } from '../auth/tokens.ts';
import { installAuth, type TenantLookup } from './auth.ts';
import { ApiError, installErrorHandling } from './errors.ts';
import { installOpenApi } from './openapi.ts';
import { genReqId } from './request-id.ts';

export interface ServerOptions {
  logger: FastifyBaseLogger;
  /** Requests per caller per minute on this instance; 0 turns limiting off. */
  rateLimitPerMinute?: number;
  auth?: { verifier: TokenVerifier; findTenant: TenantLookup };
  openApi?: boolean;
  bodyLimit?: number;
}

export async function createServer(options: ServerOptions) {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId,
    requestIdHeader: false,
    // Fastify's own two lines per request are replaced by the one line of installConventions.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installConventions(app);
  installErrorHandling(app);
  if (options.openApi) await installOpenApi(app);
  if (options.rateLimitPerMinute) await installRateLimit(app, options.rateLimitPerMinute);
  if (options.auth) installAuth(app, options.auth.verifier, options.auth.findTenant);
  return app;
}

function installConventions(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  // One line per request, written when it completes; failures carry their error code.
  app.addHook('onResponse', async (request, reply) => {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      path: request.url.split('?')[0],
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime),
      ...(request.failure ? { code: request.failure.code } : {}),
      ...(request.failure?.error ? { err: request.failure.error } : {}),
    };
    if (reply.statusCode >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request completed');
  });
}

async function installRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    // After authentication, so a caller is its tenant user, not its address.
    hook: 'preHandler',
    keyGenerator: (request) =>
      request.principal
        ? `principal:${request.principal.tenantId}:${request.principal.subject}`
        : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new ApiError(429, 'rate_limited', `rate limit of ${context.max} requests a minute reached`, {
        retryAfterSeconds,
      });
    },
  });
}
