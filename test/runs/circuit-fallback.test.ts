// The circuit and fallbacks end to end (docs/calls.md
// "The circuit", "Fallbacks"): real runs on the worker (DBOS), the real api and runner, http-connector
// installed twice — `primary` against a vendor double switched to fail, `backup` against a second one.
// A run whose vendor is down opens the circuit after 5 outages and the fallback takes the call; later
// runs fail fast with app_circuit_open and go to the fallback; the half-open trial closes the circuit
// once the vendor is back.
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { appInstallCircuits } from '../../src/installs/tables.ts';
import { notifications } from '../../src/notifications/tables.ts';
import { ok } from '../installs/support.ts';
import { publishDefinition, type RunAnswer, type RunsStack, settledRun, startRunsStack } from './stack.ts';

let stack: RunsStack;
let backup: VendorDouble;
let tenantId: string;
const ids: Record<string, string> = {};

const CHECK = { method: 'GET', path: '/check' };
const callStep = (extra: Record<string, unknown> = {}) => ({
  id: 'screen',
  type: 'call_app' as const,
  install: 'primary',
  action: 'request',
  input: CHECK,
  outputKey: 'screening',
  // Five quick attempts: one run's outage reaches the default threshold (APP_CIRCUIT_FAILURE_THRESHOLD 5).
  retry: { maxAttempts: 5, backoffMs: 0 },
  ...extra,
});
const FALLBACK = { install: 'backup', action: 'request', input: CHECK };

async function install(name: string, vendor: VendorDouble) {
  const view = await ok<{ id: string }>(
    await stack.platform.fetch('/app-installs', {
      method: 'POST',
      json: {
        name,
        versionId: stack.connectorVersionId,
        enabled: true,
        config: { baseUrl: vendor.url },
        approveHosts: [vendor.host],
      },
    }),
    201,
  );
  ids[name] = view.id;
}

beforeAll(async () => {
  stack = await startRunsStack([{ method: 'GET', path: '/check', json: { vendor: 'primary', hit: false } }]);
  backup = await startVendorDouble([
    { method: 'GET', path: '/check', json: { vendor: 'backup', hit: false } },
  ]);
  tenantId = await stack.platform.tenantId();
  await install('primary', stack.vendor);
  await install('backup', backup);
  await publishDefinition(stack, tenantId, 'workflow', 'screen', {
    steps: [callStep({ fallback: FALLBACK })],
  });
  await publishDefinition(stack, tenantId, 'workflow', 'screen-alone', { steps: [callStep()] });
  await publishDefinition(stack, tenantId, 'rule_set', 'checks', {
    rules: [
      {
        key: 'vendor-up',
        type: 'app',
        install: 'primary',
        action: 'request',
        input: CHECK,
        resultPath: 'status',
        failWhen: { notEquals: 200 },
        fallback: FALLBACK,
      },
    ],
  });
}, 120_000);
afterAll(async () => {
  await backup?.close();
  await stack?.close();
});

async function run(workflow: string): Promise<RunAnswer> {
  const started = await ok<RunAnswer>(
    await stack.platform.fetch('/workflow-runs', {
      method: 'POST',
      json: { workflow, subjectId: 'subject-1', context: {} },
    }),
    201,
  );
  return settledRun(stack, started.id);
}

const records = (runId: string) =>
  stack.platform.database.db
    .select()
    .from(appInvocations)
    .where(eq(appInvocations.workflowRunId, runId))
    .orderBy(asc(appInvocations.createdAt));

const circuitView = async () =>
  (
    await ok<{ circuit: { state: string; failures: number; since: string | null } }>(
      await stack.platform.fetch('/app-installs/primary'),
    )
  ).circuit;

const audits = (action: string) =>
  stack.platform.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, action)));

describe('a vendor outage, the circuit and the fallback, through real runs', () => {
  it('opens the circuit after 5 outages in one run, and the fallback install completes the step', async () => {
    stack.vendor.outage({ mode: 'unavailable' });
    const done = await run('screen');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ screening: { status: 200, body: { vendor: 'backup' } } });
    expect(done.steps[0]).toMatchObject({ status: 'completed', attempts: 6 });

    const recorded = await records(done.id);
    expect(recorded.map((r) => [r.installName, r.status, r.attempt])).toEqual([
      ['primary', 'error', 1],
      ['primary', 'error', 2],
      ['primary', 'error', 3],
      ['primary', 'error', 4],
      ['primary', 'error', 5],
      ['backup', 'success', 1],
    ]);
    expect(recorded[5]?.fallbackOf).toEqual({ installId: ids.primary, name: 'primary' });
    // The same idempotency key across every attempt, the fallback's included.
    expect(new Set(recorded.map((r) => r.idempotencyKey))).toEqual(new Set([`${done.id}:screen`]));

    expect(await circuitView()).toMatchObject({ state: 'open', failures: 5 });
    const opened = await audits('app.circuit.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      resourceType: 'app_install',
      resourceId: ids.primary,
      actorType: 'system',
      data: { install: 'primary', app: 'http-connector', failures: 5, failureThreshold: 5, openSeconds: 30 },
    });
    const degraded = await stack.platform.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.tenantId, tenantId), eq(notifications.kind, 'app_degraded')));
    expect(degraded).toHaveLength(1);
    expect(degraded[0]).toMatchObject({ resourceId: ids.primary, data: { install: 'primary', failures: 5 } });
  });

  it('later runs fail fast with app_circuit_open, recorded nowhere, and go to the fallback', async () => {
    const before = stack.vendor.requests.length;
    const done = await run('screen');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ screening: { body: { vendor: 'backup' } } });
    const recorded = await records(done.id);
    expect(recorded.map((r) => [r.installName, r.status, r.fallbackOf])).toEqual([
      ['backup', 'success', { installId: ids.primary, name: 'primary' }],
    ]);
    expect(stack.vendor.requests.length).toBe(before);

    const alone = await run('screen-alone');
    expect(alone.status).toBe('failed');
    expect(alone.error).toMatchObject({ code: 'app_circuit_open' });
    expect(alone.steps[0]?.error).toMatchObject({
      code: 'app_circuit_open',
      details: { install: 'primary' },
    });
    expect(await records(alone.id)).toEqual([]);
    expect(stack.vendor.requests.length).toBe(before);
  });

  it('an app rule goes to its fallback too, recorded with its rule and fallbackOf', async () => {
    const evaluation = await ok<{
      passed: boolean;
      rules: { key: string; status: string; value?: unknown }[];
    }>(await stack.platform.fetch('/rule-sets/checks/evaluate', { method: 'POST', json: { data: {} } }));
    expect(evaluation).toMatchObject({
      passed: true,
      rules: [{ key: 'vendor-up', status: 'passed', value: 200 }],
    });
    const [record] = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(and(eq(appInvocations.ruleSetKey, 'checks'), eq(appInvocations.ruleKey, 'vendor-up')));
    expect(record).toMatchObject({
      installName: 'backup',
      status: 'success',
      fallbackOf: { installId: ids.primary, name: 'primary' },
    });
  });

  it('a success with no outage count writes no circuit row', async () => {
    const rows = await stack.platform.database.db
      .select()
      .from(appInstallCircuits)
      .where(eq(appInstallCircuits.installId, ids.backup as string));
    expect(rows).toEqual([]);
  });

  it('when the fallback fails too, the step ends with the first install’s error and the fallback’s in details', async () => {
    backup.outage({ mode: 'final' });
    try {
      const done = await run('screen');
      expect(done.status).toBe('failed');
      expect(done.steps[0]?.error).toMatchObject({
        code: 'app_circuit_open',
        details: {
          install: 'primary',
          fallback: { install: 'backup', action: 'request', code: 'app_call_failed' },
        },
      });
    } finally {
      backup.recover();
    }
  });

  it('after the open time the half-open trial closes the circuit once the vendor is back', async () => {
    stack.vendor.recover();
    // The open time passing, in the database's clock.
    await stack.platform.database.db
      .update(appInstallCircuits)
      .set({ openedAt: sql`now() - interval '1 hour'` })
      .where(eq(appInstallCircuits.installId, ids.primary as string));
    expect((await circuitView()).state).toBe('half_open');

    const done = await run('screen');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({ screening: { body: { vendor: 'primary' } } });
    expect((await records(done.id)).map((r) => [r.installName, r.status, r.fallbackOf])).toEqual([
      ['primary', 'success', null],
    ]);
    expect(await circuitView()).toMatchObject({ state: 'closed', failures: 0 });
    const closed = await audits('app.circuit.closed');
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({
      resourceId: ids.primary,
      data: { install: 'primary', app: 'http-connector' },
    });
  });

  it('a reset closes an open circuit and clears its count, audited with the state it left', async () => {
    stack.vendor.outage({ mode: 'unavailable' });
    try {
      await run('screen');
      expect((await circuitView()).state).toBe('open');
    } finally {
      stack.vendor.recover();
    }
    const reset = await ok<{ state: string; failures: number }>(
      await stack.platform.fetch('/app-installs/primary/circuit/reset', { method: 'POST' }),
    );
    expect(reset).toMatchObject({ state: 'closed', failures: 0 });
    expect(await circuitView()).toMatchObject({ state: 'closed', failures: 0 });
    const [audit] = await audits('app.circuit.reset');
    expect(audit?.data).toMatchObject({ previousState: 'open', previousFailures: 5 });
    const done = await run('screen-alone');
    expect(done.status).toBe('completed');
  });

  it('a settings change applies on the next call: a threshold of 2 opens after two outages', async () => {
    await ok(
      await stack.platform.fetch('/app-installs/primary/circuit', {
        method: 'PUT',
        json: { failureThreshold: 2, openSeconds: null },
      }),
    );
    stack.vendor.outage({ mode: 'unavailable' });
    try {
      const done = await run('screen-alone');
      expect(done.status).toBe('failed');
      // Two outages open the circuit; the third attempt is refused (recorded nowhere) and ends the step.
      expect(done.steps[0]?.error).toMatchObject({ code: 'app_circuit_open', details: { attempts: 3 } });
      expect((await records(done.id)).map((r) => r.status)).toEqual(['error', 'error']);
      expect(await circuitView()).toMatchObject({ state: 'open', failures: 2 });
    } finally {
      stack.vendor.recover();
    }
  });
});
