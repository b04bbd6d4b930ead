// An expired link's request for a new one (docs/handoff.md "A new link"): the applicant opens their link
// after its token expired, and the collection terminal asks for a new link with that token. The platform
// mints no applicant tokens (the identity provider does, when the tenant's collection flow sends a link):
// it records the request as collection.submission.link_requested, which raises the tenant's
// submission.link_requested webhook event, and the tenant's flow sends a fresh link.
//
// The expired token is the applicant's only proof: it is verified as every token is (signature, issuer,
// audience, tenant, kind applicant, its submission) except for its expiry, and it opens nothing but this.
// A token still valid is refused (the link works); repeats within LINK_REQUEST_QUIET_MS of an audited
// request are answered the same but not audited again, so a reloading page raises one event.
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import { principalFromClaims } from '../auth/claims.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import type { Database } from '../db/pool.ts';
import { conflict, unauthorized } from '../http/errors.ts';
import { findTenantById } from '../tenants/service.ts';
import { applicantSubmission } from './submissions-store.ts';
import { collectionSubmissions } from './tables.ts';

/** After an audited request, the same submission's requests within this long raise no second event. */
export const LINK_REQUEST_QUIET_MS = 15 * 60_000;

export interface LinkRequestDeps {
  database: Database;
  verifier: TokenVerifier;
}

export interface LinkRequest {
  token: string;
  submissionId: string;
  requestId: string;
}

export interface LinkRequestAnswer {
  id: string;
  /** When the request the tenant was told about was made (this one, or one within the quiet time). */
  linkRequestedAt: string;
}

/** The applicant an expired (or live) token names, with when it expired; 401 when it does not verify. */
async function lapsedApplicant(verifier: TokenVerifier, token: string) {
  let claims: Awaited<ReturnType<TokenVerifier['verify']>>;
  try {
    claims = await (verifier.verifyLapsed ? verifier.verifyLapsed(token) : verifier.verify(token));
  } catch {
    throw unauthorized('bearer token is invalid');
  }
  const principal = principalFromClaims(claims);
  if ('problem' in principal) throw unauthorized(`bearer token is not usable: ${principal.problem}`);
  return { principal, expiresAt: new Date((claims.exp as number) * 1000) };
}

export async function requestLink(deps: LinkRequestDeps, request: LinkRequest): Promise<LinkRequestAnswer> {
  const db = deps.database.db;
  const { principal, expiresAt } = await lapsedApplicant(deps.verifier, request.token);
  const tenant = await findTenantById(db, principal.tenantId);
  if (!tenant) throw unauthorized('bearer token names an unknown tenant');
  const applicant = { ...principal, tenantName: tenant.name };
  // 403 for anyone but the submission's applicant, 404 for a submission the tenant does not have.
  const submission = await applicantSubmission(db, applicant, request.submissionId);
  if (expiresAt.getTime() > Date.now())
    throw conflict('the link has not expired: it still opens the submission');
  return db.transaction(async (tx) => {
    const quietSince = sql`now() - make_interval(secs => ${LINK_REQUEST_QUIET_MS / 1000})`;
    const [marked] = await tx
      .update(collectionSubmissions)
      .set({ linkRequestedAt: sql`now()` })
      .where(
        and(
          eq(collectionSubmissions.tenantId, submission.tenantId),
          eq(collectionSubmissions.id, submission.id),
          or(
            isNull(collectionSubmissions.linkRequestedAt),
            lt(collectionSubmissions.linkRequestedAt, quietSince),
          ),
        ),
      )
      .returning({ linkRequestedAt: collectionSubmissions.linkRequestedAt });
    if (!marked?.linkRequestedAt) {
      // Within the quiet time of the last audited request: the tenant already knows.
      return { id: submission.id, linkRequestedAt: (submission.linkRequestedAt as Date).toISOString() };
    }
    await recordAudit(tx, {
      tenantId: submission.tenantId,
      action: 'collection.submission.link_requested',
      actor: actorOf(applicant),
      resource: { type: 'collection_submission', id: submission.id },
      data: { workflowRunId: submission.workflowRunId, linkExpiredAt: expiresAt.toISOString() },
      requestId: request.requestId,
    });
    return { id: submission.id, linkRequestedAt: marked.linkRequestedAt.toISOString() };
  });
}
