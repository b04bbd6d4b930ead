// Retries as specified, waits for a runner's capacity and the deadline of a step's or rule's call (issue 26
// items 5, 8, 9; docs/runs.md "Idempotency keys, retries and the deadline"): callApp and
// evaluateRuleSet through the real attempt pipeline, database, runner (behind a link the tests can stop)
// and modules, http-connector against a vendor double. The driver's clock is the test's: a wait moves it
// on at once, so a vendor's five-minute Retry-After is honoured without waiting five minutes. The rules'
// numbers are written out (300000 and 600000 ms, 2 s), never read from the code's constants.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import type { AttemptDeps } from '../../src/calls/attempt.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { createRunnerClient, type RunnerClient } from '../../src/runner/client.ts';
import { type AppCall, type CallDriver, callApp, type InstallPart } from '../../src/runs/app-call.ts';
import { evaluateRuleSet } from '../../src/runs/evaluation.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX, type Version } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { RUNNER_TOKEN, waitForRunner } from '../support/runner.ts';
import { type RunnerLink, startRunnerLink } from '../support/runner-link.ts';
import { publishDefinitionRows } from './definitions.ts';
import { CONNECTOR } from './stack.ts';

let platform: CataloguePlatform;
let cacheDir: string;
let link: RunnerLink;
let vendor: VendorDouble;
let database: Database;
let runner: RunnerClient;
let deps: AttemptDeps;
let tenantId: string;
let admin: string;
let answersVersion: Version;
/** Answers of the vendor's /later route, in turn (then 200). */
const later: { status: number; headers?: Record<string, string> }[] = [];
let releaseHeld = () => {};

const answersModule = (version: string, retry?: { maxAttempts: number; backoffMs: number }) =>
  buildFixture('answers', {
    '"version":"1.0.0"': `"version":"${version}"`,
    ...(retry
      ? {
          '"output":{"type":"object","required":["n"]': `"retry":${JSON.stringify(retry)},"output":{"type":"object","required":["n"]`,
        }
      : {}),
  });

async function install(name: string, versionId: string, config?: Record<string, unknown>, hosts?: string[]) {
  await ok(
    await platform.fetch('/app-installs', {
      method: 'POST',
      token: admin,
      json: { name, versionId, enabled: true, ...(config ? { config } : {}), approveHosts: hosts ?? [] },
    }),
    201,
  );
}

beforeAll(async () => {
  // The runner's own module cache, empty: a module it kept from another test file would never be fetched.
  cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-call-time-'));
  platform = await startCataloguePlatform(
    { SECRET_STORE_KEY: SECRET_KEY_HEX, APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true' },
    {
      runnerEnv: { APP_RUNNER_CACHE_DIR: cacheDir },
      runnerUrlFor: async (runnerUrl) => {
        link = await startRunnerLink(runnerUrl);
        return link.url;
      },
    },
  );
  const held = new Promise<void>((resolve) => {
    releaseHeld = resolve;
  });
  vendor = await startVendorDouble([
    { method: 'GET', path: '/quick', json: { quick: true } },
    { method: 'GET', path: '/hold', respond: async () => held.then(() => ({ json: { held: true } })) },
    { method: 'GET', path: '/later', respond: () => later.shift() ?? { json: { later: true } } },
  ]);
  tenantId = await platform.tenantId();
  admin = await platform.token();
  const connector = await published(platform, admin, fs.readFile(CONNECTOR));
  await install('vendor', connector.id, { baseUrl: vendor.url }, [vendor.host]);
  answersVersion = await published(platform, admin, answersModule('1.0.0'));
  await install('answers', answersVersion.id);
  const retrying = await published(
    platform,
    admin,
    answersModule('1.1.0', { maxAttempts: 2, backoffMs: 2_000 }),
  );
  await install('answers-retry', retrying.id);
  database = openDatabase(platform.config.databaseUrl as string, { applicationName: 'call-time-test' });
  runner = createRunnerClient({ baseUrl: link.url, token: RUNNER_TOKEN });
  deps = {
    database,
    runner,
    secretStoreKey: platform.config.secretStoreKey,
    cacheBudget: platform.config.cacheBudget,
    callTokenSecret: null,
    circuitDefaults: platform.config.circuit,
  };
}, 120_000);
afterAll(async () => {
  releaseHeld();
  await runner?.close();
  await database?.close();
  await vendor?.close();
  await platform?.close();
  await link?.close();
  await fs.rm(cacheDir, { recursive: true, force: true });
});

/** A driver on the test's clock: every wait moves it on at once; each wait is kept, in order. */
function testDriver(onCapacityWait: (waits: number) => Promise<void> = async () => {}) {
  let offset = 0;
  const sleeps: number[] = [];
  const capacityWaits: number[] = [];
  const driver: CallDriver = {
    attempt: (_name, run) =>
      run(async (ms) => {
        capacityWaits.push(ms);
        offset += ms;
        await onCapacityWait(capacityWaits.length);
      }),
    sleep: async (ms) => {
      sleeps.push(ms);
      offset += ms;
    },
    now: () => Date.now() + offset,
    random: () => 0.5,
  };
  return { driver, sleeps, capacityWaits };
}

/** A step's call (as a workflow's call_app step makes it) of `named`, by `deadline`, recorded under a fresh run id. */
function stepCall(named: InstallPart, deadline: number): AppCall & { runId: string } {
  const runId = randomUUID();
  return {
    runId,
    caller: 'step',
    tenantId,
    subjectId: 'applicant-1',
    idempotencyKey: `${runId}:screen`,
    deadline,
    origin: { workflowRunId: runId, stepId: 'screen', ruleSetKey: null, ruleKey: null },
    named,
    asyncRefusal: (action) => ({ code: 'app_call_failed', message: `${action} is asynchronous` }),
  };
}

const request = (pathname: string): InstallPart => ({
  install: 'vendor',
  action: 'request',
  input: { method: 'GET', path: pathname },
});

const recordsOfRun = (runId: string) =>
  database.db
    .select()
    .from(appInvocations)
    .where(eq(appInvocations.workflowRunId, runId))
    .orderBy(asc(appInvocations.attempt), asc(appInvocations.createdAt));

const requestsTo = (pathname: string) => vendor.requests.filter((r) => r.path === pathname).length;

describe("a vendor's retryAfterMs longer than the policy's wait (up to ten minutes)", () => {
  it('a step honours a 5 minute Retry-After although its deadline is 2.5 minutes: it waits 300000 ms, then succeeds', async () => {
    later.push({ status: 429, headers: { 'retry-after': '300' } });
    const { driver, sleeps } = testDriver();
    const call = stepCall(request('/later'), driver.now() + 150_000);
    const end = await callApp(deps, driver, call);
    expect(end).toMatchObject({ ok: true, attempts: 2, output: { status: 200, body: { later: true } } });
    expect(sleeps).toEqual([300_000]);
    expect((await recordsOfRun(call.runId)).map((r) => [r.attempt, r.status])).toEqual([
      [1, 'error'],
      [2, 'success'],
    ]);
  });

  it('a wait asked past ten minutes is waited as ten (600000 ms)', async () => {
    later.push({ status: 503, headers: { 'retry-after': '3600' } });
    const { driver, sleeps } = testDriver();
    const end = await callApp(deps, driver, stepCall(request('/later'), driver.now() + 150_000));
    expect(end).toMatchObject({ ok: true, attempts: 2 });
    expect(sleeps).toEqual([600_000]);
  });

  it("a rule's evaluation minute is firm: a 5 minute wait ends the rule with the vendor's error", async () => {
    later.push({ status: 429, headers: { 'retry-after': '300' } });
    const before = requestsTo('/later');
    await publishDefinitionRows(database, tenantId, 'rule_set', 'later', {
      rules: [appRule('later', 'vendor', 'request', { method: 'GET', path: '/later' }, 'status')],
    });
    const sleeps: number[] = [];
    const evaluation = await evaluateRuleSet(
      { database, attempt: deps, sleep: async (ms) => void sleeps.push(ms) },
      { tenantId, key: 'later', data: {}, dryRun: false, subjectId: null },
    );
    expect(evaluation.rules[0]).toMatchObject({ status: 'error', error: { code: 'app_call_failed' } });
    expect(sleeps).toEqual([]);
    expect(requestsTo('/later') - before).toBe(1);
  });
});

function appRule(key: string, installName: string, action: string, input: object, resultPath: string) {
  return {
    key,
    type: 'app' as const,
    install: installName,
    action,
    input: input as Record<string, unknown>,
    resultPath,
    failWhen: { equals: 'never' },
  };
}

describe("an app rule's call follows its action's retry (absent: one attempt)", () => {
  const retryableError = { status: 'error', message: 'slow down', retryable: true };

  /** Evaluates a one-rule set calling `installName`'s sync action, waits kept; answers the rule's records. */
  async function evaluateOne(key: string, installName: string) {
    await publishDefinitionRows(database, tenantId, 'rule_set', key, {
      rules: [appRule('flaky', installName, 'sync', retryableError, 'n')],
    });
    const sleeps: number[] = [];
    const evaluation = await evaluateRuleSet(
      { database, attempt: deps, sleep: async (ms) => void sleeps.push(ms) },
      { tenantId, key, data: {}, dryRun: false, subjectId: null },
    );
    const records = await database.db
      .select()
      .from(appInvocations)
      .where(and(eq(appInvocations.tenantId, tenantId), eq(appInvocations.ruleSetKey, key)));
    return { evaluation, sleeps, records };
  }

  it('an action declaring no retry: one attempt, no wait (not the steps’ 3 × 2 s)', async () => {
    const { evaluation, sleeps, records } = await evaluateOne('no-retry', 'answers');
    // The rule's error names the install and action; the vendor's "slow down" stays in the record.
    expect(evaluation.rules[0]).toMatchObject({
      status: 'error',
      error: { message: expect.stringMatching(/^install answers, action sync: app_call_failed/) },
    });
    expect(JSON.stringify(evaluation.rules[0])).not.toContain('slow down');
    expect(sleeps).toEqual([]);
    expect(records.map((r) => r.attempt)).toEqual([1]);
  });

  it('an action declaring { maxAttempts: 2, backoffMs: 2000 }: two attempts, 2 s apart', async () => {
    const { sleeps, records } = await evaluateOne('declared-retry', 'answers-retry');
    expect(sleeps).toEqual([2_000]);
    expect(records.map((r) => r.attempt).sort()).toEqual([1, 2]);
  });

  it('a step calling the same action without a retry of its own takes the default: 3 attempts, 2 s then 4 s', async () => {
    const { driver, sleeps } = testDriver();
    const call = stepCall(
      { install: 'answers', action: 'sync', input: retryableError },
      driver.now() + 150_000,
    );
    const end = await callApp(deps, driver, call);
    expect(end).toMatchObject({ ok: false, attempts: 3 });
    expect(sleeps).toEqual([2_000, 4_000]);
  });
});

describe('module_unavailable is retried (the module could not be fetched: nothing ran)', () => {
  it('a module the runner could not fetch is sent again after the policy’s wait, and succeeds', async () => {
    const version = await published(platform, admin, answersModule('1.0.1'));
    await install('refetched', version.id);
    const stored = path.join(platform.config.dataDir, 'modules', `${version.sha256}.wasm`);
    const bytes = await fs.readFile(stored);
    await fs.appendFile(stored, Buffer.from([0]));
    const { driver, sleeps } = testDriver();
    // The storage is repaired during the wait between the attempts.
    const repairing: CallDriver = {
      ...driver,
      sleep: async (ms) => {
        await fs.writeFile(stored, bytes);
        await driver.sleep(ms);
      },
    };
    const call = stepCall(
      { install: 'refetched', action: 'sync', input: { status: 'ok', output: { n: 1 } } },
      driver.now() + 150_000,
    );
    const end = await callApp(deps, repairing, call);
    expect(end).toMatchObject({ ok: true, attempts: 2, output: { n: 1 } });
    expect(sleeps).toEqual([2_000]);
    const records = await recordsOfRun(call.runId);
    expect(records.map((r) => [r.attempt, r.status, r.error?.reason ?? null])).toEqual([
      [1, 'error', 'module_unavailable'],
      [2, 'success', null],
    ]);
  });
});

describe('a call no runner took waits for capacity: no attempt spent, nothing recorded (item 5)', () => {
  it('not_sent: the runner unreachable, the attempt waits (backing off) and is sent once it is back', async () => {
    await link.pause();
    const { driver, capacityWaits } = testDriver(async (waits) => {
      if (waits === 3) await link.resume();
    });
    const call = stepCall(request('/quick'), driver.now() + 150_000);
    const end = await callApp(deps, driver, call);
    expect(end).toMatchObject({ ok: true, attempts: 1, output: { body: { quick: true } } });
    // Waits of 100, 200 and 400 ms, each between half and all of it (the draw here is 0.5).
    expect(capacityWaits).toEqual([75, 150, 300]);
    expect((await recordsOfRun(call.runId)).map((r) => [r.attempt, r.status])).toEqual([[1, 'success']]);
  });

  it('busy: the tenant at the runner’s bound (4), the attempt waits until a place frees, recorded once', async () => {
    const holding = Array.from({ length: 4 }, () =>
      platform.fetch('/app-installs/vendor/test', {
        method: 'POST',
        token: admin,
        json: { action: 'request', input: { method: 'GET', path: '/hold' } },
      }),
    );
    await waitForRunner(platform.runnerUrl, (health) => health.inFlight === 4);
    const { driver, capacityWaits } = testDriver(async (waits) => {
      if (waits === 1) {
        releaseHeld();
        await Promise.all(holding);
      }
    });
    const call = stepCall(request('/quick'), driver.now() + 150_000);
    const end = await callApp(deps, driver, call);
    expect(end).toMatchObject({ ok: true, attempts: 1 });
    expect(capacityWaits).toEqual([75]);
    expect((await recordsOfRun(call.runId)).map((r) => [r.attempt, r.status])).toEqual([[1, 'success']]);
  });

  it('a runner that never comes back ends the call at the deadline with not_sent, recorded nowhere', async () => {
    await link.pause();
    try {
      const { driver, capacityWaits } = testDriver();
      const call = stepCall(request('/quick'), driver.now() + 5_000);
      const end = await callApp(deps, driver, call);
      expect(end).toMatchObject({
        ok: false,
        attempts: 1,
        error: {
          code: 'app_call_failed',
          message: 'no runner took the call of vendor request before the deadline',
          details: { reason: 'not_sent' },
        },
      });
      expect(capacityWaits.length).toBeGreaterThan(2);
      expect(await recordsOfRun(call.runId)).toEqual([]);
    } finally {
      await link.resume();
    }
  });
});

describe('no attempt starts that cannot end before the deadline (minimum chosen: 1 s)', () => {
  it.each([
    { left: 50, what: 'less than the runner’s 100 ms floor (sent today as a bad_request)' },
    { left: 500, what: 'less than the minimum useful second' },
  ])('$left ms left: $what — nothing is sent or recorded', async ({ left }) => {
    const before = requestsTo('/quick');
    const { driver } = testDriver();
    const call = stepCall(request('/quick'), Date.now() + left);
    const end = await callApp(deps, driver, call);
    expect(end).toMatchObject({
      ok: false,
      attempts: 1,
      error: { code: 'app_call_failed', details: { reason: 'deadline' } },
    });
    expect(end.ok ? null : end.error.message).toMatch(
      /^install vendor, action request: app_call_failed: the deadline left less than 1000 ms for another attempt of vendor request; none was started$/,
    );
    expect(requestsTo('/quick')).toBe(before);
    expect(await recordsOfRun(call.runId)).toEqual([]);
  });

  it('a rule the evaluation’s minute has no time left for is not sent', async () => {
    await publishDefinitionRows(database, tenantId, 'rule_set', 'late', {
      rules: [appRule('late', 'vendor', 'request', { method: 'GET', path: '/quick' }, 'status')],
    });
    const before = requestsTo('/quick');
    // The evaluation began 59.99 s ago: 10 ms of its minute are left for the rule.
    const evaluation = await evaluateRuleSet(
      { database, attempt: deps, now: () => Date.now() - 59_990 },
      { tenantId, key: 'late', data: {}, dryRun: false, subjectId: null },
    );
    expect(evaluation.rules[0]).toMatchObject({
      status: 'error',
      error: { code: 'app_call_failed', details: { reason: 'deadline' } },
    });
    expect(requestsTo('/quick')).toBe(before);
    const records = await database.db
      .select()
      .from(appInvocations)
      .where(and(eq(appInvocations.tenantId, tenantId), eq(appInvocations.ruleSetKey, 'late')));
    expect(records).toEqual([]);
  });
});
