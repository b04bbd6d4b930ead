// How request parts are validated: a JSON body exactly as sent, text parts (query string, path, headers)
// read as numbers and booleans where the schema says so. And two rules for every route: it takes only
// the query parameters its schema names (none when it names none), and no text PostgreSQL cannot store.
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { type Issue, validationError } from './errors.ts';
import { unstorablePointers } from './unstorable-text.ts';

/**
 * The options both compilers share; unknown fields are refused by the schemas, never dropped. A oneOf with
 * a discriminator (the steps of a workflow) checks only the branch its tag names.
 */
const AJV_OPTIONS = {
  removeAdditional: false,
  useDefaults: true,
  allErrors: true,
  discriminator: true,
} as const;

type ValidatorFactory = AjvCompiler.BuildCompilerFromPool;
/** What the pool's compilers are at run time (their declared type is Ajv's compile). */
type RouteCompiler = FastifySchemaCompiler<unknown>;

/**
 * One pool for the process: Fastify's compiler keeps an Ajv per set of shared schemas and options, and
 * Ajv keeps each compiled schema by its object, so the public and internal instances (and a test's
 * instances) compile each route schema once.
 */
const pool = AjvCompiler();

/**
 * Fastify's own Ajv compiler (ajv-formats, shared schemas) twice: without coercion for bodies (JSON
 * carries its own types: "true" is no boolean, "apps" no array), with it for text, where every value
 * arrives as a string (`limit=5`, `force=true`).
 */
export function partValidators(): ValidatorFactory {
  return (externalSchemas, ajvOptions) => {
    const plugins = ajvOptions?.plugins ?? [];
    const compiler = (coerceTypes: false | 'array') =>
      pool(externalSchemas, {
        customOptions: { ...AJV_OPTIONS, coerceTypes },
        plugins,
      }) as unknown as RouteCompiler;
    const body = compiler(false);
    const text = compiler('array');
    const byPart: RouteCompiler = (route) =>
      compiledOnFirstUse(() => (route.httpPart === 'body' ? body(route) : text(route)));
    return byPart as unknown as ReturnType<ValidatorFactory>;
  };
}

type Validate = ReturnType<RouteCompiler> & { errors?: unknown };

/**
 * A route's validator compiled when its first request comes rather than when the server starts: a
 * start compiles none of the api's hundreds of schemas (most of its CPU), and a process that serves a
 * few routes compiles only theirs. Fastify reads `errors` off the function it was given after a refusal.
 */
function compiledOnFirstUse(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const lazy = ((data: unknown) => {
    validate ??= compile();
    const result = validate(data);
    lazy.errors = validate.errors;
    return result;
  }) as Validate;
  return lazy;
}

/** The reference page's assets take what a browser sends them: they are no API operation. */
const isReferencePage = (url: string) => url === '/docs' || url.startsWith('/docs/');
const NO_PARAMETERS = Type.Object({}, { additionalProperties: false });

/**
 * A route takes only the query parameters its schema names: one it does not name is refused (400 at
 * `query.<name>`) rather than ignored, on a route without a query string schema (it takes none) and on
 * one whose schema forgot `additionalProperties: false` alike. One place, so no route can leave it out.
 */
export function refuseUnnamedQueryParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (isReferencePage(route.url)) return;
    const named = route.schema?.querystring as Record<string, unknown> | undefined;
    route.schema = { ...route.schema, querystring: named === undefined ? NO_PARAMETERS : closed(named) };
  });
}

const closedSchemas = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

/**
 * A query schema as named, closed unless it says itself whether other parameters are taken; the same
 * object for the same schema, so its compiled validator is found again (pool above).
 */
function closed(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.additionalProperties !== undefined) return schema;
  const known = closedSchemas.get(schema);
  if (known) return known;
  const closedSchema = { ...schema, additionalProperties: false };
  closedSchemas.set(schema, closedSchema);
  return closedSchema;
}

const UNSTORABLE_MESSAGE = 'holds U+0000 or an unpaired surrogate (\\ud800-\\udfff), which cannot be stored';

/**
 * Where a parsed request part holds U+0000 or a lone surrogate (unstorable-text.ts), as issues: JSON
 * Pointers in a body, `query.x` and `params.x` in the text parts.
 */
export function unstorableIssues(value: unknown, part: 'body' | 'query' | 'params'): Issue[] {
  return unstorablePointers(value).map((pointer) => ({
    path: part === 'body' ? pointer || '/' : `${part}.${pointer.split('/').filter(Boolean).join('.')}`,
    message: UNSTORABLE_MESSAGE,
  }));
}

/**
 * Such text in the query string or the path is refused before the route's schema sees it: 400 at its
 * name, never the 500 PostgreSQL's refusal would give. JSON bodies are checked as they are parsed.
 */
export function refuseUnstorableText(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const issues = [
      ...unstorableIssues(request.params, 'params'),
      ...unstorableIssues(request.query, 'query'),
    ];
    if (issues.length > 0) throw validationError(issues);
  });
}
