// The call's clock: the waits between attempts and the deadline an attempt is cut to (docs/calls.md
// "The circuit"; docs/runs.md "Idempotency keys, retries and the deadline"), through app
// rules and callApp on a clock the test moves (clock.ts), with the real runner, http-connector and vendor
// doubles: the retry's delays are waited, an attempt the deadline cuts short times out at the deadline
// and counts nothing against the circuit, and a vendor's wait is honoured up to ten minutes, never more.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { callApp } from '../../src/runs/app-call.ts';
import { ok } from '../installs/support.ts';
import { attemptDepsOn, evaluateOn, type ManualClock, manualClock } from './clock.ts';
import { installConnector, publishDefinition, type RunsStack, startRunsStack } from './stack.ts';

let stack: RunsStack;
/** Holds every request unanswered (a vendor that never answers). */
let holding: VendorDouble;
let tenantId: string;
/** The clock of the call under test: the vendor reads it (and /paced moves it). */
let clock: ManualClock = manualClock();
/** When, on the call's clock, the vendor received each request, by path. */
const received: Record<string, number[]> = { '/flaky': [], '/hour': [] };
/** Answers /flaky and /hour still to fail. */
const failing = { flaky: 0, hour: 0 };

const request = (path: string) => ({ method: 'GET', path });
const stamp = (path: string) => received[path]?.push(clock.now());
const appRule = (key: string, install: string, path: string) => ({
  key,
  type: 'app' as const,
  install,
  action: 'request',
  input: request(path),
  resultPath: 'status',
  failWhen: { notEquals: 200 },
});
const circuitOf = async (install: string) =>
  (
    await ok<{ circuit: { state: string; failures: number } }>(
      await stack.platform.fetch(`/app-installs/${install}`),
    )
  ).circuit;

beforeAll(async () => {
  stack = await startRunsStack([
    {
      method: 'GET',
      path: '/flaky',
      respond: () => {
        stamp('/flaky');
        return failing.flaky-- > 0 ? { status: 503, json: { busy: true } } : { json: { up: true } };
      },
    },
    {
      method: 'GET',
      path: '/hour',
      respond: () => {
        stamp('/hour');
        return failing.hour-- > 0
          ? { status: 429, headers: { 'retry-after': '3600' }, json: { later: true } }
          : { json: { up: true } };
      },
    },
    {
      // A vendor that takes 57 s of the evaluation's minute to answer.
      method: 'GET',
      path: '/paced',
      respond: () => {
        clock.moveTo(clock.now() + 57_000);
        return { json: { up: true } };
      },
    },
  ]);
  holding = await startVendorDouble([]);
  holding.outage({ mode: 'timeout' });
  tenantId = await stack.platform.tenantId();
  for (const name of ['flaky', 'hour', 'paced']) await installConnector(stack, name);
  await installConnector(stack, 'cut', { vendor: holding });
  await publishDefinition(stack, tenantId, 'rule_set', 'flaky-rules', {
    rules: [appRule('flaky', 'flaky', '/flaky')],
  });
  await publishDefinition(stack, tenantId, 'rule_set', 'cut-rules', {
    rules: [appRule('paced', 'paced', '/paced'), appRule('cut', 'cut', '/held')],
  });
}, 120_000);
afterAll(async () => {
  await holding?.close();
  await stack?.close();
});

describe('waits between attempts', () => {
  it('an app rule’s retries wait its action’s delays: backoffMs (1000) times the attempt number', async () => {
    clock = manualClock();
    const start = clock.now();
    failing.flaky = 2;
    const evaluation = await evaluateOn(stack, clock, { tenantId, key: 'flaky-rules' });
    expect(evaluation.rules).toEqual([{ key: 'flaky', type: 'app', status: 'passed', value: 200 }]);
    expect(clock.slept).toEqual([1_000, 2_000]);
    expect(received['/flaky']).toEqual([start, start + 1_000, start + 3_000]);
  });
});

// These depend on the design of the step's deadline (docs/runs.md "How steps execute on DBOS"): the
// integrator adjusts them with it.
describe('depends on the deadline’s design', () => {
  it('an attempt cut to the 3 s its evaluation has left times out there and counts nothing', async () => {
    // The clock stands still while the held attempt runs: its end reads 3 s left, outside the last two
    // seconds, so only "it ran for less than its action's time and timed out" keeps it from the circuit.
    clock = manualClock();
    const evaluation = await evaluateOn(stack, clock, { tenantId, key: 'cut-rules' });
    expect(evaluation.rules).toEqual([
      { key: 'paced', type: 'app', status: 'passed', value: 200 },
      expect.objectContaining({
        key: 'cut',
        status: 'error',
        error: expect.objectContaining({ code: 'app_call_failed', details: { reason: 'timeout' } }),
      }),
    ]);
    const records = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(and(eq(appInvocations.ruleSetKey, 'cut-rules'), eq(appInvocations.ruleKey, 'cut')));
    expect(records.map((r) => [r.installName, r.status, r.error?.reason])).toEqual([
      ['cut', 'timeout', 'timeout'],
    ]);
    expect(await circuitOf('cut')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('a step’s vendor asking for an hour is waited ten minutes (600000 ms), then sent again', async () => {
    // A vendor's retryable wait longer than the policy's delays the next attempt by up to ten minutes; the
    // step's 2.5 minutes stretch for it (docs/runs.md). callApp as a workflow's step calls it, on the clock.
    clock = manualClock();
    const start = clock.now();
    failing.hour = 1;
    const end = await callApp(
      attemptDepsOn(stack, clock),
      { attempt: (_name, run) => run(clock.sleep), sleep: clock.sleep, now: clock.now },
      {
        caller: 'step',
        tenantId,
        subjectId: null,
        idempotencyKey: `capped-${randomUUID()}`,
        deadline: start + 150_000,
        origin: { workflowRunId: randomUUID(), stepId: 'screen', ruleSetKey: null, ruleKey: null },
        named: { install: 'hour', action: 'request', input: request('/hour') },
        asyncRefusal: (action) => ({ code: 'validation_error', message: `${action} is asynchronous` }),
      },
    );
    expect(end).toMatchObject({ ok: true, attempts: 2, output: { status: 200, body: { up: true } } });
    expect(clock.slept).toEqual([600_000]);
    expect(received['/hour']).toEqual([start, start + 600_000]);
  });
});
