// The console (console/, built to console/dist by `npm run build:console`, at `npm ci`) served by the api at
// /console/: same origin as the API, so no CORS and no second server. Hidden from /openapi.json: these are
// pages, not the API.
//
// - Hashed files under assets/ are cached for a year (their name changes with their content); index.html
//   and every other file are revalidated each time (no-cache), so a new build is seen at once.
// - Any other path under /console/ answers index.html: the console's router shows the page, so a deep link
//   (/console/runs/<id>, an href an activity item names) opens where it points.
// - Every answer carries a Content-Security-Policy that allows no inline script or style and no framing.
// - Without a build, a 503 in plain words says how to make one.
// - /console/config.json tells the console, before anyone signs in, whether the deployment's identity
//   provider signs people in (OpenID Connect), and as which client.
import fs from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConsoleOidcSettings } from '../config.ts';
import { cacheControlOf, consoleFileOf, consoleHeadersFor } from './serving-rules.ts';

export const CONSOLE_PREFIX = '/console';
export const CONSOLE_DIST = path.resolve(import.meta.dirname, '../../console/dist');
export const NOT_BUILT =
  'The console is not built: run `npm run build:console` (npm ci builds it), then reload this page.\n';

/** Public, not rate limited (a page load is several files), no query schema of the API's, not described. */
const ROUTE_OPTIONS = {
  config: { public: true, rateLimit: false },
  schema: { hide: true, querystring: { type: 'object', additionalProperties: true } },
} as const;

/** What /console/config.json answers: the sign-in the console offers besides the development one. */
const CONFIG_SCHEMA = {
  type: 'object',
  required: ['oidc'],
  additionalProperties: false,
  properties: {
    oidc: {
      type: ['object', 'null'],
      required: ['issuer', 'clientId', 'scope'],
      additionalProperties: false,
      properties: { issuer: { type: 'string' }, clientId: { type: 'string' }, scope: { type: 'string' } },
    },
  },
} as const;

export function consoleRoutes(distDir: string = CONSOLE_DIST, oidc: ConsoleOidcSettings | null = null) {
  const headers = consoleHeadersFor(oidc?.issuer ?? null);
  const settings = { oidc: oidc && { issuer: oidc.issuer, clientId: oidc.clientId, scope: oidc.scope } };
  return async (app: FastifyInstance) => {
    // reply.sendFile only: the routes below decide what each path answers.
    await app.register(fastifyStatic, { root: distDir, serve: false });
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.routeOptions.url?.startsWith(CONSOLE_PREFIX)) {
        for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      }
      return payload;
    });
    app.get(CONSOLE_PREFIX, ROUTE_OPTIONS, async (request, reply) => {
      const query = request.url.slice(CONSOLE_PREFIX.length);
      return reply.redirect(`${CONSOLE_PREFIX}/${query}`, 302);
    });
    app.get(
      `${CONSOLE_PREFIX}/config.json`,
      { ...ROUTE_OPTIONS, schema: { ...ROUTE_OPTIONS.schema, response: { 200: CONFIG_SCHEMA } } },
      async (_request, reply) => reply.header('cache-control', 'no-cache').send(settings),
    );
    app.get(`${CONSOLE_PREFIX}/*`, ROUTE_OPTIONS, async (request, reply) => {
      const wanted = (request.params as { '*': string })['*'];
      const file = await consoleFileOf(wanted, (candidate) => isFile(path.join(distDir, candidate)));
      if (file === null) return notFound(reply);
      if (file === 'index.html' && !(await isFile(path.join(distDir, file)))) {
        return reply
          .status(503)
          .type('text/plain; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(NOT_BUILT);
      }
      reply.header('cache-control', cacheControlOf(file));
      return reply.sendFile(file, { cacheControl: false });
    });
  };
}

function notFound(reply: FastifyReply) {
  return reply.status(404).type('text/plain; charset=utf-8').send('Not found\n');
}

async function isFile(file: string): Promise<boolean> {
  return (await fs.stat(file).catch(() => null))?.isFile() ?? false;
}
