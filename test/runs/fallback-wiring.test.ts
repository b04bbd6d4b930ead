// When the fallback takes a call, and what a call says when both installs fail, through real runs and
// app rules (docs/calls.md "Fallbacks", "The circuit"): the worker
// (DBOS) in this process, the real api and runner, http-connector against a vendor double, and `relay`
// (the echo fixture whose actions time out after 300 ms: one idempotent, one not) against a second double
// that holds every request. The fallback never takes a final error or a timeout of a non-idempotent
// action; details.fallback carries the fallback's message; and the step's last two seconds are the
// boundary between an outage (the fallback takes it, the circuit counts it) and the step's own clock.
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { ok, published } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { evaluateOn, type ManualClock, manualClock } from './clock.ts';
import {
  finishedRun,
  installConnector,
  publishDefinition,
  type RunsStack,
  recordsOf,
  startRunsStack,
} from './stack.ts';

let stack: RunsStack;
/** Holds every request unanswered (a vendor that never answers). */
let holding: VendorDouble;
let tenantId: string;
const ids: Record<string, string> = {};

/** The spec's evaluation minute: every app call of one evaluation shares it. */
const EVALUATION_MS = 60_000;
/** The evaluation whose vendor answers /slow: its clock, and when (on it) the vendor answers. */
let slow: { clock: ManualClock; answersAt: number } | null = null;

const request = (path: string) => ({ method: 'GET', path });
const toBackup = (path = '/backup') => ({ install: 'backup', action: 'request', input: request(path) });
const once = { retry: { maxAttempts: 1 } };
const callStep = (install: string, action: string, input: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'screen',
  type: 'call_app' as const,
  install,
  action,
  input,
  outputKey: 'screening',
  ...extra,
});
const backupCalls = () => stack.vendor.requests.filter((r) => r.path === '/backup').length;
const circuitOf = async (install: string) =>
  (
    await ok<{ circuit: { state: string; failures: number } }>(
      await stack.platform.fetch(`/app-installs/${install}`),
    )
  ).circuit;

/** The echo fixture as `relay`: it sends the http_request its input names; both actions time out at 300 ms. */
const relayModule = () =>
  buildFixture('echo', {
    '"name":"echo","version":"1.0.0"': '"name":"relay","version":"1.0.0"',
    '"configSchema":{"type":"object"},':
      '"configSchema":{"type":"object","properties":{"baseUrl":{"type":"string"}}},"hostsFromConfig":["/baseUrl"],',
    '"secrets":[{"name":"API_KEY"}],': '',
    '"actions":[{"name":"echo","input":{"type":"object"},"output":{"type":"object"}}]':
      '"actions":[{"name":"relay","input":{"type":"object"},"output":{"type":"object"},"timeoutMs":300,"idempotent":false},' +
      '{"name":"relay_idempotent","input":{"type":"object"},"output":{"type":"object"},"timeoutMs":300,"idempotent":true}]',
  });
const relayInput = () => ({
  hostCall: { fn: 'http_request', request: { method: 'GET', url: `${holding.url}/held` } },
});

beforeAll(async () => {
  stack = await startRunsStack([
    { method: 'GET', path: '/backup', json: { vendor: 'backup' } },
    { method: 'GET', path: '/down', status: 503, json: { down: true } },
    { method: 'GET', path: '/final', status: 400, json: { unknown: 'subject' } },
    {
      method: 'GET',
      path: '/slow',
      // A 429 asking for a minute (no retry fits), answered when the evaluation's clock says answersAt.
      respond: () => {
        slow?.clock.moveTo(slow.answersAt);
        return { status: 429, headers: { 'retry-after': '60' }, json: { slow: true } };
      },
    },
  ]);
  holding = await startVendorDouble([]);
  holding.outage({ mode: 'timeout' });
  tenantId = await stack.platform.tenantId();
  for (const name of ['primary', 'backup', 'edge']) ids[name] = await installConnector(stack, name);
  const relay = await published(stack.platform, await stack.platform.token(), relayModule());
  await ok(
    await stack.platform.fetch('/app-installs', {
      method: 'POST',
      json: {
        name: 'relay',
        versionId: relay.id,
        enabled: true,
        config: { baseUrl: holding.url },
        approveHosts: [holding.host, 'api.vendor.test'],
      },
    }),
    201,
  );
  const workflows: Record<string, unknown> = {
    final: { steps: [callStep('primary', 'request', request('/final'), { fallback: toBackup() })] },
    'relay-once': {
      steps: [callStep('relay', 'relay', relayInput(), { ...once, fallback: toBackup() })],
    },
    'relay-idempotent': {
      steps: [callStep('relay', 'relay_idempotent', relayInput(), { ...once, fallback: toBackup() })],
    },
    'both-fail': {
      steps: [callStep('primary', 'request', request('/down'), { ...once, fallback: toBackup('/final') })],
    },
    'backup-alone': { steps: [callStep('backup', 'request', request('/final'))] },
  };
  for (const [key, body] of Object.entries(workflows))
    await publishDefinition(stack, tenantId, 'workflow', key, body as never);
  await publishDefinition(stack, tenantId, 'rule_set', 'edge-rules', {
    rules: [
      {
        key: 'edge',
        type: 'app',
        install: 'edge',
        action: 'request',
        input: request('/slow'),
        resultPath: 'body.vendor',
        failWhen: { equals: 'nobody' },
        fallback: toBackup(),
      },
    ],
  });
}, 120_000);
afterAll(async () => {
  await holding?.close();
  await stack?.close();
});

describe('what the fallback does not take, through runs', () => {
  it('a final error ends the step with the named install’s error; the fallback is not called', async () => {
    const before = backupCalls();
    const done = await finishedRun(stack, 'final');
    expect(done.status).toBe('failed');
    expect(done.steps[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(done.steps[0]?.error).toMatchObject({ code: 'app_call_failed', details: { reason: 'error' } });
    expect(done.steps[0]?.error?.details).not.toHaveProperty('fallback');
    expect((await recordsOf(stack, done.id)).map((r) => [r.installName, r.status])).toEqual([
      ['primary', 'error'],
    ]);
    expect(backupCalls()).toBe(before);
  });

  it('a timeout of a non-idempotent action is not sent to the fallback; of an idempotent one it is', async () => {
    const before = backupCalls();
    const lone = await finishedRun(stack, 'relay-once');
    expect(lone.status).toBe('failed');
    expect(lone.steps[0]?.error).toMatchObject({ code: 'app_call_failed', details: { reason: 'timeout' } });
    expect(lone.steps[0]?.error?.details).not.toHaveProperty('fallback');
    expect((await recordsOf(stack, lone.id)).map((r) => [r.installName, r.status])).toEqual([
      ['relay', 'timeout'],
    ]);
    expect(backupCalls()).toBe(before);

    const taken = await finishedRun(stack, 'relay-idempotent');
    expect(taken.status).toBe('completed');
    expect(taken.context).toMatchObject({ screening: { body: { vendor: 'backup' } } });
    expect((await recordsOf(stack, taken.id)).map((r) => [r.installName, r.status])).toEqual([
      ['relay', 'timeout'],
      ['backup', 'success'],
    ]);
    // Both timeouts were outages (300 ms of 300, far from the deadline): only idempotency told them apart.
    expect(await circuitOf('relay')).toMatchObject({ state: 'closed', failures: 2 });
  });
});

describe('when both installs fail', () => {
  it('the step ends with the named install’s error and the fallback’s code and message', async () => {
    const alone = await finishedRun(stack, 'backup-alone');
    const fallbackError = alone.steps[0]?.error;
    expect(fallbackError).toMatchObject({ code: 'app_call_failed', message: expect.any(String) });

    const done = await finishedRun(stack, 'both-fail');
    expect(done.status).toBe('failed');
    expect(done.steps[0]?.error).toMatchObject({
      code: 'app_call_failed',
      details: {
        reason: 'error',
        fallback: {
          install: 'backup',
          action: 'request',
          code: fallbackError?.code,
          message: fallbackError?.message,
        },
      },
    });
    expect((await recordsOf(stack, done.id)).map((r) => [r.installName, r.status])).toEqual([
      ['primary', 'error'],
      ['backup', 'error'],
    ]);
  });
});

/** Evaluates edge-rules on a fresh clock; its vendor answers 429 with `leftMs` of the evaluation left. */
async function evaluateEdge(leftMs: number) {
  const clock = manualClock();
  slow = { clock, answersAt: clock.now() + EVALUATION_MS - leftMs };
  try {
    return await evaluateOn(stack, clock, { tenantId, key: 'edge-rules' });
  } finally {
    slow = null;
  }
}

const edgeRecords = () =>
  stack.platform.database.db
    .select()
    .from(appInvocations)
    .where(and(eq(appInvocations.ruleSetKey, 'edge-rules'), eq(appInvocations.ruleKey, 'edge')))
    .orderBy(asc(appInvocations.createdAt));

describe('the last two seconds, through an app rule on a clock the test moves', () => {
  it('a retryable error with 2000 ms left is the clock’s, not the vendor’s: not counted, no fallback', async () => {
    const [before, seen, { failures }] = [
      backupCalls(),
      (await edgeRecords()).length,
      await circuitOf('edge'),
    ];
    const evaluation = await evaluateEdge(2_000);
    expect(evaluation.rules).toEqual([
      expect.objectContaining({
        key: 'edge',
        status: 'error',
        error: expect.objectContaining({ code: 'app_call_failed', details: { reason: 'error' } }),
      }),
    ]);
    expect((await edgeRecords()).slice(seen).map((r) => [r.installName, r.status])).toEqual([
      ['edge', 'error'],
    ]);
    expect(await circuitOf('edge')).toMatchObject({ state: 'closed', failures });
    expect(backupCalls()).toBe(before);
  });

  it('with 2001 ms left it is an outage: counted, and the fallback takes the call', async () => {
    const [seen, { failures }] = [(await edgeRecords()).length, await circuitOf('edge')];
    const evaluation = await evaluateEdge(2_001);
    expect(evaluation.rules).toEqual([{ key: 'edge', type: 'app', status: 'passed', value: 'backup' }]);
    expect((await edgeRecords()).slice(seen).map((r) => [r.installName, r.status, r.fallbackOf])).toEqual([
      ['edge', 'error', null],
      ['backup', 'success', { installId: ids.edge, name: 'edge' }],
    ]);
    expect(await circuitOf('edge')).toMatchObject({ state: 'closed', failures: failures + 1 });
  });
});
