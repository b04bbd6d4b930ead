// The instruments follow the global meter provider: made on first use and made again when the provider
// changes, since @opentelemetry/api's global meter does not proxy (an instrument made before the SDK
// registers its provider would stay a no-op). Read through the SDK's own reader.
import { metrics } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { countWebhook, metricsOn, recordInvocation } from '../../src/telemetry/metrics.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';

const provide = readGlobalMetrics;

afterEach(() => metrics.disable());

it('records nothing with telemetry off, then records through the provider registered later', async () => {
  expect(metricsOn()).toBe(false);
  countWebhook('accepted');
  const reader = provide();
  expect(metricsOn()).toBe(true);
  countWebhook('completed');
  const points = await reader.points('service.app.webhooks');
  const completed = points.find((p) => p.attributes.result === 'completed');
  const accepted = points.find((p) => p.attributes.result === 'accepted');
  expect(completed?.value).toBe(1);
  // The series starts at zero; the call made before the provider counted nowhere.
  expect(accepted?.value).toBe(0);
  expect(points).toHaveLength(9);
});

it('moves to a new provider when the global one changes', async () => {
  const first = provide();
  recordInvocation(
    { tenant: 'acme', app: 'http-connector', install: 'vendor', action: 'request', status: 'success' },
    12,
  );
  const second = provide();
  recordInvocation(
    { tenant: 'acme', app: 'http-connector', install: 'vendor', action: 'request', status: 'error' },
    30,
  );
  const statuses = async (reader: TestMetricReader) =>
    (await reader.points('service.app.invocation.duration')).map((p) => p.attributes.status);
  expect(await statuses(first)).toEqual(['success']);
  expect(await statuses(second)).toEqual(['error']);
});
