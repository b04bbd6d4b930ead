// The OpenAPI description comes from the route schemas; /openapi.json serves it, /docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { describedSchema, type RouteSchema } from './openapi-answers.ts';

export const OPENAPI_VERSION = '0.0.0';
const DOCS_PREFIX = '/docs';

interface DescribedConfig {
  public?: boolean;
  rateLimit?: unknown;
  permission?: string;
  accepts?: string;
}

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  // The reference page and its assets are public like the description itself.
  app.addHook('onRoute', (route) => {
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
