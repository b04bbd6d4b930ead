// The worker role against the run's real PostgreSQL. DBOS is a process-wide singleton, so this file
// launches it once (vitest gives each file its own process) and closes it in the last test.
import { Writable } from 'node:stream';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { databaseAnswers } from '../../src/db/probe.ts';
import { createLogger } from '../../src/logging.ts';
import { ENGINE_SCHEMA, TASK_QUEUES, type TaskQueue } from '../../src/worker/engine.ts';
import { type QueueState, summarizeHealth } from '../../src/worker/health.ts';
import { type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { until } from '../runs/worker-process.ts';
import { createTestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';

const RUNNING_HEALTH = {
  status: 'ok',
  workers: [
    { taskQueue: 'platform', state: 'running' },
    { taskQueue: 'apps', state: 'running' },
  ],
  temporal: { engine: 'dbos', database: 'connected' },
};

async function query<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('summarizeHealth', () => {
  const states = (...entries: [TaskQueue, QueueState][]) => new Map<TaskQueue, QueueState>(entries);

  it('is ok when every queue runs and the database answers', () => {
    expect(summarizeHealth(states(['platform', 'running'], ['apps', 'running']), true)).toEqual(
      RUNNING_HEALTH,
    );
  });

  it.each<QueueState>(['starting', 'failed', 'stopped'])('is unavailable when one queue is %s', (state) => {
    const report = summarizeHealth(states(['platform', 'running'], ['apps', state]), true);
    expect(report.status).toBe('unavailable');
    expect(report.workers).toEqual([
      { taskQueue: 'platform', state: 'running' },
      { taskQueue: 'apps', state },
    ]);
    expect(report.temporal).toEqual({ engine: 'dbos', database: 'connected' });
  });

  it('is unavailable, naming the database unreachable, when the database does not answer', () => {
    expect(summarizeHealth(states(['platform', 'running'], ['apps', 'running']), false)).toEqual({
      ...RUNNING_HEALTH,
      status: 'unavailable',
      temporal: { engine: 'dbos', database: 'unreachable' },
    });
  });

  it('is unavailable with no queue at all', () => {
    expect(summarizeHealth(states(), true)).toEqual({
      status: 'unavailable',
      workers: [],
      temporal: { engine: 'dbos', database: 'connected' },
    });
  });

  it('keeps the order of the queues it is given', () => {
    const report = summarizeHealth(states(['apps', 'failed'], ['platform', 'running']), true);
    expect(report.workers.map((w) => w.taskQueue)).toEqual(['apps', 'platform']);
  });
});

describe('databaseAnswers', () => {
  it('is false for a port nobody listens on', async () => {
    const url = `postgres://postgres:postgres@127.0.0.1:${await freePort()}/postgres`;
    expect(await databaseAnswers(url, 1000)).toBe(false);
  });

  it('is false for a database that does not exist on a live server', async () => {
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = '/no_such_database';
    expect(await databaseAnswers(url.toString(), 2000)).toBe(false);
  });
});

describe('startWorker on real PostgreSQL', () => {
  let databaseUrl: string;
  let worker: RunningWorker;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({
      service: 'apps-platform-worker-test',
      level: 'info',
      env: 'test',
      destination,
    });
    worker = await startWorker({ databaseUrl, logger, healthPort: 0, healthHost: '127.0.0.1' });
  });

  afterAll(async () => {
    if (DBOS.isInitialized()) await worker?.close();
  });

  it('serves the task queues the platform names', () => {
    expect(TASK_QUEUES).toEqual(['platform', 'apps']);
  });

  it('brings both queues to running through the self-check', async () => {
    expect(DBOS.isInitialized()).toBe(true);
    expect(await worker.health()).toEqual(RUNNING_HEALTH);
    const started = logs.find((line) => line.msg === 'worker started');
    expect(started?.workers).toEqual({ platform: 'running', apps: 'running' });
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('answers GET /healthz with 200 and the health report', async () => {
    expect(worker.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${worker.healthUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual(RUNNING_HEALTH);
  });

  it('answers 404 on other paths of the health listener', async () => {
    expect((await fetch(`${worker.healthUrl}/nothing-here`)).status).toBe(404);
  });

  it('keeps the engine tables in schema dbos of the same database, none in public', async () => {
    const tables = await query<{ table_schema: string; table_name: string }>(
      databaseUrl,
      `SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_name IN ('workflow_status', 'operation_outputs')`,
    );
    expect(ENGINE_SCHEMA).toBe('dbos');
    expect(tables.map((t) => `${t.table_schema}.${t.table_name}`).sort()).toEqual([
      'dbos.operation_outputs',
      'dbos.workflow_status',
    ]);
    // The platform's own tables are still there beside them.
    const platform = await query(
      databaseUrl,
      `SELECT 1 FROM information_schema.tables WHERE table_name = 'tenants'`,
    );
    expect(platform).toHaveLength(1);
  });

  it('ran the self-check as a durable workflow through each queue, with its step checkpointed', async () => {
    const workflows = await query<{ workflow_uuid: string; queue_name: string; status: string }>(
      databaseUrl,
      `SELECT workflow_uuid, queue_name, status FROM dbos.workflow_status WHERE name = 'platform.selfCheck'`,
    );
    expect(workflows.map((w) => [w.queue_name, w.status]).sort()).toEqual([
      ['apps', 'SUCCESS'],
      ['platform', 'SUCCESS'],
    ]);
    const steps = await query<{ function_name: string }>(
      databaseUrl,
      'SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = ANY($1)',
      [workflows.map((w) => w.workflow_uuid)],
    );
    expect(steps.map((s) => s.function_name)).toEqual(['self-check-step', 'self-check-step']);
  });

  it('stops the engine, its health listener and its connections on close()', async () => {
    const { healthUrl } = worker;
    await worker.close();
    expect(DBOS.isInitialized()).toBe(false);
    await expect(fetch(`${healthUrl}/healthz`)).rejects.toThrow();
    const report = await worker.health();
    expect(report.status).toBe('unavailable');
    expect(report.workers).toEqual([
      { taskQueue: 'platform', state: 'stopped' },
      { taskQueue: 'apps', state: 'stopped' },
    ]);
    // No connection of the engine is left on its database (only this query's own). A backend leaves
    // pg_stat_activity a moment after its client saw the connection close (the health probe's just above,
    // this file's own queries): read until none is left, for at most 5 s, then assert on what stays.
    const name = new URL(databaseUrl).pathname.slice(1);
    const others = () =>
      query(
        databaseUrl,
        'SELECT pid, application_name, state FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
    await until(
      'every other connection gone',
      async () => ((await others()).length === 0 ? true : null),
      5_000,
    ).catch(() => {});
    expect(await others()).toEqual([]);
  });
});
