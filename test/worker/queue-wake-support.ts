// A worker with a probe workflow on the platform queue, and a DBOSClient enqueueing it as the api does
// (src/runs/engine-client.ts). DBOS is a process-wide singleton: one worker per test file, and the probe
// registered once per process (test files share their worker's process: docs/testing.md).
import { Writable } from 'node:stream';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { expect } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { PLATFORM_VERSION } from '../../src/version.ts';
import { ENGINE_SCHEMA, type RunningWorker, startWorker } from '../../src/worker/index.ts';

const PROBE = 'test.queueWakeProbe';
async function probeStep(n: number): Promise<number> {
  return n + 1;
}
async function probeWorkflow(n: number): Promise<number> {
  return DBOS.runStep(() => probeStep(n), { name: 'probe-step' });
}
let probeRegistered = false;
function registerProbe(): void {
  if (probeRegistered) return;
  DBOS.registerWorkflow(probeWorkflow, { name: PROBE });
  probeRegistered = true;
}

export async function startProbeWorker(databaseUrl: string, queueSafetyPollMs: number) {
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const logger = createLogger({
    service: 'queue-wake-test',
    level: 'fatal',
    env: 'test',
    destination: quiet,
  });
  const worker: RunningWorker = await startWorker({
    databaseUrl,
    logger,
    healthPort: null,
    queueSafetyPollMs,
    registerWorkflows: registerProbe,
  });
  const client = await DBOSClient.create({
    systemDatabaseUrl: databaseUrl,
    systemDatabaseSchemaName: ENGINE_SCHEMA,
  });
  return {
    worker,
    /** Enqueues the probe on the platform queue and answers its result once a worker ran it. */
    async run(n: number): Promise<number> {
      const workflowID = `probe-${n}-${Date.now()}`;
      await client.enqueue(
        { queueName: 'platform', workflowName: PROBE, workflowID, appVersion: PLATFORM_VERSION },
        n,
      );
      return client.retrieveWorkflow<number>(workflowID).getResult();
    },
    /** Waits until the gate answers ticks without the database: the listener holds and the queues are idle. */
    async gated(ticks = 10): Promise<void> {
      const start = worker.queueWake?.stats().skipped ?? 0;
      await expect
        .poll(() => worker.queueWake?.stats().skipped ?? 0, { timeout: 20_000, interval: 20 })
        .toBeGreaterThanOrEqual(start + ticks);
    },
    async close(): Promise<void> {
      await client.destroy();
      await worker.close();
    },
  };
}
