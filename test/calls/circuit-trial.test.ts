// The half-open trial (step 4 of an attempt, claimed by one worker only; docs/calls.md "The
// circuit"): after the open time exactly one attempt across every process claims the trial — 20
// concurrent calls from two processes (trial-caller.ts, each its own pool and runner client), their
// claims queued together on the circuit row's lock, give one call to the vendor and 19 refusals; the
// trial's success closes the circuit, its outage re-opens it; a trial that never reports frees its slot
// an open time after its claim; a claim touches only its own install's row. The release's
// http-connector against a vendor double on 127.0.0.1, the real api, runner and database; circuit rows
// are set straight in the database, in its clock.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, eq, like, type SQL, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { attemptDepsOf } from '../../src/calls/attempt.ts';
import { callInstall } from '../../src/calls/call-install.ts';
import { appInvocations, appMetering } from '../../src/calls/tables.ts';
import { claimTrial, readDatabaseNow } from '../../src/installs/circuit/circuit-store.ts';
import { appInstallCircuits } from '../../src/installs/tables.ts';
import { createRunnerClient, type RunnerClient } from '../../src/runner/client.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published } from '../installs/support.ts';
import { CONNECTOR } from '../runs/stack.ts';
import { children, cleanUpProcesses, collect, ROOT } from '../support/processes.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';

let platform: CataloguePlatform;
let vendor: VendorDouble;
let runner: RunnerClient;
let tenantId: string;
let versionId: string;
/** How the vendor answers /screen: at once, held until released, or 503 (an outage http-connector retries). */
let mode: 'up' | 'hold' | 'down' = 'up';
let release: () => void = () => {};
let held: Promise<void> = Promise.resolve();
/** Ends the transaction lockRow holds, if any. */
let unlock: () => Promise<void> = async () => {};

beforeAll(async () => {
  platform = await startCataloguePlatform({ APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' });
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/screen',
      respond: async () => {
        if (mode === 'down') return { status: 503, json: { error: 'down' } };
        if (mode === 'hold') await held;
        return { json: { vendor: 'up' } };
      },
    },
  ]);
  runner = createRunnerClient({ baseUrl: platform.runnerUrl, token: RUNNER_TOKEN });
  tenantId = await platform.tenantId();
  versionId = (await published(platform, await platform.token(), fs.readFile(CONNECTOR))).id;
}, 120_000);
afterEach(async () => {
  mode = 'up';
  release();
  await unlock();
  await cleanUpProcesses();
});
afterAll(async () => {
  await runner?.close();
  await vendor?.close();
  await platform?.close();
});

/** An install of http-connector against the vendor double, its circuit row set as given. */
async function installWithCircuit(name: string, circuit: Record<string, unknown>) {
  const { id } = await ok<{ id: string }>(
    await platform.fetch('/app-installs', {
      method: 'POST',
      json: { name, versionId, enabled: true, config: { baseUrl: vendor.url }, approveHosts: [vendor.host] },
    }),
    201,
  );
  await platform.database.db
    .insert(appInstallCircuits)
    .values({ installId: id, tenantId, state: 'open', failures: 5, ...circuit });
  return id;
}

const circuitOf = async (installId: string) =>
  (
    await platform.database.db
      .select()
      .from(appInstallCircuits)
      .where(eq(appInstallCircuits.installId, installId))
  )[0];
/** The install's app.circuit.* audit actions, oldest first. */
const circuitAudits = async (installId: string) =>
  (
    await platform.database.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, installId), like(auditEvents.action, 'app.circuit.%')))
      .orderBy(auditEvents.occurredAt)
  ).map((row) => row.action);
const recordsOf = (installId: string) =>
  platform.database.db.select().from(appInvocations).where(eq(appInvocations.installId, installId));
const hourAgo = sql`now() - interval '1 hour'`;
/** A circuit opened an hour ago: past its open time, its trial is due. */
const DUE = { since: hourAgo, openedAt: hourAgo };
/** A trial some attempt claimed and never reported. */
const STALE = '00000000-0000-4000-8000-000000000001';
/** The circuit half-open with the STALE trial out, claimed at `claimedAt`. */
const trialOut = (claimedAt: SQL) => ({
  ...DUE,
  state: 'half_open',
  trialId: STALE,
  trialClaimedAt: claimedAt,
});

/**
 * Locks the install's circuit row in a transaction of its own until `unlock()`: every claim's UPDATE then
 * queues behind it, so all of them meet the row at once when it ends — the interleaving the claim must
 * survive (a claim that read the row and then wrote it would give the trial to every one of them).
 */
async function lockRow(installId: string) {
  let locked!: () => void;
  let end!: () => void;
  const taken = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const done = platform.database.db.transaction(async (tx) => {
    await tx
      .select()
      .from(appInstallCircuits)
      .where(eq(appInstallCircuits.installId, installId))
      .for('update');
    locked();
    await new Promise<void>((resolve) => {
      end = resolve;
    });
  });
  await Promise.race([taken, done]);
  unlock = async () => {
    end();
    await done;
  };
}

/** trial-caller.ts connections whose claim (the circuit's UPDATE) waits on the row lockRow holds. */
const queuedClaims = async () =>
  (
    await platform.database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from pg_stat_activity
        where application_name = 'trial-caller' and wait_event_type = 'Lock'
          and query like 'update "app_install_circuits"%'`,
    )
  ).rows[0]?.n;

/** One call of the install in this process, as a step's attempt: its outcome's status or refusal's code. */
async function callOnce(install: string) {
  const deps = attemptDepsOf(platform.config, platform.database, runner);
  const record = {
    workflowRunId: null,
    stepId: null,
    ruleSetKey: null,
    ruleKey: null,
    attempt: 1,
    fallbackOf: null,
  };
  return callInstall(deps, {
    tenantId,
    install,
    action: 'request',
    input: { method: 'GET', path: '/screen' },
    idempotencyKey: null,
    subjectId: null,
    deadline: Date.now() + 60_000,
    record,
  }).then(
    (outcome) => outcome.status,
    (error: { code?: string }) => error.code ?? String(error),
  );
}

/** trial-caller.ts in its own process, making `calls` calls of the install once told `go`. */
function startCaller(install: string, calls: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/calls/trial-caller.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: platform.config.databaseUrl as string,
      RUNNER_URL: platform.runnerUrl,
      RUNNER_TOKEN,
      TENANT_ID: tenantId,
      INSTALL: install,
      CALLS: String(calls),
    },
    detached: true,
  });
  children.add(child);
  const { exited, out } = collect(child);
  const lines = () => out().split('\n').filter(Boolean);
  const results = () =>
    lines()
      .slice(1)
      .map((line) => JSON.parse(line) as { status?: string; statusCode?: number; code?: string });
  return { child, exited, lines, results };
}

it('gives the half-open trial to exactly one of 20 concurrent calls from two processes; its success closes the circuit', async () => {
  const installId = await installWithCircuit('shared', DUE);
  mode = 'hold';
  held = new Promise((resolve) => {
    release = resolve;
  });
  const hitsBefore = vendor.requests.length;
  const callers = [startCaller('shared', 10), startCaller('shared', 10)];
  await vi.waitFor(() => expect(callers.map((caller) => caller.lines()[0])).toEqual(['ready', 'ready']), {
    timeout: 30_000,
  });
  await lockRow(installId);
  for (const caller of callers) caller.child.stdin?.end('go\n');
  // Every call passed the gate (step 2: a trial is due) and waits at its claim (step 4), then all go at once.
  await vi.waitFor(async () => expect(await queuedClaims()).toBe(20), { timeout: 30_000, interval: 20 });
  expect(vendor.requests.length - hitsBefore).toBe(0);
  await unlock();

  const results = () => callers.flatMap((caller) => caller.results());
  // The trial is held at the vendor until every other call has been refused.
  await vi.waitFor(
    () => {
      expect(results()).toHaveLength(19);
      expect(vendor.requests.length - hitsBefore).toBe(1);
    },
    { timeout: 30_000, interval: 20 },
  );
  expect(results()).toEqual(
    Array.from({ length: 19 }, () => ({ statusCode: 503, code: 'app_circuit_open' })),
  );
  expect(await circuitOf(installId)).toMatchObject({ state: 'half_open', trialId: expect.any(String) });
  release();

  const exits = await Promise.all(callers.map((caller) => caller.exited));
  expect(exits.map((exit) => [exit.code, exit.stderr])).toEqual([
    [0, ''],
    [0, ''],
  ]);
  expect(results().filter((result) => result.status === 'success')).toHaveLength(1);
  expect(results()).toHaveLength(20);
  expect(vendor.requests.length - hitsBefore).toBe(1);
  expect((await recordsOf(installId)).map((record) => record.status)).toEqual(['success']);
  const metered = await platform.database.db
    .select({ calls: sql<number>`sum(${appMetering.calls})::int` })
    .from(appMetering)
    .where(eq(appMetering.installId, installId));
  expect(metered).toEqual([{ calls: 1 }]);
  expect(await circuitOf(installId)).toMatchObject({ state: 'closed', failures: 0, trialId: null });
  expect(await circuitAudits(installId)).toEqual(['app.circuit.closed']);
}, 90_000);

it('re-opens the circuit when the trial meets an outage, for another open time', async () => {
  const installId = await installWithCircuit('relapsing', DUE);
  mode = 'down';
  const before = await readDatabaseNow(platform.database.db);
  expect(await callOnce('relapsing')).toBe('error');
  const after = await circuitOf(installId);
  expect(after).toMatchObject({ state: 'open', failures: 6, trialId: null, trialClaimedAt: null });
  // Opened anew at the database's now of the move: its open time starts again.
  const openedAt = after?.openedAt?.getTime() as number;
  expect(after?.since?.getTime()).toBe(openedAt);
  expect(openedAt).toBeGreaterThanOrEqual(before.getTime());
  expect(openedAt).toBeLessThanOrEqual((await readDatabaseNow(platform.database.db)).getTime());
  // Refused at once for the new open time (30 s by default): nothing more reaches the vendor.
  const hits = vendor.requests.length;
  expect(await callOnce('relapsing')).toBe('app_circuit_open');
  expect(vendor.requests.length).toBe(hits);
  // A re-open announces nothing (nextCircuit's announce is null): no app.circuit.opened, no closed.
  expect(await circuitAudits(installId)).toEqual([]);
});

it('frees the slot of a trial that never reported once an open time has passed since its claim', async () => {
  const installId = await installWithCircuit('stale', trialOut(sql`now() - interval '31 seconds'`));
  expect(await callOnce('stale')).toBe('success');
  expect(await circuitOf(installId)).toMatchObject({ state: 'closed', failures: 0, trialId: null });

  // Within the open time after its claim, the trial still holds the slot.
  const heldId = await installWithCircuit('held', trialOut(sql`now() - interval '5 seconds'`));
  expect(await callOnce('held')).toBe('app_circuit_open');
  expect(await circuitOf(heldId)).toMatchObject({ state: 'half_open', trialId: STALE });
});

it('claims only its own install’s trial: other installs’ due trials are left as they were', async () => {
  const first = await installWithCircuit('first', DUE);
  // Due both ways: open past its open time, and half-open with a trial claimed an open time ago.
  const others = [
    await installWithCircuit('second', DUE),
    await installWithCircuit('third', trialOut(hourAgo)),
  ];
  const untouched = await Promise.all(others.map(circuitOf));
  const settings = { failureThreshold: 5, openSeconds: 30 };
  expect(
    await claimTrial(platform.database.db, first, settings, '00000000-0000-4000-8000-00000000000a'),
  ).toBe(true);
  expect(
    await claimTrial(platform.database.db, first, settings, '00000000-0000-4000-8000-00000000000b'),
  ).toBe(false);
  expect(await circuitOf(first)).toMatchObject({
    state: 'half_open',
    trialId: '00000000-0000-4000-8000-00000000000a',
  });
  expect(await Promise.all(others.map(circuitOf))).toEqual(untouched);
});
