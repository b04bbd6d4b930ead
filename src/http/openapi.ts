// The OpenAPI description comes from the route schemas; /openapi.json serves it, /docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const OPENAPI_VERSION = '0.0.0';
const DOCS_PREFIX = '/docs';

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
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: ({ schema, url, route }) => {
      const isPublic = (route.config as { public?: boolean } | undefined)?.public;
      const described = { ...(schema as object) } as Record<string, unknown>;
      if (isPublic) described.security = [];
      return { schema: described as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  app.get('/openapi.json', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
