// Bearer authentication and per-route permissions. Routes say `config: { public: true }` or
// `config: { permission: 'apps:read' }`; every other route needs only a valid token. An applicant's token
// (kind applicant: the link of one collection submission) reaches only routes that say
// `config: { applicant: true }`, and carries no permission whatever its claims say.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/claims.ts';
import type { Permission } from '../auth/permissions.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import { ApiError, forbidden, unauthorized } from './errors.ts';
import { TokenGate } from './refusal-limit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean;
    permission?: Permission;
    /** An applicant may call it (the route checks that the submission is theirs). */
    applicant?: boolean;
  }
  interface FastifyRequest {
    principal?: AuthenticatedPrincipal;
  }
}

export interface AuthenticatedPrincipal extends Principal {
  tenantName: string;
}

/** Looks a tenant up by id; null when the token names a tenant this deployment does not have. */
export type TenantLookup = (tenantId: string) => Promise<{ id: string; name: string } | null>;

/** The request's bearer token; 401 without one. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header) : null;
  if (!match?.[1]) throw unauthorized();
  return match[1];
}

export interface AuthOptions {
  verifier: TokenVerifier;
  findTenant: TenantLookup;
  /** Refused tokens per client address per minute before its unknown tokens wait unverified; 0: no limit. */
  refusalsPerMinute?: number;
}

export function installAuth(app: FastifyInstance, options: AuthOptions): void {
  const gate = new TokenGate(options.verifier, options.refusalsPerMinute ?? 0);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.public || !request.routeOptions.url) return; // unknown routes fall through to not_found
    const token = bearerToken(request);
    let principal: Principal;
    try {
      principal = await gate.principal(token, request.ip);
    } catch (error) {
      const retryAfter = error instanceof ApiError ? error.details?.retryAfterSeconds : undefined;
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      throw error;
    }
    const tenant = await options.findTenant(principal.tenantId);
    if (!tenant) throw unauthorized('bearer token names an unknown tenant');
    const applicant = principal.kind === 'applicant';
    request.principal = {
      ...principal,
      ...(applicant ? { permissions: new Set<Permission>(), roles: [] } : {}),
      tenantName: tenant.name,
    };
    request.log = request.log.child({ tenantId: tenant.id, principalKind: principal.kind });
    if (applicant && !config.applicant) {
      throw forbidden('an applicant’s token reaches only its submission’s routes');
    }
    if (config.permission && !request.principal.permissions.has(config.permission)) {
      throw forbidden(`this route needs the ${config.permission} permission`, {
        permission: config.permission,
      });
    }
  });
}

/** The authenticated principal of a route that is not public. */
export function principalOf(request: FastifyRequest): AuthenticatedPrincipal {
  if (!request.principal) throw new ApiError('internal', 'internal error');
  return request.principal;
}
