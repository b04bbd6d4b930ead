// GET /app-callbacks (docs/callbacks.md "Listing sessions"): a tenant's vendor sessions, newest first,
// read from the database alone, so the listing answers where apps are off too. Sessions outlive their
// install; the retention sweep (retention.ts) deletes settled ones, which are then gone from here. One
// session, and the vendor webhooks it received (app_webhook_events: never their bodies), read the same way.
import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import { type Page, pagedList } from '../http/paging.ts';
import { appInstalls } from '../installs/index.ts';
import {
  type CallbackView,
  callbackView,
  type ReceivedEventView,
  receivedEventView,
} from './session-view.ts';
import { appCallbacks, appWebhookEvents, type CallbackStatus } from './tables.ts';

export interface CallbackQuery {
  tenantId: string;
  /**
   * A name: sessions opened under it, and sessions of the install that bears it now (a renamed install's
   * sessions keep the name they opened under).
   */
  install?: string;
  installId?: string;
  workflowRunId?: string;
  status?: CallbackStatus;
  limit: number;
  offset: number;
}

function conditionsOf(db: Queryable, query: CallbackQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(appCallbacks.tenantId, query.tenantId)];
  if (query.install !== undefined) {
    // Install names are the tenant's own: another tenant's install of that name plays no part.
    const bearer = db
      .select({ id: appInstalls.id })
      .from(appInstalls)
      .where(and(eq(appInstalls.tenantId, query.tenantId), eq(appInstalls.name, query.install)));
    conditions.push(or(eq(appCallbacks.installName, query.install), inArray(appCallbacks.installId, bearer)));
  }
  if (query.installId !== undefined) conditions.push(eq(appCallbacks.installId, query.installId));
  if (query.workflowRunId !== undefined) conditions.push(eq(appCallbacks.workflowRunId, query.workflowRunId));
  if (query.status !== undefined) conditions.push(eq(appCallbacks.status, query.status));
  return and(...conditions);
}

/** The tenant's sessions matching the query, newest first, with the capped count of every match. */
export async function listCallbacks(
  db: Queryable,
  query: CallbackQuery,
  withContext: boolean,
): Promise<Page<CallbackView>> {
  return pagedList(
    db,
    {
      from: appCallbacks,
      where: conditionsOf(db, query),
      orderBy: [desc(appCallbacks.createdAt), desc(appCallbacks.id)],
      limit: query.limit,
      offset: query.offset,
    },
    (row) => callbackView(row, withContext),
  );
}

/** The tenant's session of that id; 404 not_found for none (another tenant's included). */
async function sessionRow(db: Queryable, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(appCallbacks)
    .where(and(eq(appCallbacks.tenantId, tenantId), eq(appCallbacks.id, id)));
  if (!row) throw notFound('no vendor session of that id');
  return row;
}

/** GET /app-callbacks/:id: one session, redacted as in the listing. */
export async function getCallback(
  db: Queryable,
  tenantId: string,
  id: string,
  withContext: boolean,
): Promise<CallbackView> {
  return callbackView(await sessionRow(db, tenantId, id), withContext);
}

/** GET /app-callbacks/:id/events: the webhooks the session received, newest first, paged. */
export async function listSessionEvents(
  db: Queryable,
  query: { tenantId: string; id: string; limit: number; offset: number },
): Promise<Page<ReceivedEventView>> {
  const session = await sessionRow(db, query.tenantId, query.id);
  return pagedList(
    db,
    {
      from: appWebhookEvents,
      where: and(eq(appWebhookEvents.tenantId, query.tenantId), eq(appWebhookEvents.callbackId, session.id)),
      orderBy: [desc(appWebhookEvents.receivedAt), desc(appWebhookEvents.id)],
      limit: query.limit,
      offset: query.offset,
    },
    receivedEventView,
  );
}
