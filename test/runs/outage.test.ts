// A database blip never strands a run (docs/runs.md "How a run ends"), through the real processes: `platform
// start --role all` on its own embedded PostgreSQL, runs calling a vendor double that holds their requests,
// then PostgreSQL stopped for 5 s (`pg_ctl stop -m fast`) and started again. Of 12 runs, 8 are in the
// vendor's held request (the worker sends 8 attempts at once) and 4 wait for a slot. During the outage the
// vendor answers 4 held requests: those calls were sent and answered while their records could not be
// written; the attempts write them once the database is back, and never send the calls again. The other 4
// held requests are answered after the database returned, and the 4 waiting runs send theirs then. Every
// run completes within a minute of the database's return, once, with one success record.
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import {
  baseEnv,
  cleanUpProcesses,
  fetchFrom,
  freePorts,
  pgCtl,
  type Running,
  removeTempDirs,
  run,
  startedDataDir,
  startPlatform,
} from '../support/processes.ts';
import type { RunAnswer } from './stack.ts';
import { until } from './worker-process.ts';

const SLOW = 300_000;
const HELD = 8;
const RUNS = 12;
const OUTAGE_MS = 5_000;

let vendor: VendorDouble;
let dataDir: string;
let postgresPort: string;
let api: string;
let token: string;
let platform: Running;
/** The vendor's held requests, by the run's marker: answering one releases it. */
const held = new Map<string, () => void>();
/** Markers whose request the vendor answered. */
const answered = new Set<string>();

beforeAll(async () => {
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/hold',
      respond: async (request) => {
        const marker = request.query.run as string;
        if (held.size < HELD) await new Promise<void>((resolve) => held.set(marker, resolve));
        answered.add(marker);
        return { json: { marker } };
      },
    },
  ]);
  dataDir = await startedDataDir('apps-platform-outage-');
  const ports = await freePorts();
  postgresPort = ports.EMBEDDED_POSTGRES_PORT;
  const env = baseEnv({
    ...ports,
    DATA_DIR: dataDir,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    // The runner admits every attempt the worker sends at once: no call is turned away busy.
    APP_RUNNER_CONCURRENCY: '16',
    APP_RUNNER_TENANT_CONCURRENCY: '16',
    API_RATE_LIMIT_PER_MINUTE: '0',
  });
  platform = await startPlatform(['--role', 'all'], env);
  api = `http://127.0.0.1:${ports.PORT}`;
  const minted = await run(['token', '--tenant', 'outage', '--role', 'admin'], env);
  expect(minted.code, minted.stderr).toBe(0);
  token = minted.stdout.trim();
}, SLOW);
afterEach(cleanUpProcesses);
afterAll(async () => {
  for (const release of held.values()) release();
  await vendor?.close();
  await removeTempDirs();
});

async function call<T>(route: string, method = 'GET', json?: unknown): Promise<T> {
  const response = await fetchFrom(platform, `${api}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    ...(json ? { body: JSON.stringify(json) } : {}),
  });
  const body = await response.json();
  expect(response.ok, `${method} ${route}: ${JSON.stringify(body)}`).toBe(true);
  return body as T;
}

it(
  'completes every run within a minute of the database’s return, each with one success record, its call sent once',
  async () => {
    const versions = await call<{ items: { id: string }[] }>('/apps/http-connector/versions');
    await call('/app-installs', 'POST', {
      name: 'vendor',
      versionId: versions.items[0]?.id,
      enabled: true,
      config: { baseUrl: vendor.url },
      approveHosts: [vendor.host],
    });
    const step = {
      id: 'fetch',
      type: 'call_app',
      install: 'vendor',
      action: 'request',
      // The module's own wait for the vendor (10 s unless given) outlasts every hold of the scenario.
      input: { method: 'GET', path: '/hold', timeoutMs: 28_000 },
      inputMapping: { 'query.run': 'marker' },
      outputKey: 'vendor',
    };
    await call('/workflow-definitions', 'POST', { key: 'held', body: { steps: [step] } });
    await call('/workflow-definitions/held/publish', 'POST');

    const runs = new Map<string, string>(); // marker → run id
    for (let n = 0; n < RUNS; n++) {
      const marker = `m${n}`;
      const started = await call<RunAnswer>('/workflow-runs', 'POST', {
        workflow: 'held',
        subjectId: `subject-${n}`,
        context: { marker },
      });
      runs.set(marker, started.id);
    }
    const runOf = (id: string) => call<RunAnswer>(`/workflow-runs/${id}`);
    await until('8 requests held by the vendor', async () => (held.size === HELD ? true : null));
    // Every run is in its call_app step: 8 in the vendor's request, 4 waiting for a slot.
    await until('every run in its step', async () => {
      const seen = await Promise.all([...runs.values()].map(runOf));
      return seen.every((r) => r.steps[0]?.status === 'running') ? true : null;
    });

    expect(await pgCtl(dataDir, ['stop', '-m', 'fast', '-w'])).toBe(0);
    const stoppedAt = Date.now();
    const [answeredInOutage, answeredAfter] = [[...held.keys()].slice(0, 4), [...held.keys()].slice(4)];
    for (const marker of answeredInOutage) held.get(marker)?.();
    await until('the vendor’s answers during the outage', async () =>
      answeredInOutage.every((m) => answered.has(m)) ? true : null,
    );
    // The outage's length is the scenario, not a wait for state.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));
    const flags = `-p ${postgresPort} -c listen_addresses=127.0.0.1`;
    const log = path.join(dataDir, 'postgres', 'server.log');
    expect(await pgCtl(dataDir, ['start', '-w', '-l', log, '-o', flags])).toBe(0);
    for (const marker of answeredAfter) held.get(marker)?.();

    const ended = await until(
      'the end of every run',
      async () => {
        const seen = await Promise.all([...runs.values()].map(runOf));
        return seen.some((r) => r.status === 'running') ? null : seen;
      },
      60_000,
    );
    const byMarker = new Map(ended.map((r) => [(r.context as { marker: string }).marker, r]));
    for (const [marker, id] of runs) {
      const done = byMarker.get(marker) as RunAnswer;
      const records = await call<{ items: { status: string }[] }>(`/app-invocations?workflowRunId=${id}`);
      const successes = records.items.filter((r) => r.status === 'success');
      // Sent once: a call answered while its record could not be written is not sent again.
      expect(
        vendor.requests.filter((r) => r.query.run === marker),
        marker,
      ).toHaveLength(1);
      // Answered during the outage or after it: the outcome is written once the database is back.
      expect(done, marker).toMatchObject({
        status: 'completed',
        context: { vendor: { body: { marker } } },
      });
      expect(successes, marker).toHaveLength(1);
    }
    const audit = await call<{ items: { resource: { id: string } }[] }>('/audit-events?action=workflow.run.');
    const ends = audit.items.map((e) => e.resource.id).sort();
    expect(ends).toEqual([...runs.values()].sort());
  },
  SLOW,
);
