// A worker process as far as the circuit can tell: its own pool and runner client, making CALLS
// concurrent calls of one install through callInstall (the one attempt pipeline: circuit gate, trial
// claim, runner, record, move). test/calls/circuit-trial.test.ts starts two of these: each says `ready`
// once connected, waits for `go` on stdin (so both start together), then prints one JSON line per call —
// { status } for an outcome, { statusCode, code } for a refusal — and exits.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { attemptDepsOf } from '../../src/calls/attempt.ts';
import { callInstall } from '../../src/calls/call-install.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/pool.ts';
import { ApiError } from '../../src/http/errors.ts';
import { createRunnerClient } from '../../src/runner/client.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const calls = Number(env('CALLS'));
const tenantId = env('TENANT_ID');
const install = env('INSTALL');

const config = loadConfig({ DATABASE_URL: env('DATABASE_URL'), APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
const database = openDatabase(env('DATABASE_URL'), { max: calls, applicationName: 'trial-caller' });
const runner = createRunnerClient({ baseUrl: env('RUNNER_URL'), token: env('RUNNER_TOKEN') });
const deps = attemptDepsOf(config, database, runner);

async function once(): Promise<Record<string, unknown>> {
  try {
    const outcome = await callInstall(deps, {
      tenantId,
      install,
      action: 'request',
      input: { method: 'GET', path: '/screen' },
      idempotencyKey: randomUUID(),
      subjectId: null,
      deadline: Date.now() + 60_000,
      record: {
        workflowRunId: randomUUID(),
        stepId: 'screen',
        ruleSetKey: null,
        ruleKey: null,
        attempt: 1,
        fallbackOf: null,
      },
    });
    return { status: outcome.status };
  } catch (error) {
    if (error instanceof ApiError) return { statusCode: error.statusCode, code: error.code };
    throw error;
  }
}

// Connected before `ready`: the first calls then wait on nothing but each other.
await database.db.execute('select 1');
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'go') continue;
  await Promise.all(
    Array.from({ length: calls }, async () => {
      process.stdout.write(`${JSON.stringify(await once())}\n`);
    }),
  );
  break;
}
process.stdin.destroy();
await runner.close();
await database.close();
