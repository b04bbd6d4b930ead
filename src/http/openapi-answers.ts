// What the description says beyond a route's own schema, derived from what the route is: the error statuses
// every route of its kind can answer (the route declares only its own), its non-JSON body, and which query
// parameters a client may leave out. Pure: schema and config in, the schema to describe out.
import type { ApiCode } from './error-codes.ts';

/** A route's schema as Fastify holds it (TypeBox objects are plain JSON Schema objects). */
export type RouteSchema = Record<string, unknown>;

export interface RouteTraits {
  method: string;
  public?: boolean;
  /** `false` when the route is exempt from the per-caller rate limit. */
  rateLimit?: unknown;
  permission?: string;
  /** The body type a route takes when not JSON (its config's `accepts`). */
  accepts?: string;
}

const GENERIC: Record<number, string> = {
  400: 'The request is not valid: validation_error with the issues at their JSON Pointers',
  401: 'No valid bearer token: unauthorized',
  403: 'The token lacks the permission this route needs, or is an applicant’s on another route: forbidden',
  413: 'The body is larger than this route takes: payload_too_large',
  415: 'The body is not of the type this route takes: unsupported_media_type',
  429: 'Too many requests from this caller: rate_limited, with retryAfterSeconds',
  500: 'An unexpected failure: internal',
  503: 'A dependency is unavailable: service_unavailable (the database) or apps_unavailable (the runner)',
};

/** The codes of the generic statuses: any route of the kind may answer them without declaring them. */
export const GENERIC_CODES: Readonly<Record<number, readonly ApiCode[]>> = {
  400: ['validation_error', 'bad_request'],
  401: ['unauthorized'],
  403: ['forbidden'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited'],
  500: ['internal'],
  503: ['service_unavailable', 'apps_unavailable'],
};

/** Fastify parses a body for these methods whatever the route, so each can answer 400, 413 and 415. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The generic error statuses a route can answer, ascending. */
export function genericStatuses(schema: RouteSchema, traits: RouteTraits): number[] {
  const takesBody = schema.body !== undefined || BODY_METHODS.has(traits.method.toUpperCase());
  const validates = takesBody || schema.querystring !== undefined || schema.params !== undefined;
  const statuses = [500, 503];
  if (validates) statuses.push(400);
  if (!traits.public) statuses.push(401);
  // Every route a token reaches may refuse it: the permission, or an applicant's token off its routes.
  if (!traits.public) statuses.push(403);
  if (takesBody) statuses.push(413, 415);
  if (!traits.public || traits.rateLimit !== false) statuses.push(429);
  return statuses.sort((a, b) => a - b);
}

/** The route's declared answers plus the generic error statuses it does not declare itself. */
export function withGenericErrors(schema: RouteSchema, traits: RouteTraits): Record<string, unknown> {
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const generic = Object.fromEntries(
    genericStatuses(schema, traits).map((status) => [
      status,
      { $ref: 'ErrorBody', description: GENERIC[status] },
    ]),
  );
  return { ...generic, ...declared };
}

/** A query parameter with a default is filled in when absent (Ajv's useDefaults): never required. */
export function withOptionalDefaults(querystring: RouteSchema): RouteSchema {
  const properties = (querystring.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = querystring.required as string[] | undefined;
  if (!required) return querystring;
  return { ...querystring, required: required.filter((name) => properties[name]?.default === undefined) };
}

/** A JSON type (`application/json`, `application/….+json`) or a text type, whose schema OpenAPI reads as the value's. */
const readsAsValue = (type: string) => /^application\/(?:[\w.-]+\+)?json$|^text\//i.test(type);

/**
 * A body taken as raw bytes (the route's `accepts`: one type, or a comma list), described per type. A
 * binary type is a string of bytes. Under a JSON or text type a schema describes the value those bytes
 * spell, and a raw route takes any: `false`, `0` and `[null, null]` are JSON documents too, kept as sent.
 * So no type is claimed there, rather than a `string` the route never asks for.
 */
export function rawBody(accepts: string) {
  const types = accepts.split(',').map((type) => type.trim());
  const schemaOf = (type: string) =>
    readsAsValue(type)
      ? { description: `The raw bytes: any ${type} content, kept as sent` }
      : { type: 'string', format: 'binary', description: `The raw bytes (${type})` };
  return {
    body: { content: Object.fromEntries(types.map((type) => [type, { schema: schemaOf(type) }])) },
  };
}

/** The schema to describe: generic errors added, defaults optional, a raw body named. */
export function describedSchema(schema: RouteSchema, traits: RouteTraits): RouteSchema {
  const described: RouteSchema = { ...schema };
  if (traits.accepts && schema.body === undefined) Object.assign(described, rawBody(traits.accepts));
  if (schema.querystring) described.querystring = withOptionalDefaults(schema.querystring as RouteSchema);
  described.response = withGenericErrors(described, traits);
  if (traits.public) described.security = [];
  return described;
}
