// Requests no route takes: a known path asked with a method it lacks is 405 with Allow (OPTIONS gets the
// Allow alone, 204); any other path is 404. Both before authentication: the methods of a path are public
// (the OpenAPI description lists them).
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import Router, { type HTTPMethod } from 'find-my-way';
import { type ApiCode, statusOf } from './error-codes.ts';
import { errorBody } from './errors.ts';

/** The paths and methods routes were registered with, to ask which methods a concrete path has. */
function routeTable(app: FastifyInstance): (path: string) => string[] {
  const router = Router();
  const methods = new Set<HTTPMethod>();
  app.addHook('onRoute', (route) => {
    for (const method of ([] as HTTPMethods[]).concat(route.method)) {
      methods.add(method as HTTPMethod);
      router.on(method as HTTPMethod, route.url, () => {});
    }
  });
  return (path) => [...methods].filter((method) => router.find(method, path) !== null).sort();
}

export function installUnknownRoutes(app: FastifyInstance): void {
  const allowedOn = routeTable(app);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedOn(path);
    if (allowed.length === 0)
      return refuse(request, reply, 'not_found', `no route ${request.method} ${path}`);
    const allow = allowed.join(', ');
    reply.header('allow', allow);
    if (request.method === 'OPTIONS') return reply.status(204).send();
    const message = `${request.method} is not allowed on ${path}: use ${allow}`;
    return refuse(request, reply, 'method_not_allowed', message);
  });
}

function refuse(request: FastifyRequest, reply: FastifyReply, code: ApiCode, message: string) {
  request.failure = { code };
  return reply.status(statusOf(code)).send(errorBody(request.id, code, message));
}
