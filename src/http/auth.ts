// Bearer authentication and per-route permissions. Routes say `config: { public: true }` or
// `config: { permission: 'apps:read' }`; every other route needs only a valid token.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Principal, principalFromClaims } from '../auth/claims.ts';
import type { Permission } from '../auth/permissions.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import { ApiError, forbidden, unauthorized } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean;
    permission?: Permission;
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

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header) : null;
  if (!match?.[1]) throw unauthorized();
  return match[1];
}

export function installAuth(app: FastifyInstance, verifier: TokenVerifier, findTenant: TenantLookup): void {
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public || !request.routeOptions.url) return; // unknown routes fall through to not_found
    const token = bearerToken(request);
    let principal: Principal | { problem: string };
    try {
      principal = principalFromClaims(await verifier.verify(token));
    } catch {
      throw unauthorized('bearer token is invalid or expired');
    }
    if ('problem' in principal) throw unauthorized(`bearer token is not usable: ${principal.problem}`);
    const tenant = await findTenant(principal.tenantId);
    if (!tenant) throw unauthorized('bearer token names an unknown tenant');
    request.principal = { ...principal, tenantName: tenant.name };
    request.log = request.log.child({ tenantId: tenant.id, principalKind: principal.kind });
    if (config.permission && !principal.permissions.has(config.permission)) {
      throw forbidden(`this route needs the ${config.permission} permission`, {
        permission: config.permission,
      });
    }
  });
}

/** The authenticated principal of a route that is not public. */
export function principalOf(request: FastifyRequest): AuthenticatedPrincipal {
  if (!request.principal) throw new ApiError(500, 'internal', 'internal error');
  return request.principal;
}
