// The OpenAPI description comes from the route schemas; /openapi.json serves it, /docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { describedSchema, type RouteSchema } from './openapi-answers.ts';
import { absentBodyIsEmpty } from './optional-body.ts';

export const OPENAPI_VERSION = '0.0.0';
const DOCS_PREFIX = '/docs';

interface DescribedConfig {
  public?: boolean;
  rateLimit?: unknown;
  permission?: string;
  accepts?: string;
}

/** `/apps/:name` → `/apps/{name}`: a Fastify route's path as the description spells it. */
const describedPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  // Routes whose body may be left out (absentBodyIsEmpty), as "method path": @fastify/swagger marks every
  // body it describes required, so the document is corrected for these once it is built.
  const optionalBodies = new Set<string>();
  app.addHook('onRoute', (route) => {
    const hooks = [route.preValidation].flat();
    if (hooks.includes(absentBodyIsEmpty)) {
      for (const method of [route.method].flat())
        optionalBodies.add(`${method.toLowerCase()} ${describedPath(route.url)}`);
    }
    // The reference page and its assets are public like the description itself.
    if (route.url.startsWith(DOCS_PREFIX)) {
      route.config = { ...(route.config as object), public: true, rateLimit: false } as typeof route.config;
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Apps Platform API',
        version: OPENAPI_VERSION,
        description:
          'Sandboxed WebAssembly apps for the risk-management backend. Errors use one body: { error: { code, message, details?, requestId } }.',
      },
      // Relative: the API is served where this document is (GET /openapi.json at its root).
      servers: [{ url: '/', description: 'The host serving this document' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
    // Shared schemas (app.addSchema) keep their $id as their name: #/components/schemas/ErrorBody.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const [path, operations] of Object.entries(openapiObject.paths ?? {})) {
        for (const [method, operation] of Object.entries(operations ?? {})) {
          const body = (operation as { requestBody?: { required?: boolean } }).requestBody;
          if (body && optionalBodies.has(`${method} ${path}`)) body.required = false;
        }
      }
      return openapiObject;
    },
    transform: ({ schema, url, route }) => {
      const config = (route.config ?? {}) as DescribedConfig;
      const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
      const described = describedSchema((schema ?? {}) as RouteSchema, { method, ...config });
      return { schema: described as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  app.get('/openapi.json', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
