import type { AuthenticatedPrincipal } from '../http/auth.ts';
import type { Actor } from './trail.ts';

const ACTOR_TYPE = { human: 'user', machine: 'machine', applicant: 'applicant' } as const;

/** The audit actor for a request's principal. */
export function actorOf(principal: AuthenticatedPrincipal): Actor {
  return { type: ACTOR_TYPE[principal.kind], id: principal.subject, name: principal.name };
}

/** Who and where a request's change is audited: the principal's tenant trail, actor and request id. */
export const auditedBy = (ctx: { principal: AuthenticatedPrincipal; requestId: string }) => ({
  tenantId: ctx.principal.tenantId,
  actor: actorOf(ctx.principal),
  requestId: ctx.requestId,
});

/** The actor an operator's change is recorded under, in both trails: the name given with --by. */
export const operatorActor = (by: string): Actor => ({ type: 'operator', id: by, name: by });
