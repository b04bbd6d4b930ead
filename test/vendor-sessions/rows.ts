// Vendor sessions and webhook events written straight into the tables, as the session run path and the
// webhook route write them: the listing and the retention sweep read and delete what is there, whoever
// wrote it.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../src/db/pool.ts';
import { appInstalls } from '../../src/installs/index.ts';
import {
  appCallbacks,
  appWebhookEvents,
  type CallbackStatus,
  type WebhookEventOutcome,
} from '../../src/vendor-sessions/tables.ts';

export type SessionRow = typeof appCallbacks.$inferInsert;

/** A session of the tenant (pending, opened now, by a test call unless told otherwise); answers its row. */
export async function insertSession(
  db: Queryable,
  fields: Partial<SessionRow> & { tenantId: string; status?: CallbackStatus },
) {
  const settled = fields.status !== undefined && fields.status !== 'pending';
  const [row] = await db
    .insert(appCallbacks)
    .values({
      installId: randomUUID(),
      installName: 'kyc',
      versionId: randomUUID(),
      action: 'verify',
      externalId: `ext-${randomUUID()}`,
      ...(settled ? { completedAt: fields.createdAt ?? new Date() } : {}),
      ...fields,
    })
    .returning();
  if (!row) throw new Error('no session written');
  return row;
}

/** A webhook event of the tenant received at `receivedAt` (now by default); answers its row. */
export async function insertEvent(
  db: Queryable,
  fields: {
    tenantId: string;
    receivedAt?: Date;
    callbackId?: string;
    installId?: string;
    status?: 'completed' | 'failed' | 'pending';
    outcome?: WebhookEventOutcome;
  },
) {
  const [row] = await db
    .insert(appWebhookEvents)
    .values({
      installId: fields.installId ?? randomUUID(),
      callbackId: fields.callbackId ?? randomUUID(),
      eventId: `evt-${randomUUID()}`,
      status: fields.status ?? 'completed',
      outcome: fields.outcome ?? 'completed',
      tenantId: fields.tenantId,
      ...(fields.receivedAt ? { receivedAt: fields.receivedAt } : {}),
    })
    .returning();
  if (!row) throw new Error('no event written');
  return row;
}

/** An install row of the tenant (apps may be off: nothing reads its version here); answers its id. */
export async function insertInstall(db: Queryable, tenantId: string, name: string): Promise<string> {
  const [row] = await db
    .insert(appInstalls)
    .values({
      tenantId,
      name,
      appName: 'kyc-app',
      versionId: randomUUID(),
      enabled: true,
      config: {},
      hosts: [],
    })
    .returning({ id: appInstalls.id });
  if (!row) throw new Error('no install written');
  return row.id;
}
