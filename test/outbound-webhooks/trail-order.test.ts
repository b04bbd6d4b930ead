// No event is lost to commit order (docs/outbound-webhooks.md "From the audit trail to deliveries"): a
// transaction that writes its audit row and commits 15 seconds later, after rows with higher ids were
// read and delivered, still has its event delivered; and nothing is read twice. The reader's clock is
// moved instead of waiting.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/trail.ts';
import { fanoutPass } from '../../src/outbound-webhooks/fan-out/fan-out-store.ts';
import { webhookDeliveries } from '../../src/outbound-webhooks/tables.ts';
import { until } from '../runs/worker-process.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addEndpoint, deliveriesOf, runCompleted } from './rows.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => platform?.close());

it('delivers the event of a transaction that commits 15 s after later rows were read, once', async () => {
  const alpha = await platform.tenantId('alpha');
  const endpoint = await addEndpoint(platform.database, alpha, 'https://hooks.example.com/x', [
    'run.completed',
  ]);
  let commit: () => void = () => {};
  const committed = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let lateId = 0;
  let written: () => void = () => {};
  const lateWritten = new Promise<void>((resolve) => {
    written = resolve;
  });
  // The slow transaction: its audit row takes an id now and commits only when the test says.
  const slow = platform.database.db.transaction(async (tx) => {
    lateId = await recordAudit(tx, {
      tenantId: alpha,
      action: 'workflow.run.completed',
      actor: { type: 'system', id: 'runs', name: null },
      resource: { type: 'workflow_run', id: '00000000-0000-4000-8000-000000000001' },
      data: {},
    });
    written();
    await committed;
  });
  await lateWritten;
  const early = await runCompleted(platform.database, alpha);
  expect(early.auditId).toBeGreaterThan(lateId);

  // 15 s on: the later row is read and delivered; the slow one's is not (it has not committed).
  const at15 = () => new Date(Date.now() + 15_000);
  let pass = await fanoutPass(platform.database, { now: at15 });
  let ids = (await deliveriesOf(platform.database, endpoint.id)).map((d) => d.auditEventId);
  // The horizon waits for the slow transaction: the later row waits with it, and is never skipped.
  expect(pass.ran).toBe(true);
  expect(ids).not.toContain(lateId);

  commit();
  await slow;
  // Another 15 s on, the slow transaction's row is read, and the later one too if it was not yet.
  const at30 = () => new Date(Date.now() + 30_000);
  // Passes until both are read: another test's open transaction on the cluster holds every horizon back.
  await until('both rows read', async () => {
    pass = await fanoutPass(platform.database, { now: at30 });
    ids = (await deliveriesOf(platform.database, endpoint.id)).map((d) => d.auditEventId);
    return ids.length >= 2 ? true : null;
  });
  expect(ids.sort()).toEqual([lateId, early.auditId].sort());
  // Further passes read nothing again.
  await fanoutPass(platform.database, { now: at30 });
  const [{ count } = { count: -1 }] = (
    await platform.database.db.execute<{ count: number }>(
      sql`select count(*)::int as count from ${webhookDeliveries}`,
    )
  ).rows;
  expect(count).toBe(2);
});

it('reads one transaction’s rows together and a capped pass leaves the rest for the next', async () => {
  const beta = await platform.tenantId('beta');
  const endpoint = await addEndpoint(platform.database, beta, 'https://hooks.example.com/y', [
    'run.completed',
  ]);
  for (let i = 0; i < 5; i++) await runCompleted(platform.database, beta);
  const later = () => new Date(Date.now() + 11_000);
  const seen: number[] = [];
  await until('all five rows read', async () => {
    const pass = await fanoutPass(platform.database, { now: later, rowsPerPass: 2 });
    if (pass.ran && pass.rows > 0) seen.push(pass.rows);
    return seen.reduce((a, b) => a + b, 0) >= 5 ? true : null;
  });
  expect(seen.every((n) => n <= 2)).toBe(true);
  expect(await deliveriesOf(platform.database, endpoint.id)).toHaveLength(5);
});
