// The vendor session a submission's applicant may be handed off for (docs/handoff.md "Which session"):
// read here, chosen by the pure rule (handoff-rules.ts handoffCandidate). One query reads the run's
// newest pending sessions, each with the version that handles it, whether a block covers that version,
// and its install (absent once removed), and only while the run waits on a session.
import { and, desc, eq, sql } from 'drizzle-orm';
import { blocksOfVersionRow } from '../catalogue/blocks.ts';
import { appBlocks, appVersions } from '../catalogue/tables.ts';
import type { Queryable } from '../db/pool.ts';
import { appInstalls, type InstallRow, type VersionRow } from '../installs/index.ts';
import { runWaitingOnSession } from '../runs/index.ts';
import { appCallbacks } from '../vendor-sessions/index.ts';
import { HANDOFF_SESSIONS_READ, handoffCandidate } from './handoff-rules.ts';

export type SessionRow = typeof appCallbacks.$inferSelect;

/** The session chosen, the version whose module handles it, and its install (enabled, present). */
export interface HandoffSession {
  session: SessionRow;
  version: VersionRow;
  install: InstallRow;
}

/**
 * The session to hand the submission's applicant off for, or null: the run does not wait on a vendor
 * session (status waiting_callback), or none of its newest pending sessions is eligible (its version
 * declares no hand-off or is blocked, its install is removed or disabled).
 */
export async function findHandoffSession(
  db: Queryable,
  tenantId: string,
  workflowRunId: string,
): Promise<HandoffSession | null> {
  const waits = runWaitingOnSession(db, tenantId, workflowRunId);
  const blocked = db.select({ one: sql`1` }).from(appBlocks).where(blocksOfVersionRow());
  const rows = await db
    .select({
      session: appCallbacks,
      version: appVersions,
      blocked: sql<boolean>`exists (${blocked})`,
      install: appInstalls,
    })
    .from(appCallbacks)
    .innerJoin(appVersions, eq(appVersions.id, appCallbacks.versionId))
    .leftJoin(
      appInstalls,
      and(eq(appInstalls.id, appCallbacks.installId), eq(appInstalls.tenantId, appCallbacks.tenantId)),
    )
    .where(
      and(
        eq(appCallbacks.tenantId, tenantId),
        eq(appCallbacks.workflowRunId, workflowRunId),
        eq(appCallbacks.status, 'pending'),
        sql`exists (${waits})`,
      ),
    )
    .orderBy(desc(appCallbacks.createdAt), desc(appCallbacks.id))
    .limit(HANDOFF_SESSIONS_READ);
  const chosen = handoffCandidate(rows);
  if (!chosen?.install) return null;
  return { session: chosen.session, version: chosen.version, install: chosen.install };
}
