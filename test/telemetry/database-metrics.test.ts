// The metrics read from or recorded beside the database, on real PostgreSQL: the worker's gauges (one
// query per collection: circuits by state, documents pending, the most used tenant quota, approvals,
// cases), the retention sweep's deleted rows, and a vendor session's wait when the resumer times it out.
// Read through the SDK's own reader on the global meter provider.
import { randomUUID } from 'node:crypto';
import { metrics } from '@opentelemetry/api';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appMetering, appTenantQuotas } from '../../src/calls/tables.ts';
import { subjectDocuments } from '../../src/documents/tables.ts';
import { appInstallCircuits } from '../../src/installs/tables.ts';
import { sweepRetention } from '../../src/retention/retention.ts';
import { observeDatabaseGauges } from '../../src/telemetry/database-gauges.ts';
import { timeOutDueSessions } from '../../src/vendor-sessions/session-store.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertEvent, insertInstall, insertSession } from '../vendor-sessions/rows.ts';

let reader: TestMetricReader;
let platform: TestPlatform;
let tenantId: string;

beforeAll(async () => {
  reader = readGlobalMetrics();
  platform = await startTestPlatform();
  tenantId = await platform.tenantId('alpha');
}, 120_000);

afterAll(async () => {
  await platform?.close();
  metrics.disable();
});

const db = () => platform.database.db;

it('observes circuits by state, documents pending, the most used quota share, no approval and no case', async () => {
  const [open, halfOpen] = [
    await insertInstall(db(), tenantId, 'one'),
    await insertInstall(db(), tenantId, 'two'),
  ];
  await db()
    .insert(appInstallCircuits)
    .values([
      { installId: open, tenantId, state: 'open', failures: 5 },
      { installId: halfOpen, tenantId, state: 'half_open', failures: 5 },
    ]);
  const document = {
    tenantId,
    subjectId: 'subject-1',
    name: 'passport.pdf',
    contentType: 'application/pdf',
    size: 10,
    sha256: '0'.repeat(64),
    createdBy: 'user:test',
  };
  await db()
    .insert(subjectDocuments)
    .values({ ...document, id: randomUUID() });
  // 4 of the tenant's 10 calls a day used today (and of its 1,000 a month).
  await db()
    .insert(appTenantQuotas)
    .values([
      { tenantId, metric: 'calls', period: 'day', max: 10 },
      { tenantId, metric: 'calls', period: 'month', max: 1000 },
    ]);
  const today = new Date().toISOString().slice(0, 10);
  const metered = { tenantId, installId: open, installName: 'one', appName: 'kyc-app', action: 'verify' };
  await db()
    .insert(appMetering)
    .values({ ...metered, day: today, calls: 4 });
  const errors: unknown[] = [];
  const gauges = observeDatabaseGauges(platform.database.pool, (error) => errors.push(error));
  try {
    const values = async (name: string) =>
      (await reader.points(name)).map((p) => [Object.values(p.attributes).join(), p.value]);
    expect(await values('service.app.circuit.open')).toEqual([
      ['open', 1],
      ['half_open', 1],
    ]);
    expect(await values('service.document.pending')).toEqual([['', 1]]);
    expect(await values('service.app.quota.used')).toEqual([['', 0.4]]);
    expect(await values('service.approval.pending')).toEqual([
      ['app_version', 0],
      ['app_install_change', 0],
      ['app_version_review', 0],
    ]);
    expect(await values('service.case.open')).toEqual([['', 0]]);
    expect(errors).toEqual([]);
  } finally {
    gauges.stop();
  }
  // Stopped: the gauges are read no more (a second pending document does not show).
  await db()
    .insert(subjectDocuments)
    .values({ ...document, id: randomUUID() });
  expect(await reader.points('service.document.pending')).toEqual([{ attributes: {}, value: 1 }]);
});

it("counts the retention sweep's deleted rows", async () => {
  const now = new Date('2030-06-30T12:00:00.000Z');
  const old = new Date(now.getTime() - 120 * 86_400_000);
  await insertSession(db(), { tenantId, status: 'completed', createdAt: old });
  await insertSession(db(), { tenantId, status: 'failed', createdAt: old });
  await insertEvent(db(), { tenantId, receivedAt: old });
  const before = (await reader.points('service.retention.deleted'))[0]?.value;
  const result = await sweepRetention({
    database: platform.database,
    logger: pino({ level: 'silent' }),
    settings: { appCallbackDays: 90, submissionEventDays: 90 },
    now,
  });
  const deleted = Object.values(result.deleted).reduce((sum, rows) => sum + rows, 0);
  expect(deleted).toBe(3);
  expect(before).toBe(0);
  expect(await reader.points('service.retention.deleted')).toEqual([{ attributes: {}, value: 3 }]);
});

it('records how long a session waited when it is timed out', async () => {
  await insertSession(db(), {
    tenantId,
    workflowRunId: randomUUID(),
    createdAt: new Date(Date.now() - 600_000),
    waitUntil: new Date(Date.now() - 1000),
  });
  expect(await timeOutDueSessions(db(), 10)).toHaveLength(1);
  const [wait] = await reader.points('service.app.callback.wait');
  expect(wait?.value).toBe(1);
  expect(wait?.sum).toBeGreaterThanOrEqual(600_000);
});
