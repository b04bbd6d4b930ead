// The Fastify instance every HTTP-facing role builds on: a server span per request, request ids, the
// error body, no-store, one log line per request, rate limits, OpenAPI and bearer authentication.
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { TokenVerifier } from '../auth/tokens.ts';
import type { TrustProxy } from '../config.ts';
import { installHttpTelemetry } from '../telemetry/index.ts';
import { installAuth, type TenantLookup } from './auth.ts';
import { ApiError, installErrorHandling, sendError, validationError } from './errors.ts';
import { depthExcess, depthMessage } from './json-depth.ts';
import { jsonErrorPlace } from './json-position.ts';
import { collectRouteWords, maskedPath } from './log-path.ts';
import { installUnknownRoutes } from './methods.ts';
import { installOpenApi } from './openapi.ts';
import { genReqId } from './request-id.ts';
import { ErrorBody } from './responses.ts';
import { sharedSerializers } from './serializers.ts';
import { mayHoldUnstorable } from './unstorable-text.ts';
import {
  partValidators,
  refuseUnnamedQueryParameters,
  refuseUnstorableText,
  unstorableIssues,
} from './validation.ts';

export interface ServerOptions {
  logger: FastifyBaseLogger;
  /** Requests per caller per minute on this instance; 0 turns limiting off. */
  rateLimitPerMinute?: number;
  /** Refused tokens per client address per minute, counted before authentication; 0 or absent: off. */
  authFailuresPerMinute?: number;
  auth?: { verifier: TokenVerifier; findTenant: TenantLookup };
  /** How long a request may take to arrive, and how long a socket may stay silent; absent: Node's defaults. */
  timeouts?: { requestMs: number; connectionMs: number };
  openApi?: boolean;
  bodyLimit?: number;
  /** Whose X-Forwarded-For names the client address (TRUST_PROXY); absent: the connection's peer. */
  trustProxy?: TrustProxy;
  /**
   * Refuse text PostgreSQL cannot store in requests (400 at its place; unstorable-text.ts). Default true;
   * the runner turns it off: it stores nothing, and its callers are the platform's own processes.
   */
  refuseUnstorableText?: boolean;
}

export async function createServer(options: ServerOptions) {
  // The fixed words of the routes' paths: what a request no route takes may show of its path in the log.
  const routeWords = new Set<string>();
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId,
    requestIdHeader: false,
    // Fastify's own two lines per request are replaced by the one line of installConventions.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: trustProxyOption(options.trustProxy ?? false),
    // The router would answer a parameter over 100 characters with its own 414; as long as a request
    // line can be (Node's 16 KiB of headers), the route's schema decides instead: 400 at params.<name>.
    routerOptions: { maxParamLength: 16 * 1024 },
    ...(options.timeouts ? timeoutOptions(options.timeouts) : {}),
    schemaController: {
      compilersFactory: { buildValidator: partValidators(), buildSerializer: sharedSerializers() },
    },
    // A URL Fastify cannot decode is answered before any hook or error handler runs, so it gets the
    // conventions here; otherwise it would go out in Fastify's own body without x-request-id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id).header('cache-control', 'no-store');
      reply.raw.once('finish', () => logCompletion(request, reply, routeWords));
      sendError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  collectRouteWords(app, routeWords);
  // Routes declare error answers as Type.Ref('ErrorBody') (responses.ts errors()); the description names it once.
  app.addSchema(ErrorBody);
  // The API speaks JSON: a text/plain body is refused (415) rather than handed to a route as a string.
  app.removeContentTypeParser('text/plain');
  const refusesUnstorable = options.refuseUnstorableText ?? true;
  installJsonParser(app, refusesUnstorable);

  // First: every later hook and the handler run inside the request's span.
  installHttpTelemetry(app);
  installConventions(app, routeWords);
  installErrorHandling(app);
  installUnknownRoutes(app);
  refuseUnnamedQueryParameters(app);
  if (refusesUnstorable) refuseUnstorableText(app);
  if (options.openApi) await installOpenApi(app);
  if (options.rateLimitPerMinute) await installRateLimit(app, options.rateLimitPerMinute);
  if (options.auth) installAuth(app, { ...options.auth, refusalsPerMinute: options.authFailuresPerMinute });
  return app;
}

/** A hop count as the function Fastify runs it as (its types name no number). */
function trustProxyOption(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/**
 * A request must arrive whole (headers and body) within requestMs: Node then answers 408 and closes the
 * socket. Node checks on an interval (30 s by default), tightened here so a short timeout holds.
 */
function timeoutOptions(timeouts: { requestMs: number; connectionMs: number }) {
  return {
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.connectionMs,
    http: {
      headersTimeout: Math.min(60_000, timeouts.requestMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(timeouts.requestMs / 4))),
    },
  };
}

/**
 * JSON bodies: an empty one is no body (the route's schema decides whether it needs one), one nested
 * deeper than MAX_JSON_DEPTH is refused before it is parsed, so no recursive code ever walks it, and one
 * holding U+0000 or a lone surrogate is refused once parsed, at each place (unstorable-text.ts).
 */
function installJsonParser(app: FastifyInstance, refusesUnstorable: boolean): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    const tooDeep = depthRefusal(text);
    if (tooDeep) return done(tooDeep, undefined);
    parse(request, text, (error, json) => {
      const place = error ? jsonErrorPlace(text) : null;
      if (place === null) {
        const unstorable = !error && refusesUnstorable ? unstorableRefusal(text, json) : null;
        return unstorable ? done(unstorable, undefined) : done(error, json);
      }
      const message = `body is not valid JSON ${place}`;
      done(validationError([{ path: '/', message }], message), undefined);
    });
  });
}

/** A JSON text nested deeper than MAX_JSON_DEPTH, refused (400 at its place) before it is parsed; else null. */
export function depthRefusal(text: string): ApiError | null {
  const pointer = depthExcess(text);
  return pointer === null ? null : validationError([{ path: pointer, message: depthMessage() }]);
}

/** A parsed body holding U+0000 or a lone surrogate, refused (400 at each place); else null. */
export function unstorableRefusal(text: string, json: unknown): ApiError | null {
  const issues = mayHoldUnstorable(text) ? unstorableIssues(json, 'body') : [];
  return issues.length > 0 ? validationError(issues) : null;
}

function installConventions(app: FastifyInstance, routeWords: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => logCompletion(request, reply, routeWords));
}

/**
 * The one line per request, written when it completes; failures carry their error code. Where it went is
 * the route's pattern, or for a request no route takes its path with the ids masked (log-path.ts): never a
 * subject id or any other path parameter or query as sent.
 */
function logCompletion(request: FastifyRequest, reply: FastifyReply, routeWords: ReadonlySet<string>): void {
  const route = request.routeOptions.url;
  const line = {
    method: request.method,
    ...(route ? { route } : { route: null, path: maskedPath(request.url, routeWords) }),
    statusCode: reply.statusCode,
    responseTimeMs: Math.round(reply.elapsedTime),
    ...(request.failure ? { code: request.failure.code } : {}),
    ...(request.failure?.error ? { err: request.failure.error } : {}),
  };
  if (reply.statusCode >= 500) request.log.error(line, 'request failed');
  else request.log.info(line, 'request completed');
}

async function installRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    // A route's own onRequest hooks run after the app's, so this is after authentication (a caller is
    // its tenant user, not its address) yet before parsing and validation: refused input counts too,
    // and its response carries the x-ratelimit headers like any other.
    hook: 'onRequest',
    keyGenerator: (request) =>
      request.principal
        ? `principal:${request.principal.tenantId}:${request.principal.subject}`
        : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new ApiError('rate_limited', `rate limit of ${context.max} requests a minute reached`, {
        retryAfterSeconds,
      });
    },
  });
}
