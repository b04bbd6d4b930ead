// The worker's one LISTEN connection for enqueue notices, and the trigger that sends them
// (docs/operations.md). A lost connection reconnects with backoff; the gate polls meanwhile.
import pg from 'pg';
import type { Logger } from 'pino';
import { openClient } from '../db/client.ts';

export const QUEUE_WAKE_CHANNEL = 'platform_queue_wake';

/**
 * Every enqueue path (DBOSClient, startWorkflow, children, delayed rows turning due, recovery) writes
 * status ENQUEUED on dbos.workflow_status: the trigger names the queue. Created after DBOS.launch (DBOS
 * creates its schema then), idempotently and under a lock, since workers start side by side.
 */
export async function ensureEnqueueTrigger(databaseUrl: string, schema: string): Promise<void> {
  const client = openClient({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('${QUEUE_WAKE_CHANNEL}'))`);
    await client.query(`CREATE OR REPLACE FUNCTION "${schema}".platform_queue_wake() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('${QUEUE_WAKE_CHANNEL}', NEW.queue_name); RETURN NULL; END $$`);
    await client.query(`CREATE OR REPLACE TRIGGER platform_queue_wake
      AFTER INSERT OR UPDATE OF status ON "${schema}".workflow_status FOR EACH ROW
      WHEN (NEW.status = 'ENQUEUED' AND NEW.queue_name IS NOT NULL)
      EXECUTE FUNCTION "${schema}".platform_queue_wake()`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

export interface ListenerEvents {
  /** A queue was enqueued on. */
  onNotice(queue: string): void;
  /** LISTEN holds (true) or the connection is lost (false). */
  onListening(listening: boolean): void;
}

const MAX_BACKOFF_MS = 5_000;

export function startQueueListener(databaseUrl: string, events: ListenerEvents, logger: Logger) {
  let stopped = false;
  let client: pg.Client | null = null;
  let backoff = 100;
  let retry: NodeJS.Timeout | null = null;

  // Only the current connection's loss counts: an old one's late 'end' must not end its successor.
  const lost = (old: pg.Client, reason: unknown) => {
    if (client !== old) return;
    client = null;
    events.onListening(false);
    old.removeAllListeners('notification');
    old.end().catch(() => {});
    if (stopped) return;
    logger.warn({ err: reason }, 'queue listener lost its connection; polling until it is back');
    retry = setTimeout(connect, backoff);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  };

  const connect = async () => {
    retry = null;
    const next = new pg.Client({
      connectionString: databaseUrl,
      application_name: 'apps-platform-queue-wake',
    });
    client = next;
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    next.on('notification', (message) => {
      if (message.channel === QUEUE_WAKE_CHANNEL && message.payload) events.onNotice(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${QUEUE_WAKE_CHANNEL}`);
      if (client !== next) return;
      backoff = 100;
      events.onListening(true);
    } catch (error) {
      lost(next, error);
    }
  };

  void connect();
  return {
    /** Ends the connection (a test cuts notices with it; the worker closes it on shutdown). */
    async stop(): Promise<void> {
      stopped = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      events.onListening(false);
      await current?.end().catch(() => {});
    },
  };
}
