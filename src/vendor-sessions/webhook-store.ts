// A vendor webhook's reads and its one write (docs/callbacks.md "Vendor webhooks"): the install with the
// version it runs, the session with the version it started on and its block, and the event's transaction — the
// session's first-wins settle, the event row (an install receives each event id once) and, for the
// delivery that settled it, the audit record, all committed together or not at all.
import { and, eq, sql } from 'drizzle-orm';
import { type Actor, recordAudit } from '../audit/trail.ts';
import { storable } from '../calls/index.ts';
import { blocksOfVersionRow } from '../catalogue/blocks.ts';
import { versionColumnsWithoutManifest, withManifest } from '../catalogue/manifests.ts';
import { appBlocks, appVersions } from '../catalogue/tables.ts';
import type { Database, Db, Tx } from '../db/pool.ts';
import { preparedOn } from '../db/prepared.ts';
import {
  appInstalls,
  type InstallRow,
  type StoredWithInstall,
  storedWithInstallColumns,
  storedWithInstallOf,
  type VersionRow,
} from '../installs/index.ts';
import { type SessionRow, settleSession } from './session-store.ts';
import { appCallbacks, appWebhookEvents, type CallbackStatus, type WebhookEventOutcome } from './tables.ts';
import { eventOutcome, type ModuleEvent } from './webhook-rules.ts';

/** Who the audit trail names for a vendor's delivery: the vendor, through the platform's webhook route. */
export const VENDOR_WEBHOOK_ACTOR: Actor = { type: 'system', id: 'vendor-webhook', name: 'vendor webhook' };

/**
 * The install of that id (any tenant: the webhook URL names it) with the version it runs now, its sealed
 * secrets and its cached values, in one query; or null.
 */
export async function installAndRunningVersion(
  db: Db,
  installId: string,
): Promise<{ install: InstallRow; running: VersionRow; stored: StoredWithInstall } | null> {
  const [row] = await installById(db).execute({ installId });
  if (!row) return null;
  return {
    install: row.install,
    running: await withManifest(db, row.running),
    stored: storedWithInstallOf(row.install, row),
  };
}

// A delivery's two reads, prepared once per pool (db/prepared.ts): building them was a tenth of a
// delivery's CPU in the api (issue 48).
const installById = preparedOn((db) =>
  db
    .select({
      install: appInstalls,
      running: versionColumnsWithoutManifest,
      ...storedWithInstallColumns,
    })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .where(eq(appInstalls.id, sql.placeholder('installId')))
    .prepare('webhook_install'),
);

const sessionByExternalId = preparedOn((db) => {
  const block = db.select({ id: appBlocks.id }).from(appBlocks).where(blocksOfVersionRow()).limit(1);
  return db
    .select({
      session: appCallbacks,
      version: versionColumnsWithoutManifest,
      blocked: sql<boolean>`exists (${block})`,
    })
    .from(appCallbacks)
    .leftJoin(appVersions, eq(appVersions.id, appCallbacks.versionId))
    .where(
      and(
        eq(appCallbacks.installId, sql.placeholder('installId')),
        eq(appCallbacks.externalId, sql.placeholder('externalId')),
      ),
    )
    .prepare('webhook_session');
});

/**
 * The install's session of that external id, the version it started on and whether a block covers that
 * version now (one query), or null when no session of the install has the id.
 */
export async function sessionAndVersion(
  db: Db,
  installId: string,
  externalId: string,
): Promise<{ session: SessionRow; version: VersionRow | null; blocked: boolean } | null> {
  const [row] = await sessionByExternalId(db).execute({ installId, externalId });
  if (!row) return null;
  const version = row.version ? await withManifest(db, row.version) : null;
  return { session: row.session, version, blocked: row.blocked };
}

export type Recorded =
  /** The install received this event id before: the whole transaction was rolled back. */
  | { kind: 'duplicate' }
  | {
      kind: 'recorded';
      outcome: WebhookEventOutcome;
      /** The session's status once the transaction ended. */
      status: CallbackStatus;
      /** This delivery settled the session (the one whose run is woken). */
      won: boolean;
    };

/** Thrown inside the event's transaction to roll all of it back when the event id was received before. */
class DuplicateEvent extends Error {}

/**
 * Step 5, in one transaction: a completion or failure settles the session if it is still pending (first
 * wins: a rival waits on the row's lock, then finds it settled); a pending event only reads the
 * session's status under a share lock (so it waits for a settle in flight and sees its result); then
 * the event row goes in, and a conflict on (install, event id) rolls everything back — a duplicate
 * neither settles nor records anything. The delivery that settled the session audits it.
 */
export async function recordEvent(
  database: Database,
  install: InstallRow,
  session: SessionRow,
  event: ModuleEvent,
  requestId: string,
): Promise<Recorded> {
  try {
    return await database.db.transaction(async (tx) => {
      const settled = event.status === 'pending' ? null : await settleSession(tx, session.id, endOf(event));
      const status = settled?.status ?? (await lockedStatus(tx, session.id));
      const outcome = eventOutcome(event.status, settled !== null, status);
      const inserted = await tx
        .insert(appWebhookEvents)
        .values({
          tenantId: install.tenantId,
          installId: install.id,
          callbackId: session.id,
          eventId: event.eventId,
          status: event.status,
          outcome,
        })
        .onConflictDoNothing({ target: [appWebhookEvents.installId, appWebhookEvents.eventId] })
        .returning({ id: appWebhookEvents.id });
      if (inserted.length === 0) throw new DuplicateEvent();
      if (settled) await auditReceived(tx, install, session, event, requestId);
      return { kind: 'recorded' as const, outcome, status, won: settled !== null };
    });
  } catch (error) {
    if (error instanceof DuplicateEvent) return { kind: 'duplicate' };
    throw error;
  }
}

/** How a completion or failure settles the session: the step's output, or the vendor's error text. */
function endOf(event: ModuleEvent) {
  return event.status === 'completed'
    ? { status: 'completed' as const, output: storable(event.output ?? null), error: null }
    : {
        status: 'failed' as const,
        error: event.error === undefined ? null : (storable(event.error) as string),
      };
}

/** The session's status now, waiting for a settle in flight (its row lock) to end. */
async function lockedStatus(tx: Tx, sessionId: string): Promise<CallbackStatus> {
  const [row] = await tx
    .select({ status: appCallbacks.status })
    .from(appCallbacks)
    .where(eq(appCallbacks.id, sessionId))
    .for('share');
  // Retention deleted it since it was found: nothing is left to record an event on.
  if (!row) throw new SessionGone();
  return row.status;
}

/** The session was deleted between being found and the event's transaction (retention). */
export class SessionGone extends Error {}

/** app.callback.received: install, app, external id, status and event id — never the payload. */
function auditReceived(
  tx: Tx,
  install: InstallRow,
  session: SessionRow,
  event: ModuleEvent,
  requestId: string,
) {
  return recordAudit(tx, {
    tenantId: install.tenantId,
    action: 'app.callback.received',
    actor: VENDOR_WEBHOOK_ACTOR,
    resource: { type: 'app_install', id: install.id },
    data: {
      name: install.name,
      appName: install.appName,
      callbackId: session.id,
      action: session.action,
      externalId: session.externalId,
      status: event.status,
      eventId: event.eventId,
    },
    requestId,
  });
}
