// The floor a run is measured against (issue 32): a bare DBOS workflow of a one-step run's shape, run by
// the same bench, in the same process, on the same engine and runner. Like a run, it is a row of its own
// written and its workflow enqueued on the `platform` queue through a DBOSClient (as the api does), then,
// in the worker: the row read, one DBOS step sending the runner the same call a run's attempt sends, the
// row written ended; the bench's poller sees the row end, as it sees a run's. Nothing of the platform's
// own work (HTTP, auth, admission, quotas, records, metering, audit) is in it.
import { randomUUID } from 'node:crypto';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/pool.ts';
import { PLATFORM_VERSION } from '../src/version.ts';
import { ENGINE_SCHEMA, enginePool, withIdleTransactionTimeout } from '../src/worker/engine.ts';

const BARE_WORKFLOW = 'bench.bare';

export interface BareWorkflow {
  /** Writes a row and enqueues its workflow; answers the row's id (the bench's poller waits on it). */
  start(): Promise<string>;
  /** The rows' ends, for the poller: id → status ('running' until the workflow wrote it). */
  statuses(ids: string[]): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/**
 * Registers the bare workflow; call before the worker launches DBOS. `call` is the runner call a run's
 * attempt sends (the bench's row 1).
 */
export function registerBareWorkflow(database: Database, call: () => Promise<void>): void {
  const step = () => call();
  DBOS.registerWorkflow(
    async (id: string) => {
      await database.db.execute(sql`select status from bench_bare where id = ${id}`);
      await DBOS.runStep(step, { name: 'call' });
      await database.db.execute(
        sql`update bench_bare set status = 'completed' where id = ${id} and status = 'running'`,
      );
    },
    { name: BARE_WORKFLOW },
  );
}

/** The bare workflow's table, and its client: enqueues as the api enqueues a run. */
export async function bareWorkflow(database: Database, poller: Database, url: string): Promise<BareWorkflow> {
  await database.db.execute(
    sql`create table if not exists bench_bare (id uuid primary key, status text not null)`,
  );
  // On the pool the api's engine client uses (runs/engine-client.ts), so the floor enqueues alike.
  const pool = enginePool(url, 4);
  const client = await DBOSClient.create({
    systemDatabaseUrl: withIdleTransactionTimeout(url),
    systemDatabasePool: pool,
    systemDatabaseSchemaName: ENGINE_SCHEMA,
  });
  return {
    async start() {
      const id = randomUUID();
      await database.db.execute(sql`insert into bench_bare (id, status) values (${id}, 'running')`);
      await client.enqueue(
        { queueName: 'platform', workflowName: BARE_WORKFLOW, workflowID: id, appVersion: PLATFORM_VERSION },
        id,
      );
      return id;
    },
    async statuses(ids) {
      const { rows } = await poller.db.execute<{ id: string; status: string }>(
        sql`select id, status from bench_bare where id = any(${`{${ids.join(',')}}`}::uuid[])`,
      );
      return new Map(rows.map((row) => [row.id, row.status]));
    },
    async close() {
      await client.destroy();
      await pool.end();
    },
  };
}
