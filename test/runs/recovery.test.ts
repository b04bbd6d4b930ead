// A run survives its worker (DBOS recovery): the api and runner run in this process, the worker is a real
// `platform start --role worker` child on the same database with a stable WORKER_EXECUTOR_ID. The vendor
// holds the first request of an idempotent action; the worker is killed (SIGKILL) while the step waits;
// a new worker with the same executor id recovers the run, resends the attempt with the same idempotency
// key, and the run completes with the vendor's answer — one completed module call, one invocation record.
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { cleanUpProcesses } from '../support/processes.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { publishDefinitionRows } from './definitions.ts';
import type { RunAnswer } from './stack.ts';
import { startWorkerProcess, until } from './worker-process.ts';

const SLOW = 180_000;

let platform: CataloguePlatform;
let vendor: VendorDouble;
let release = () => {};
/** Vendor answers actually sent (a held request counts once it is answered). */
let answered = 0;

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let seen = 0;
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/things/:id',
      respond: async (request) => {
        if (++seen === 1) await held;
        answered++;
        return { json: { status: 'found', id: request.params.id, seen } };
      },
    },
  ]);
}, 120_000);
afterEach(cleanUpProcesses);
afterAll(async () => {
  release();
  await vendor?.close();
  await platform?.close();
});

/** `platform start --role worker` on the test database, recovering as one stable executor id. */
const startRecoveringWorker = () =>
  startWorkerProcess({
    DATABASE_URL: platform.config.databaseUrl as string,
    APP_RUNNER_URL: platform.runnerUrl,
    APP_RUNNER_TOKEN: RUNNER_TOKEN,
    APP_CALL_TOKEN_SECRET: 'call-token-secret-for-the-recovery-test',
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    WORKER_EXECUTOR_ID: 'recovery-test-worker',
  });

it(
  'completes a run after its worker is killed mid-call, with no duplicate completed call of the idempotent action',
  async () => {
    const admin = await platform.token({ tenant: 'recovery' });
    const tenantId = await platform.tenantId('recovery');
    const version = await published(platform, admin, buildFixture('vendor-app'));
    const call = (path: string, method = 'GET', json?: unknown) =>
      platform.fetch(path, { method, token: admin, json });
    await ok(
      await call('/app-installs', 'POST', {
        name: 'things',
        versionId: version.id,
        enabled: false,
        config: { baseUrl: vendor.url },
        approveHosts: [vendor.host],
      }),
      201,
    );
    await ok(await call('/app-installs/things/secrets/API_KEY', 'POST', { value: 'sk-recovery' }));
    await ok(await call('/app-installs/things/secrets/WEBHOOK_SECRET', 'POST', { value: 'whsec-recovery' }));
    await ok(
      await call('/app-installs/things', 'PUT', {
        versionId: version.id,
        enabled: true,
        config: { baseUrl: vendor.url },
      }),
    );
    await publishDefinitionRows(platform.database, tenantId, 'workflow', 'lookup', {
      steps: [
        {
          id: 'lookup',
          type: 'call_app',
          install: 'things',
          action: 'lookup',
          inputMapping: { thingId: 'thing' },
          outputKey: 'found',
        },
      ],
    });

    const first = await startRecoveringWorker();
    const started = await ok<RunAnswer>(
      await call('/workflow-runs', 'POST', {
        workflow: 'lookup',
        subjectId: 'subject-r',
        context: { thing: 't-7' },
      }),
      201,
    );
    // The step waits on the vendor, which holds the first request: now the worker dies.
    await until('the vendor’s first request', async () => (vendor.requests.length >= 1 ? true : null));
    process.kill(-(first.pid as number), 'SIGKILL');
    await new Promise((resolve) => first.once('close', resolve));

    await startRecoveringWorker();
    const done = await until('the run’s end', async () => {
      const run = await ok<RunAnswer>(await call(`/workflow-runs/${started.id}`));
      return run.status === 'running' ? null : run;
    });
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ thing: 't-7' });
    const found = (done.context as { found: { vendor: { status: number; body: string } } }).found;
    expect(found.vendor.status).toBe(200);
    expect(JSON.parse(found.vendor.body)).toMatchObject({ status: 'found', id: 't-7', seen: 2 });
    // The held request never got its answer: one module call completed.
    expect(answered).toBe(1);
    expect(vendor.requests).toHaveLength(2);
    // The killed attempt left no record; the recovered one is the run's one success, under the run's key.
    const records = await platform.database.db
      .select()
      .from(appInvocations)
      .where(eq(appInvocations.workflowRunId, started.id));
    expect(records.filter((r) => r.status === 'success')).toHaveLength(1);
    expect(new Set(records.map((r) => r.idempotencyKey))).toEqual(new Set([`${started.id}:lookup`]));
  },
  SLOW,
);
