// The one error body (docs/api-conventions.md), and the translation of everything thrown into it.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUnavailable } from '../db/errors.ts';
import { isUndeclared, undeclaredFails } from './declared-errors.ts';
import { type ApiCode, statusOf } from './error-codes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body type a route takes when not JSON, named by its 415 answer. */
    accepts?: string;
  }
}

export interface Issue {
  path: string;
  message: string;
}

/** An error answer: its code a key of the catalogue (error-codes.ts), its status the catalogue's. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ApiCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Only for a framework's refusal passed on under its own 4xx status (bad_request). */
    statusCode?: number,
  ) {
    const status = statusCode ?? statusOf(code);
    // A refusal (4xx) is an answer, not a fault: nothing reads its stack, which cost about 5 µs to capture
    // (a runner shedding load pays that for every busy answer). A 5xx keeps its stack for the log line.
    const frames = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = frames;
    this.statusCode = status;
  }
}

export const validationError = (issues: Issue[], message = 'request is not valid') =>
  new ApiError('validation_error', message, { issues });
export const notFound = (message = 'not found') => new ApiError('not_found', message);
export const forbidden = (message = 'permission denied', details?: Record<string, unknown>) =>
  new ApiError('forbidden', message, details);
export const unauthorized = (message = 'a valid bearer token is required') =>
  new ApiError('unauthorized', message);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError('conflict', message, details);

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string };
}

export function errorBody(
  requestId: string,
  code: ApiCode,
  message: string,
  details?: Record<string, unknown>,
) {
  const body: ErrorBody = { error: { code, message, requestId } };
  if (details !== undefined) body.error.details = details;
  return body;
}

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  /** Set on the issues of a member's name (propertyNames). */
  propertyName?: string;
}

/** Turns Ajv issues into { path, message }: a JSON Pointer into the body, or `query.x` / `params.x`. */
export function issuesFromAjv(errors: AjvIssue[], context: string | undefined): Issue[] {
  // A member name breaking propertyNames comes twice: as what is wrong with the name (kept, below) and
  // as "property name must be valid" on its object (dropped).
  return errors
    .filter((e) => e.keyword !== 'propertyNames')
    .map((e) => {
      let pointer = e.instancePath ?? '';
      let message = e.message ?? 'is not valid';
      if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
        pointer += `/${e.params.missingProperty}`;
        message = 'is required';
      } else if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
        pointer += `/${e.params.additionalProperty}`;
        message = 'unknown field';
      } else if (typeof e.propertyName === 'string') {
        pointer += `/${e.propertyName.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        message = `name ${message}`;
      } else if (e.keyword === 'discriminator' && typeof e.params?.tag === 'string') {
        // A oneOf told apart by a tag (a workflow step's type): the tag is what is wrong.
        pointer += `/${e.params.tag}`;
        message =
          e.params.tagValue === undefined
            ? 'is required'
            : e.params.error === 'tag'
              ? 'must be string'
              : 'is not a type this place takes';
      }
      if (context === 'body' || context === undefined) return { path: pointer || '/', message };
      const dotted = pointer.split('/').filter(Boolean).join('.');
      return {
        path: dotted ? `${context === 'querystring' ? 'query' : context}.${dotted}` : context,
        message,
      };
    });
}

/** Ajv's errors as issues at JSON Pointers under `pointer` (e.g. /input for a body's input field). */
export function issuesUnder(pointer: string, errors: AjvIssue[]): Issue[] {
  return issuesFromAjv(errors, 'body').map((issue) => ({
    ...issue,
    path: issue.path === '/' ? pointer : `${pointer}${issue.path}`,
  }));
}

/** Maps Fastify's own errors (parsing, limits) to the catalogue's codes (error-codes.ts); anything else unknown is internal. */
function translate(
  error: FastifyError & { validation?: AjvIssue[]; validationContext?: string },
  request: FastifyRequest,
): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationError(issuesFromAjv(error.validation, error.validationContext));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ path: '/', message: 'body is not valid JSON' }], 'body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'request body is too large');
    // A body shorter or longer than its Content-Length is a bad request (400 below), not a media type problem.
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request);
    default:
      break;
  }
  if (error.statusCode === 429) return new ApiError('rate_limited', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('bad_request', 'request could not be processed', undefined, error.statusCode);
  }
  // The database went away (stopped, restarting): the request may succeed once it is back.
  if (isUnavailable(error)) {
    return new ApiError('service_unavailable', "the platform's database is not answering; try again shortly");
  }
  return new ApiError('internal', 'internal error');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The error behind this response, for the one log line written when it completes. */
    failure?: { code: string; error?: unknown };
  }
}

/** 415 naming the type the route takes (its config's `accepts`, else JSON), and the one sent if plain. */
function unsupportedMediaType(request: FastifyRequest): ApiError {
  const sent = request.headers['content-type']?.split(';')[0]?.trim() ?? '';
  const named = /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/.test(sent) ? `Content-Type ${sent}` : 'this Content-Type';
  const accepted = request.routeOptions?.config?.accepts ?? 'application/json';
  return new ApiError('unsupported_media_type', `${named} is not accepted here: send ${accepted}`);
}

/** Refusals that may come before the body is read: the rest of it is not waited for. */
const CLOSING = new Set([401, 413, 415, 429]);

/** Answers with the error body for anything thrown, remembering the failure for the request's log line. */
export function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const api = declaredOrInternal(translate(error, request), request);
  request.failure = { code: api.code, error: api.statusCode >= 500 ? error : undefined };
  // Node would read (and drop) the unread body to keep the connection alive, so a client trickling it
  // would hold the socket; Connection: close makes Node close it once the answer is out.
  if (CLOSING.has(api.statusCode) && !request.raw.complete) reply.header('connection', 'close');
  reply.status(api.statusCode).send(errorBody(request.id, api.code, api.message, api.details));
}

/** The error as answered, unless its route does not declare its code (declared-errors.ts). */
function declaredOrInternal(api: ApiError, request: FastifyRequest): ApiError {
  if (!isUndeclared(request, api.statusCode, api.code)) return api;
  request.log.error({ code: api.code, status: api.statusCode }, 'the route does not declare this error code');
  if (!undeclaredFails()) return api;
  const route = `${request.method} ${request.routeOptions.url}`;
  return new ApiError('internal', `the route ${route} does not declare ${api.code} at ${api.statusCode}`);
}

/** Errors thrown anywhere; requests no route takes are answered by installUnknownRoutes (methods.ts). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
}
