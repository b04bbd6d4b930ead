// service.app.auto_upgrade.count through the real api and PostgreSQL: the sweep applies a compatible
// release (applied) and holds a move that adds a host as a change waiting for approval (held). Read
// through the SDK's own reader on the global meter provider.
import { metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';
import { optIn, upgradeSuite, VENDOR } from '../upgrades/support.ts';

const suite = upgradeSuite('meters');
let reader: TestMetricReader;
beforeAll(() => {
  reader = readGlobalMetrics();
});
afterAll(() => metrics.disable());

const counted = async () => ({
  applied: await reader.value('service.app.auto_upgrade.count', { outcome: 'applied' }),
  held: await reader.value('service.app.auto_upgrade.count', { outcome: 'held' }),
});

it('counts a compatible release applied, and a move adding a host held for approval', async () => {
  const moving = await suite.release.publish({ name: 'meter-move', version: '1.0.0' });
  await optIn(suite.api, suite.admin, 'mover', moving['1.0.0'] as string);
  await suite.release.publish({ name: 'meter-move', version: '1.0.1' });
  expect((await suite.sweepApp('meter-move')).upgraded).toHaveLength(1);
  expect(await counted()).toEqual({ applied: 1, held: 0 });

  const holding = await suite.release.publish({ name: 'meter-held', version: '1.0.0' });
  await optIn(suite.api, suite.admin, 'holder', holding['1.0.0'] as string);
  await suite.release.publish({
    name: 'meter-held',
    version: '1.0.1',
    manifest: { hosts: [VENDOR, 'status.vendor.test'] },
  });
  expect((await suite.sweepApp('meter-held')).held).toHaveLength(1);
  expect(await counted()).toEqual({ applied: 1, held: 1 });
});
