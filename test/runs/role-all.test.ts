import { afterAll, afterEach, expect, it } from 'vitest';
import { startVendorDouble } from '../../packages/app-testing/src/index.ts';
import { runningServerUrl } from '../../src/db/embedded.ts';
import { openDatabase } from '../../src/db/pool.ts';
import {
  baseEnv,
  cleanUpProcesses,
  freePorts,
  removeTempDirs,
  run,
  startedDataDir,
  startPlatform,
} from '../support/processes.ts';
import { publishDefinitionRows } from './definitions.ts';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

it('starts a run through the api and completes it in the worker of the same process', async () => {
  const dataDir = await startedDataDir('apps-platform-runs-all-');
  const ports = await freePorts();
  const env = baseEnv({ ...ports, DATA_DIR: dataDir, APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
  await startPlatform(['--role', 'all'], env);
  const api = `http://127.0.0.1:${ports.PORT}`;
  const vendor = await startVendorDouble([{ method: 'GET', path: '/hello', json: { greeting: 'hi' } }]);
  const server = await runningServerUrl(dataDir);
  if (!server) throw new Error('the platform runs its embedded PostgreSQL in DATA_DIR');
  const database = openDatabase(server('platform'));
  try {
    const minted = await run(['token', '--tenant', 'runs', '--role', 'admin'], env);
    expect(minted.code, minted.stderr).toBe(0);
    const auth = { authorization: `Bearer ${minted.stdout.trim()}`, 'content-type': 'application/json' };
    const call = async (route: string, method = 'GET', body?: unknown) => {
      const response = await fetch(`${api}${route}`, {
        method,
        headers: auth,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: await response.json() };
    };
    const versions = await call('/apps/http-connector/versions');
    expect(versions.status).toBe(200);
    const installed = await call('/app-installs', 'POST', {
      name: 'vendor',
      versionId: versions.body.items[0].id,
      enabled: true,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    await publishDefinitionRows(database, await tenantOf(call), 'workflow', 'hello', {
      steps: [
        {
          id: 'fetch',
          type: 'call_app',
          install: 'vendor',
          action: 'request',
          input: { method: 'GET', path: '/hello' },
          outputKey: 'vendor',
        },
      ],
    });
    const started = await call('/workflow-runs', 'POST', { workflow: 'hello', subjectId: 'subject-1' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const giveUpAt = Date.now() + 60_000;
    let runAnswer = started;
    while (runAnswer.body.status === 'running' && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      runAnswer = await call(`/workflow-runs/${started.body.id}`);
    }
    expect(runAnswer.body).toMatchObject({
      status: 'completed',
      context: { vendor: { status: 200, body: { greeting: 'hi' } } },
      steps: [{ id: 'fetch', status: 'completed', attempts: 1 }],
    });
  } finally {
    await database.close();
    await vendor.close();
  }
}, 180_000);

async function tenantOf(call: (route: string) => Promise<{ body: { id: string } }>): Promise<string> {
  return (await call('/tenants/me')).body.id;
}
