// The order of an attempt and the call's retries, through real runs (docs/calls.md "Tests of the
// wiring"): the worker (DBOS) in this process, the
// real api and runner, http-connector installed against a vendor double. Each test pins one link of the
// wiring between the pure rules (src/calls/attempt.ts, src/runs/app-call.ts) that a one-line change
// would break: an admission refusal comes before the circuit and is recorded; a quota refusal neither
// spends a due half-open trial nor goes to the fallback; the retry's delay is waited; the step's
// idempotency key reaches the vendor on every attempt, the fallback's included.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorRequest } from '../../packages/app-testing/src/index.ts';
import { appInstallCircuits } from '../../src/installs/tables.ts';
import { ok } from '../installs/support.ts';
import {
  finishedRun,
  installConnector,
  publishDefinition,
  type RunsStack,
  recordsOf,
  requestStep,
  startRunsStack,
} from './stack.ts';

let stack: RunsStack;
let tenantId: string;
const ids: Record<string, string> = {};
/** When the vendor received each /flaky request, by the wall clock (the run waits with DBOS.sleep). */
const receivedAt = new Map<VendorRequest, number>();
let flakyLeft = 0;

const request = (path: string) => ({ method: 'GET', path });
const callStep = requestStep;
const once = { retry: { maxAttempts: 1 } };
const IDEMPOTENCY_HEADER = { idempotencyKeyHeader: 'Idempotency-Key' };

const put = async (path: string, json: unknown) =>
  ok(await stack.platform.fetch(path, { method: 'PUT', json }));
const circuitOf = async (install: string) =>
  (
    await ok<{ circuit: { state: string; failures: number } }>(
      await stack.platform.fetch(`/app-installs/${install}`),
    )
  ).circuit;
const requestsTo = (path: string) => stack.vendor.requests.filter((r) => r.path === path);
const NO_BUDGETS = { currency: null, prices: {}, budgets: [] };
const NO_CALLS_TODAY = { currency: null, prices: {}, budgets: [{ metric: 'calls', period: 'day', max: 0 }] };

beforeAll(async () => {
  stack = await startRunsStack([
    { method: 'GET', path: '/ok', json: { vendor: 'up' } },
    { method: 'GET', path: '/backup', json: { vendor: 'backup' } },
    { method: 'GET', path: '/down', status: 503, json: { down: true } },
    {
      method: 'GET',
      path: '/flaky',
      respond: (received) => {
        receivedAt.set(received, Date.now());
        return flakyLeft-- > 0 ? { status: 503, json: { busy: true } } : { json: { third: 'time' } };
      },
    },
  ]);
  tenantId = await stack.platform.tenantId();
  for (const name of ['gated', 'limited', 'backup']) ids[name] = await installConnector(stack, name);
  for (const name of ['keyed', 'keyed-backup'])
    ids[name] = await installConnector(stack, name, { config: IDEMPOTENCY_HEADER });
  const workflows: Record<string, unknown> = {
    'gated-down': { steps: [callStep('gated', '/down', once)] },
    'gated-bad-input': {
      steps: [{ ...callStep('gated', '/ok', once), input: { method: 'BREW', path: '/ok' } }],
    },
    'gated-ok': { steps: [callStep('gated', '/ok', once)] },
    limited: {
      steps: [
        callStep('limited', '/ok', {
          fallback: { install: 'backup', action: 'request', input: request('/backup') },
        }),
      ],
    },
    // No backoffMs: the step's default retry, 3 attempts 2 s apart, the wait doubling each time.
    'keyed-flaky': { steps: [callStep('keyed', '/flaky', { retry: { maxAttempts: 3 } })] },
    'keyed-fallback': {
      steps: [
        callStep('keyed', '/down', {
          ...once,
          fallback: { install: 'keyed-backup', action: 'request', input: request('/backup') },
        }),
      ],
    },
  };
  for (const [key, body] of Object.entries(workflows))
    await publishDefinition(stack, tenantId, 'workflow', key, body as never);
  await publishDefinition(stack, tenantId, 'rule_set', 'keyed-rules', {
    rules: [
      {
        key: 'vendor-up',
        type: 'app',
        install: 'keyed',
        action: 'request',
        input: request('/ok'),
        resultPath: 'status',
        failWhen: { notEquals: 200 },
      },
    ],
  });
  await publishDefinition(stack, tenantId, 'workflow', 'keyed-rule-step', {
    steps: [{ id: 'checks', type: 'rule_set', ruleSet: 'keyed-rules', outputKey: 'checks' }],
  });
}, 120_000);
afterAll(async () => stack?.close());

describe('the order of an attempt, through runs', () => {
  it('an admission refusal comes before an open circuit, and is recorded', async () => {
    await put('/app-installs/gated/circuit', { failureThreshold: 1, openSeconds: null });
    const down = await finishedRun(stack, 'gated-down');
    expect(down.steps[0]?.error).toMatchObject({ code: 'app_call_failed' });
    expect(await circuitOf('gated')).toMatchObject({ state: 'open', failures: 1 });

    const before = stack.vendor.requests.length;
    const refused = await finishedRun(stack, 'gated-bad-input');
    expect(refused.status).toBe('failed');
    expect(refused.steps[0]?.error).toMatchObject({
      code: 'validation_error',
      details: { issues: [expect.objectContaining({ path: '/input/method' })] },
    });
    const records = await recordsOf(stack, refused.id);
    expect(records.map((r) => [r.installName, r.status, r.error?.code, r.attempt])).toEqual([
      ['gated', 'error', 'validation_error', 1],
    ]);
    expect(stack.vendor.requests.length).toBe(before);
  });

  it('a quota refusal on a circuit whose trial is due leaves the trial to the next call', async () => {
    expect((await circuitOf('gated')).state).toBe('open');
    // The open time passing, in the database's clock.
    await stack.platform.database.db
      .update(appInstallCircuits)
      .set({ openedAt: sql`now() - interval '1 hour'` })
      .where(eq(appInstallCircuits.installId, ids.gated as string));
    expect((await circuitOf('gated')).state).toBe('half_open');

    await put('/app-installs/gated/limits', NO_CALLS_TODAY);
    const refused = await finishedRun(stack, 'gated-ok');
    expect(refused.steps[0]?.error).toMatchObject({
      code: 'app_quota_exceeded',
      details: { scope: 'install', metric: 'calls', period: 'day', max: 0 },
    });
    expect(await recordsOf(stack, refused.id)).toEqual([]);
    const [row] = await stack.platform.database.db
      .select()
      .from(appInstallCircuits)
      .where(eq(appInstallCircuits.installId, ids.gated as string));
    expect(row).toMatchObject({ state: 'open', trialId: null, trialClaimedAt: null });

    await put('/app-installs/gated/limits', NO_BUDGETS);
    const trial = await finishedRun(stack, 'gated-ok');
    expect(trial.status).toBe('completed');
    expect(trial.context).toMatchObject({ screening: { status: 200, body: { vendor: 'up' } } });
    expect(await circuitOf('gated')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('a quota refusal ends the step at once: no retry, no record, no fallback', async () => {
    await put('/app-installs/limited/limits', NO_CALLS_TODAY);
    const backupBefore = requestsTo('/backup').length;
    const refused = await finishedRun(stack, 'limited');
    expect(refused.status).toBe('failed');
    expect(refused.steps[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(refused.steps[0]?.error).toMatchObject({
      code: 'app_quota_exceeded',
      details: { scope: 'install', install: 'limited' },
    });
    expect(refused.steps[0]?.error?.details).not.toHaveProperty('fallback');
    expect(await recordsOf(stack, refused.id)).toEqual([]);
    expect(requestsTo('/backup')).toHaveLength(backupBefore);
  });
});

describe('retries and the idempotency key, through runs', () => {
  it('retries after the default 2 s, then 4 s, every attempt carrying the step’s key', async () => {
    flakyLeft = 2;
    const done = await finishedRun(stack, 'keyed-flaky');
    expect(done.status).toBe('completed');
    expect(done.steps[0]).toMatchObject({ status: 'completed', attempts: 3 });
    const seen = requestsTo('/flaky');
    expect(seen.map((r) => r.headers['idempotency-key'])).toEqual(Array(3).fill(`${done.id}:screen`));
    const at = seen.map((r) => receivedAt.get(r) as number);
    // DBOS.sleep wakes no earlier than asked, and each wait starts after the vendor answered.
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(2_000);
    expect((at[2] as number) - (at[1] as number)).toBeGreaterThanOrEqual(4_000);
  });

  it('the fallback’s attempt carries the same key as the named install’s', async () => {
    const done = await finishedRun(stack, 'keyed-fallback');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ screening: { body: { vendor: 'backup' } } });
    const records = await recordsOf(stack, done.id);
    expect(records.map((r) => [r.installName, r.status])).toEqual([
      ['keyed', 'error'],
      ['keyed-backup', 'success'],
    ]);
    const last = (path: string) => requestsTo(path).at(-1)?.headers['idempotency-key'];
    expect([last('/down'), last('/backup')]).toEqual([`${done.id}:screen`, `${done.id}:screen`]);
  });

  it('a rule_set step’s app rule sends the step’s key with the rule’s', async () => {
    const done = await finishedRun(stack, 'keyed-rule-step');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ checks: { passed: true } });
    expect(requestsTo('/ok').at(-1)?.headers['idempotency-key']).toBe(`${done.id}:checks:rule:vendor-up`);
  });
});
