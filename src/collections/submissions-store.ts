// Collection submissions (docs/handoff.md "Submissions"): created for a run of a subject by a tenant's
// user or machine, sent once the applicant's link went out, read by their applicant. Every read is scoped
// by tenant: another tenant's submission answers as unknown (404).
import { and, eq, sql } from 'drizzle-orm';
import { actorOf } from '../audit/actor.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Queryable } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';
import { forbidden, notFound, validationError } from '../http/errors.ts';
import { runSubjectOf } from '../runs/index.ts';
import { collectionSubmissions } from './tables.ts';

export type SubmissionRow = typeof collectionSubmissions.$inferSelect;

export interface SubmissionView {
  id: string;
  subjectId: string;
  workflowRunId: string;
  status: SubmissionRow['status'];
  createdAt: string;
  createdBy: string;
  sentAt: string | null;
}

export const submissionView = (row: SubmissionRow): SubmissionView => ({
  id: row.id,
  subjectId: row.subjectId,
  workflowRunId: row.workflowRunId,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
  sentAt: row.sentAt?.toISOString() ?? null,
});

/** Who asks, and under which request: the trail names both. */
export interface SubmissionContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
}

const notFoundSubmission = () => notFound('no collection submission with that id');

export async function findSubmission(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<SubmissionRow | null> {
  const [row] = await db
    .select()
    .from(collectionSubmissions)
    .where(and(eq(collectionSubmissions.tenantId, tenantId), eq(collectionSubmissions.id, id)));
  return row ?? null;
}

/**
 * Only the submission's own applicant: a token of kind applicant whose subject is the submission's id
 * (its tenant is the token's, so another tenant's submission of the same id reads as unknown later).
 * Anyone else (a user, a machine, another submission's applicant) is refused before anything is read.
 */
export function assertApplicantOf(principal: AuthenticatedPrincipal, submissionId: string): void {
  if (principal.kind !== 'applicant' || principal.subject.toLowerCase() !== submissionId.toLowerCase()) {
    throw forbidden('only the submission’s applicant, with the token of their link, may ask this');
  }
}

/** The applicant's submission, or 404 (the token outlived it, or names another tenant's). */
export async function applicantSubmission(
  db: Queryable,
  principal: AuthenticatedPrincipal,
  id: string,
): Promise<SubmissionRow> {
  assertApplicantOf(principal, id);
  const row = await findSubmission(db, principal.tenantId, id);
  if (!row) throw notFoundSubmission();
  return row;
}

/**
 * A new open submission for a run of the tenant; the subject must be the run's (400 at /subjectId
 * otherwise), an unknown run is 404. Audited collection.submission.created.
 */
export async function createSubmission(
  ctx: SubmissionContext,
  body: { subjectId: string; workflowRunId: string },
): Promise<SubmissionView> {
  const { principal } = ctx;
  return ctx.database.db.transaction(async (tx) => {
    const subjectId = await runSubjectOf(tx, principal.tenantId, body.workflowRunId);
    if (subjectId === null) throw notFound('no workflow run with that id');
    if (subjectId !== body.subjectId) {
      throw validationError(
        [{ path: '/subjectId', message: 'the workflow run is of another subject' }],
        'the submission’s subject must be its run’s',
      );
    }
    const [row] = await tx
      .insert(collectionSubmissions)
      .values({
        tenantId: principal.tenantId,
        subjectId: body.subjectId,
        workflowRunId: body.workflowRunId,
        createdBy: principal.subject,
      })
      .returning();
    if (!row) throw new Error('submission insert returned no row');
    await recordAudit(tx, {
      tenantId: principal.tenantId,
      action: 'collection.submission.created',
      actor: actorOf(principal),
      resource: { type: 'collection_submission', id: row.id },
      data: { workflowRunId: row.workflowRunId },
      requestId: ctx.requestId,
    });
    return submissionView(row);
  });
}

/**
 * Marks the submission sent (the applicant has their link): from then on hand-off may start. Sending a
 * sent submission again changes nothing and is not audited again; the first sending is audited
 * collection.submission.sent.
 */
export async function sendSubmission(ctx: SubmissionContext, id: string): Promise<SubmissionView> {
  const { principal } = ctx;
  return ctx.database.db.transaction(async (tx) => {
    const [sent] = await tx
      .update(collectionSubmissions)
      .set({ status: 'sent', sentAt: sql`now()` })
      .where(
        and(
          eq(collectionSubmissions.tenantId, principal.tenantId),
          eq(collectionSubmissions.id, id),
          eq(collectionSubmissions.status, 'open'),
        ),
      )
      .returning();
    if (sent) {
      await recordAudit(tx, {
        tenantId: principal.tenantId,
        action: 'collection.submission.sent',
        actor: actorOf(principal),
        resource: { type: 'collection_submission', id },
        data: { workflowRunId: sent.workflowRunId },
        requestId: ctx.requestId,
      });
      return submissionView(sent);
    }
    const row = await findSubmission(tx, principal.tenantId, id);
    if (!row) throw notFoundSubmission();
    return submissionView(row);
  });
}

export async function getSubmission(ctx: SubmissionContext, id: string): Promise<SubmissionView> {
  const row = await findSubmission(ctx.database.db, ctx.principal.tenantId, id);
  if (!row) throw notFoundSubmission();
  return submissionView(row);
}
