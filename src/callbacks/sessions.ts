// Vendor sessions as installs see them (docs/installs.md "Removing an install"). The callbacks issue
// opens, completes and times sessions out; removing an install needs two questions answered now.
import { and, count, eq, isNotNull, sql } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { appCallbacks } from './tables.ts';

/** Pending sessions of the install that a run waits on (install_in_use's details.pendingCallbacks). */
export async function pendingCallbacksOf(db: Queryable, installId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(appCallbacks)
    .where(
      and(
        eq(appCallbacks.installId, installId),
        eq(appCallbacks.status, 'pending'),
        isNotNull(appCallbacks.workflowRunId),
      ),
    );
  return row?.n ?? 0;
}

/**
 * DELETE with force=true: the install's pending sessions fail with install_removed (their waiting runs
 * then fail with it). Answers how many were failed.
 */
export async function failPendingCallbacks(db: Queryable, installId: string): Promise<number> {
  const failed = await db
    .update(appCallbacks)
    .set({ status: 'failed', error: 'install_removed', completedAt: sql`now()` })
    .where(and(eq(appCallbacks.installId, installId), eq(appCallbacks.status, 'pending')))
    .returning({ id: appCallbacks.id });
  return failed.length;
}
