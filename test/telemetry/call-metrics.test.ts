// What a run's app calls record, through real runs on the worker (DBOS) in this process, the real api and
// runner, and http-connector against a vendor double: an install whose circuit is open hands its call to
// the fallback (fallback.count by reason, the fallback's invocation labelled by names, the call's
// duration, the run's), and a tenant over its quota is refused (quota.refused). Read through the SDK's
// own reader on the global meter provider.
import { metrics } from '@opentelemetry/api';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appTenantQuotas } from '../../src/calls/tables.ts';
import { appInstallCircuits } from '../../src/installs/tables.ts';
import { ok } from '../installs/support.ts';
import {
  finishedRun,
  installConnector,
  publishDefinition,
  type RunsStack,
  startRunsStack,
} from '../runs/stack.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';

let reader: TestMetricReader;
let stack: RunsStack;
let tenantId: string;
const request = { method: 'GET', path: '/hello' };
const step = (install: string, extra: Record<string, unknown> = {}) => ({
  id: 'call',
  type: 'call_app' as const,
  install,
  action: 'request',
  input: request,
  outputKey: 'vendor',
  ...extra,
});

beforeAll(async () => {
  reader = readGlobalMetrics();
  stack = await startRunsStack([{ method: 'GET', path: '/hello', json: { greeting: 'hi' } }]);
  tenantId = await stack.platform.tenantId();
  const down = await installConnector(stack, 'down');
  await installConnector(stack, 'backup');
  // `down`'s circuit is open for the hour: its calls are refused at once and go to `backup`.
  await ok(
    await stack.platform.fetch('/app-installs/down/circuit', {
      method: 'PUT',
      json: { failureThreshold: null, openSeconds: 3600 },
    }),
  );
  await stack.platform.database.db.insert(appInstallCircuits).values({
    installId: down,
    tenantId,
    state: 'open',
    failures: 5,
    since: sql`now()`,
    openedAt: sql`now()`,
  });
  await publishDefinition(stack, tenantId, 'workflow', 'with-fallback', {
    steps: [step('down', { fallback: { install: 'backup', action: 'request', input: request } })],
  });
  await publishDefinition(stack, tenantId, 'workflow', 'direct', { steps: [step('backup')] });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  metrics.disable();
});

it("counts a call the fallback took, the fallback's invocation by names, the call's and the run's time", async () => {
  const run = await finishedRun(stack, 'with-fallback');
  expect(run.status).toBe('completed');
  expect(await reader.value('service.app.fallback.count', { reason: 'circuit_open' })).toBe(1);
  expect(await reader.value('service.app.fallback.count', { reason: 'outage' })).toBe(0);
  const backup = {
    tenant: 'acme',
    app: 'http-connector',
    install: 'backup',
    action: 'request',
    status: 'success',
  };
  // The tenant's name is read beside the attempt, the invocation recorded once it is.
  await expect.poll(() => reader.value('service.app.invocation.duration', backup)).toBe(1);
  expect((await reader.points('service.app.invocation.duration')).map((p) => p.attributes)).toEqual([backup]);
  expect(await reader.value('service.app.call.duration')).toBe(1);
  expect(await reader.value('service.workflow.run.duration')).toBe(1);
  expect(await reader.value('service.workflow.run.active')).toBe(0);
  expect(await reader.value('service.app.calls.in_flight')).toBe(0);
});

it('counts the attempts a quota refused', async () => {
  expect(await reader.value('service.app.quota.refused')).toBe(0);
  // The one call a day the tenant may make was made by the run before.
  await stack.platform.database.db
    .insert(appTenantQuotas)
    .values({ tenantId, metric: 'calls', period: 'day', max: 1 });
  const run = await finishedRun(stack, 'direct');
  expect(run.status).toBe('failed');
  expect(run.error).toMatchObject({ code: 'app_quota_exceeded', details: { attempts: 1 } });
  expect(await reader.value('service.app.quota.refused')).toBe(1);
  expect(await reader.value('service.workflow.run.duration')).toBe(2);
});
