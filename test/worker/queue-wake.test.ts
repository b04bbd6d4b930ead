// Queue dispatch on notice (docs/runs.md, "Queue dispatch"): with the safety poll ten minutes out, a run
// enqueued starts through the NOTIFY alone, and an idle worker sends no dequeue statement between polls.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { watchStatements } from '../support/statements.ts';
import { startProbeWorker } from './queue-wake-support.ts';

let probe: Awaited<ReturnType<typeof startProbeWorker>>;

// Every statement any pg client of this process sends (DBOS's pool among them), those that dequeue apart:
// the claim's SELECT … FOR UPDATE and the apps queue's partition scan (DBOS's deadline sweep, once a
// second, also locks rows, but claims none and is no poll).
let dequeues = 0;
const unwatch = watchStatements((text) => {
  if (/ORDER BY priority ASC, created_at ASC|WITH RECURSIVE partitions/.test(text)) dequeues++;
});

beforeAll(async () => {
  probe = await startProbeWorker(await createTestDatabase(), 10 * 60_000);
}, 60_000);

afterAll(async () => {
  await probe?.close();
  unwatch();
});

it('starts a run enqueued through the notice, the safety poll being ten minutes away', async () => {
  await probe.gated();
  const before = dequeues;
  expect(await probe.run(41)).toBe(42);
  expect(dequeues).toBeGreaterThan(before); // the count sees the dequeue it is meant to see
}, 30_000);

it('sends no dequeue statement while idle, over a hundred ticks of each queue', async () => {
  await probe.gated(); // the run's own follow-up polls are over
  const polls = probe.worker.queueWake?.stats().polls;
  const before = dequeues;
  await probe.gated(200);
  expect(dequeues).toBe(before);
  expect(probe.worker.queueWake?.stats().polls).toBe(polls);
}, 30_000);

it('polls every tick once its listener is gone, and still starts runs', async () => {
  await probe.worker.queueWake?.stopListening();
  const polls = probe.worker.queueWake?.stats().polls ?? 0;
  expect(await probe.run(1)).toBe(2);
  await expect
    .poll(() => probe.worker.queueWake?.stats().polls ?? 0, { timeout: 10_000, interval: 20 })
    .toBeGreaterThan(polls + 20);
}, 30_000);
