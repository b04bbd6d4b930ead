// One role of bench/idle.ts in a process of its own (`platform start --role <role>` as a deployment runs
// it, settings from the environment): it counts every SQL statement it sends (bench/usage.ts), and the
// worker also runs a probe workflow whose first step notes how long after its enqueue it ran.
import { performance } from 'node:perf_hooks';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { start } from '../src/cli/start.ts';
import { loadConfig, type Role } from '../src/config.ts';
import { PLATFORM_VERSION } from '../src/version.ts';
import { ENGINE_SCHEMA } from '../src/worker/index.ts';
import { countStatements, statementsSent, statementTally } from './usage.ts';

const role = process.argv[2] as Role;
countStatements('', true);
const latencies: number[] = [];
async function probeStep(enqueuedAt: number): Promise<void> {
  latencies.push(performance.timeOrigin + performance.now() - enqueuedAt);
}
async function probe(enqueuedAt: number): Promise<void> {
  await DBOS.runStep(() => probeStep(enqueuedAt), { name: 'probe-step' });
}
if (role !== 'api') DBOS.registerWorkflow(probe, { name: 'bench.idleProbe' });
await start(loadConfig(), role);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
process.on('message', async (question: { kind: 'statements' } | { kind: 'latency'; runs: number }) => {
  if (question.kind === 'statements') {
    const top = [...statementTally].sort((a, b) => b[1] - a[1]).slice(0, 6);
    statementTally.clear();
    process.send?.({ statements: statementsSent(), top });
    return;
  }
  const client = await DBOSClient.create({
    systemDatabaseUrl: process.env.DATABASE_URL ?? '',
    systemDatabaseSchemaName: ENGINE_SCHEMA,
  });
  for (let i = 0; i < question.runs; i++) {
    await pause(100); // idle again: the last run's follow-up polls are over before the next enqueue
    const workflowID = `idle-probe-${i}-${Date.now()}`;
    const enqueuedAt = performance.timeOrigin + performance.now();
    const options = {
      queueName: 'platform',
      workflowName: 'bench.idleProbe',
      workflowID,
      appVersion: PLATFORM_VERSION,
    };
    await client.enqueue(options, enqueuedAt);
    await client.retrieveWorkflow(workflowID).getResult();
  }
  await client.destroy();
  process.send?.({ latencies });
});
process.send?.({ ready: true });
