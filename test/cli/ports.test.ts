// Which ports a start checks before it starts anything, and the one line naming every taken one.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenersOf, takenListeners, takenPortsMessage } from '../../src/cli/ports.ts';
import { loadConfig, type Role } from '../../src/config.ts';
import { freePort } from '../support/free-port.ts';

describe('takenPortsMessage', () => {
  it.each([
    [[['PORT', 3000]], 'PORT 3000 is in use by another program; set PORT to a free port'],
    [
      [
        ['PORT', 3000],
        ['RUNNER_PORT', 3002],
      ],
      'PORT 3000 and RUNNER_PORT 3002 are in use by other programs; set PORT and RUNNER_PORT to free ports',
    ],
    [
      [
        ['PORT', 3000],
        ['API_INTERNAL_PORT', 3001],
        ['RUNNER_PORT', 3002],
      ],
      'PORT 3000, API_INTERNAL_PORT 3001 and RUNNER_PORT 3002 are in use by other programs; set PORT, API_INTERNAL_PORT and RUNNER_PORT to free ports',
    ],
  ] as [[string, number][], string][])('%j', (taken, message) => {
    expect(takenPortsMessage(taken.map(([setting, port]) => ({ setting, port })))).toBe(message);
  });
});

describe('listenersOf', () => {
  const settingsOf = (env: Record<string, string>, role: Role) =>
    listenersOf(loadConfig(env, '/srv'), role).map((l) => `${l.setting}=${l.host}:${l.port}`);

  it.each([
    ['all', {}, ['PORT=127.0.0.1:3000', 'API_INTERNAL_PORT=127.0.0.1:3001', 'RUNNER_PORT=127.0.0.1:3002']],
    ['api', {}, ['PORT=127.0.0.1:3000', 'API_INTERNAL_PORT=127.0.0.1:3001']],
    ['runner', {}, ['RUNNER_PORT=127.0.0.1:3002']],
    ['worker', {}, []],
    ['worker', { WORKER_HEALTH_PORT: '3005' }, ['WORKER_HEALTH_PORT=127.0.0.1:3005']],
    [
      'all',
      { DATABASE_URL: 'postgres://db/platform', WORKER_HEALTH_PORT: '3005' },
      [
        'PORT=0.0.0.0:3000',
        'API_INTERNAL_PORT=127.0.0.1:3001',
        'RUNNER_PORT=0.0.0.0:3002',
        'WORKER_HEALTH_PORT=0.0.0.0:3005',
      ],
    ],
    [
      'api',
      { METRICS_PORT: '9464' },
      ['PORT=127.0.0.1:3000', 'API_INTERNAL_PORT=127.0.0.1:3001', 'METRICS_PORT=0.0.0.0:9464'],
    ],
    ['runner', { METRICS_PORT: '9464' }, ['RUNNER_PORT=127.0.0.1:3002', 'METRICS_PORT=0.0.0.0:9464']],
    ['worker', { METRICS_PORT: '9464' }, ['METRICS_PORT=0.0.0.0:9464', 'METRICS_PORT + 1=0.0.0.0:9465']],
    ['worker', { METRICS_PORT: '9464', OTEL_SDK_DISABLED: 'true' }, []],
    // Port 0 is any free port: nothing to check.
    ['all', { PORT: '0', API_INTERNAL_PORT: '0', RUNNER_PORT: '0' }, []],
  ] as [Role, Record<string, string>, string[]][])('%s with %j', (role, env, expected) => {
    expect(settingsOf(env, role)).toEqual(expected);
  });
});

describe('takenListeners', () => {
  const blocker = net.createServer();
  let held: number;
  let free: number;
  beforeAll(async () => {
    held = await freePort();
    free = await freePort();
    await new Promise<void>((resolve) => blocker.listen(held, '127.0.0.1', resolve));
  });
  afterAll(async () => new Promise((resolve) => blocker.close(resolve)));

  it('names the ports another program holds, and leaves the free ones free', async () => {
    const listeners = [
      { setting: 'PORT', host: '127.0.0.1', port: free },
      { setting: 'RUNNER_PORT', host: '127.0.0.1', port: held },
    ];
    expect(await takenListeners(listeners)).toEqual([listeners[1]]);
    // Probing let go of the free port at once.
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(free, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it('leaves an address this host does not have to the real listen (it is not "in use")', async () => {
    // 192.0.2.1 is a documentation address: binding it fails with EADDRNOTAVAIL, and nothing is sent.
    expect(await takenListeners([{ setting: 'PORT', host: '192.0.2.1', port: free }])).toEqual([]);
  });
});
