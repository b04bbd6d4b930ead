// Queue dispatch on notice (docs/runs.md, "Queue dispatch"): with notices lost (the trigger disabled, the
// listener still connected), the safety poll still starts a run enqueued.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENGINE_SCHEMA } from '../../src/worker/index.ts';
import { createTestDatabase } from '../support/database.ts';
import { startProbeWorker } from './queue-wake-support.ts';

let databaseUrl: string;
let probe: Awaited<ReturnType<typeof startProbeWorker>>;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  probe = await startProbeWorker(databaseUrl, 300);
}, 60_000);

afterAll(async () => {
  await probe?.close();
});

it('starts a run through the safety poll when no notice comes', async () => {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`ALTER TABLE "${ENGINE_SCHEMA}".workflow_status DISABLE TRIGGER platform_queue_wake`);
  } finally {
    await admin.end();
  }
  await probe.gated();
  expect(await probe.run(7)).toBe(8);
}, 30_000);
