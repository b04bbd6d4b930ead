// A vendor session as the API answers it (docs/callbacks.md "Listing sessions"): its fields, and what a
// caller without runs:context sees of its output and error. The vendor's output is the applicant's data:
// such a caller still sees which fields came back (the keys), never what they hold.
import { Type } from 'typebox';
import { dateTime, nullable } from '../http/responses.ts';
import type { appCallbacks, appWebhookEvents, CallbackStatus, WebhookEventOutcome } from './tables.ts';

export const REDACTED = '[redacted]';

export const CALLBACK_STATUSES: readonly CallbackStatus[] = ['pending', 'completed', 'failed', 'timed_out'];

export interface CallbackView {
  id: string;
  tenantId: string;
  installId: string;
  installName: string;
  versionId: string;
  action: string;
  externalId: string;
  workflowRunId: string | null;
  stepId: string | null;
  status: CallbackStatus;
  output: unknown;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
}

type CallbackRow = typeof appCallbacks.$inferSelect;

/**
 * The output as a caller without runs:context sees it: an object keeps its keys, each value the text
 * [redacted]; any other value (an array, text, a number) is [redacted] whole; null stays null (there is
 * no output yet, which says nothing of the applicant).
 */
export function redactedOutput(output: unknown): unknown {
  if (output === null || output === undefined) return null;
  if (typeof output === 'object' && !Array.isArray(output)) {
    return Object.fromEntries(Object.keys(output).map((key) => [key, REDACTED]));
  }
  return REDACTED;
}

/** The session as the API answers it; without runs:context its output and error redacted. */
export function callbackView(row: CallbackRow, withContext: boolean): CallbackView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    installId: row.installId,
    installName: row.installName,
    versionId: row.versionId,
    action: row.action,
    externalId: row.externalId,
    workflowRunId: row.workflowRunId,
    stepId: row.stepId,
    status: row.status,
    output: withContext ? (row.output ?? null) : redactedOutput(row.output),
    error: withContext || row.error === null ? row.error : REDACTED,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

const Uuid = Type.String({ format: 'uuid' });
const REDACTED_NOTE = 'Without runs:context: [redacted].';

/** One vendor session (the items of GET /app-callbacks). */
export const CallbackSession = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    installId: Type.String({
      format: 'uuid',
      description: 'The install it belongs to (it may since be removed)',
    }),
    installName: Type.String({ description: 'The install’s name when the session opened' }),
    versionId: Type.String({
      format: 'uuid',
      description: 'The version whose module handles its webhook: the one that started it',
    }),
    action: Type.String(),
    externalId: Type.String({ description: 'The vendor’s id its webhook names' }),
    workflowRunId: nullable(Uuid, { description: 'The run whose step opened it; null for a test call' }),
    stepId: nullable(Type.String()),
    status: Type.Unsafe<CallbackStatus>({ type: 'string', enum: [...CALLBACK_STATUSES] }),
    output: Type.Unknown({
      description: `What the vendor's completing event gave; null until then. Without runs:context every value is [redacted], keys kept (a value other than an object is [redacted] whole).`,
    }),
    error: nullable(Type.String(), {
      description: `Why it did not complete (a failed event's error, run_cancelled, install_removed, orphaned, …). ${REDACTED_NOTE}`,
    }),
    createdAt: dateTime('When the session opened'),
    completedAt: nullable(dateTime(), { description: 'When it settled; null while pending' }),
  },
  { additionalProperties: false, title: 'CallbackSession' },
);

export const WEBHOOK_EVENT_OUTCOMES: readonly WebhookEventOutcome[] = [
  'accepted',
  'completed',
  'failed',
  'stale',
];

/** A vendor webhook a session received (GET /app-callbacks/:id/events): what it said and did, never its body. */
export interface ReceivedEventView {
  id: string;
  eventId: string;
  status: 'completed' | 'failed' | 'pending';
  outcome: WebhookEventOutcome;
  receivedAt: string;
}

export function receivedEventView(row: typeof appWebhookEvents.$inferSelect): ReceivedEventView {
  return {
    id: row.id,
    eventId: row.eventId,
    status: row.status,
    outcome: row.outcome,
    receivedAt: row.receivedAt.toISOString(),
  };
}

/** One item of GET /app-callbacks/:id/events. */
export const ReceivedEvent = Type.Object(
  {
    id: Uuid,
    eventId: Type.String({ description: 'The vendor’s event id (an install receives each once)' }),
    status: Type.Unsafe<'completed' | 'failed' | 'pending'>({
      type: 'string',
      enum: ['completed', 'failed', 'pending'],
      description: 'The status the event reported',
    }),
    outcome: Type.Unsafe<WebhookEventOutcome>({
      type: 'string',
      enum: [...WEBHOOK_EVENT_OUTCOMES],
      description:
        'What it did: accepted (recorded, the session stays pending), completed or failed (it settled the session), stale (it came after the session settled or timed out)',
    }),
    receivedAt: dateTime('When the platform received it'),
  },
  { additionalProperties: false, title: 'ReceivedWebhookEvent' },
);
