// Routes whose body is optional (e.g. a decision's { comment? }): a request without one, or with an
// empty JSON body, reads as {} before validation. A top-level Type.Optional leaves no mark in the
// schema Fastify sees, so the route says it with this hook instead.
import type { FastifyRequest } from 'fastify';

export async function absentBodyIsEmpty(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}
