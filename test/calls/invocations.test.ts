// Invocation records through the real api and runner (docs/calls.md: the order of an attempt, metering,
// blocked modules, and text unredacted only for runs:context): attempts of steps, rules and
// fallbacks made with callInstall, a tenant's vendor app calling a vendor double on 127.0.0.1, and the
// records read back through GET /app-invocations and GET /app-invocations/:id.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { type AttemptDeps, attemptDepsOf } from '../../src/calls/attempt.ts';
import { callInstall } from '../../src/calls/call-install.ts';
import {
  type InvocationContext,
  type InvocationView,
  recordInvocation,
} from '../../src/calls/invocations.ts';
import { writeRecord } from '../../src/calls/record-write.ts';
import { appInvocations, appMetering } from '../../src/calls/tables.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { ApiError } from '../../src/http/errors.ts';
import { createRunnerClient, type RunnerClient } from '../../src/runner/client.ts';
import { noUsage } from '../../src/runner/host/call-state.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';

const API_KEY = 'sk-live-7d21e0b4-invocations';
const WEBHOOK_SECRET = 'whsec-invocations-91fa';

let platform: CataloguePlatform;
let vendor: VendorDouble;
let runner: RunnerClient;
let deps: AttemptDeps;
let admin: string;
let tenantId: string;
let versionId: string;

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/things/:id',
      respond: (request) => ({
        json: { status: 'found', id: request.params.id, sawKey: request.headers['x-api-key'] ?? null },
      }),
    },
  ]);
  runner = createRunnerClient({ baseUrl: platform.runnerUrl, token: RUNNER_TOKEN });
  deps = attemptDepsOf(platform.config, platform.database, runner);
  admin = await platform.token({ tenant: 'recorder' });
  tenantId = await platform.tenantId('recorder');
  versionId = (await published(platform, admin, buildFixture('vendor-app'))).id;
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await vendor?.close();
  await platform?.close();
});

const call = (path: string, token = admin, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });

/** Installs the vendor app as `name` with both secrets stored, enabled unless told otherwise. */
async function install(
  name: string,
  options: { enabled?: boolean; baseUrl?: string; host?: string; version?: string } = {},
): Promise<string> {
  const config = { baseUrl: options.baseUrl ?? vendor.url };
  const version = options.version ?? versionId;
  const created = await ok<{ id: string }>(
    await call('/app-installs', admin, 'POST', {
      name,
      versionId: version,
      enabled: false,
      config,
      approveHosts: [options.host ?? vendor.host],
    }),
    201,
  );
  await ok(await call(`/app-installs/${name}/secrets/API_KEY`, admin, 'POST', { value: API_KEY }));
  await ok(
    await call(`/app-installs/${name}/secrets/WEBHOOK_SECRET`, admin, 'POST', { value: WEBHOOK_SECRET }),
  );
  if (options.enabled !== false) {
    await ok(
      await call(`/app-installs/${name}`, admin, 'PUT', { versionId: version, enabled: true, config }),
    );
  }
  return created.id;
}

const step = (over: Partial<InvocationContext> = {}): InvocationContext => ({
  workflowRunId: randomUUID(),
  stepId: 'screen',
  ruleSetKey: null,
  ruleKey: null,
  attempt: 1,
  fallbackOf: null,
  ...over,
});

const callAs = (
  install: string,
  action: string,
  input: unknown,
  record: InvocationContext = step(),
  extra: { idempotencyKey?: string | null; subjectId?: string | null } = {},
) =>
  callInstall(deps, {
    tenantId,
    install,
    action,
    input,
    idempotencyKey: extra.idempotencyKey ?? null,
    subjectId: extra.subjectId ?? null,
    deadline: Date.now() + 60_000,
    record,
  });

/** The ApiError a call is refused with. */
async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const listed = async (query: string, token = admin) =>
  ok<{ items: InvocationView[]; total: number; totalIsEstimate: boolean }>(
    await call(`/app-invocations${query ? `?${query}` : ''}`, token),
  );
const meteringOf = (installId: string) =>
  platform.database.db.select().from(appMetering).where(eq(appMetering.installId, installId));
const recordsOf = (installId: string) =>
  platform.database.db.select().from(appInvocations).where(eq(appInvocations.installId, installId));

describe('recording an attempt', () => {
  it('records a success with its context, input, redacted output and usage, metered in the same transaction', async () => {
    const installId = await install('lookup');
    const runId = randomUUID();
    const outcome = await callAs(
      'lookup',
      'lookup',
      { thingId: 't-1' },
      step({ workflowRunId: runId, stepId: 'screen', attempt: 2 }),
      { idempotencyKey: `${runId}:screen`, subjectId: 'subject-1' },
    );
    expect(outcome).toMatchObject({ status: 'success', ran: true, invocationId: expect.any(String) });

    const record = await ok<InvocationView>(await call(`/app-invocations/${outcome.invocationId}`));
    expect(record).toEqual({
      id: outcome.invocationId,
      installId,
      installName: 'lookup',
      calledAs: 'lookup',
      appName: 'vendor-app',
      versionId,
      version: '1.0.0',
      action: 'lookup',
      workflowRunId: runId,
      stepId: 'screen',
      ruleSetKey: null,
      ruleKey: null,
      subjectId: 'subject-1',
      idempotencyKey: `${runId}:screen`,
      attempt: 2,
      input: { thingId: 't-1' },
      output: { vendor: expect.objectContaining({ status: 200 }) },
      status: 'success',
      error: null,
      durationMs: outcome.durationMs,
      usage: { httpRequests: 1, reusedConnections: 0, documentReads: 0, logLines: 1 },
      fallbackOf: null,
      createdAt: expect.any(String),
    });
    // The vendor echoed the key it received: the record shows where, redacted, as the runner answered it.
    const body = (record.output as { vendor: { body: string } }).vendor.body;
    expect(JSON.parse(body)).toEqual({ status: 'found', id: 't-1', sawKey: '[secret:API_KEY]' });

    const [metered] = await meteringOf(installId);
    expect(metered).toMatchObject({ action: 'lookup', calls: 1, httpRequests: 1 });
    // One transaction wrote both rows: the same transaction id made them.
    const xmin = async (table: string, column: string, id: string) =>
      (await platform.database.pool.query(`select xmin::text as x from ${table} where ${column} = $1`, [id]))
        .rows[0]?.x;
    expect(await xmin('app_invocations', 'id', outcome.invocationId as string)).toBe(
      await xmin('app_metering', 'install_id', installId),
    );
  });

  it('writes a record once: a try again after a lost commit finds it and writes nothing', async () => {
    const installId = await install('twice');
    const outcome = await callAs('twice', 'lookup', { thingId: 't-2' });
    const [row] = await recordsOf(installId);
    if (!row) throw new Error('no record');
    const again = {
      id: row.id,
      install: { id: installId, tenantId, name: 'twice', appName: row.appName },
      calledAs: 'twice',
      version: { id: row.versionId, version: row.version },
      action: row.action,
      subjectId: null,
      idempotencyKey: null,
      input: { thingId: 'another' },
      context: step(),
      status: 'error' as const,
      error: null,
      durationMs: 1,
      usage: noUsage(),
    };
    expect(await recordInvocation(platform.database.db, again)).toBeNull();
    const records = await recordsOf(installId);
    expect(records.map((r) => [r.id, r.status, r.input])).toEqual([
      [outcome.invocationId, 'success', { thingId: 't-2' }],
    ]);
  });

  it('writes a record and its metering in one prepared statement: JSON of any shape kept, a null stays NULL', async () => {
    const installId = await install('shapes');
    const [version] = await platform.database.db
      .select({ id: appVersions.id, version: appVersions.version })
      .from(appVersions)
      .where(eq(appVersions.id, versionId));
    if (!version) throw new Error('no version');
    const metered = {
      tenantId,
      installId,
      installName: 'shapes',
      appName: 'vendor-app',
      action: 'lookup',
      httpRequests: 1,
      charged: true,
      price: { currency: null, priceMicros: 0 },
    };
    const write = (id: string, input: unknown, output: unknown) => ({
      id,
      install: { id: installId, tenantId, name: 'shapes', appName: 'vendor-app' },
      calledAs: 'shapes',
      version,
      action: 'lookup',
      subjectId: null,
      idempotencyKey: null,
      input,
      output,
      context: step(),
      status: 'success' as const,
      error: null,
      durationMs: 3,
      usage: noUsage(),
    });
    const [arrayId, textId] = [randomUUID(), randomUUID()];
    expect(await writeRecord(platform.database.db, write(arrayId, ['a', 1], 'plain text'), metered)).toBe(
      true,
    );
    expect(await writeRecord(platform.database.db, write(textId, 'just text', null), metered)).toBe(true);
    // A try after a lost commit: nothing written, nothing metered again.
    expect(await writeRecord(platform.database.db, write(textId, 'just text', null), metered)).toBe(false);

    const { rows } = await platform.database.pool.query(
      `select id, jsonb_typeof(input) as input_type, input, jsonb_typeof(output) as output_type, output,
         output is null as output_null, error is null as error_null
       from app_invocations where install_id = $1 order by created_at, id`,
      [installId],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(arrayId)).toMatchObject({
      input_type: 'array',
      input: ['a', 1],
      output_type: 'string',
      output: 'plain text',
      error_null: true,
    });
    expect(byId.get(textId)).toMatchObject({ input_type: 'string', input: 'just text', output_null: true });
    expect(await meteringOf(installId)).toEqual([
      expect.objectContaining({ action: 'lookup', calls: 2, httpRequests: 2 }),
    ]);
  });

  it('records a rule’s and a fallback’s attempt with their context', async () => {
    const installId = await install('fallback');
    const standIn = { installId: randomUUID(), name: 'primary' };
    const rule = await callAs(
      'fallback',
      'lookup',
      { thingId: 'r-1' },
      step({ workflowRunId: null, stepId: null, ruleSetKey: 'onboarding', ruleKey: 'sanctions' }),
    );
    const fallback = await callAs('fallback', 'lookup', { thingId: 'f-1' }, step({ fallbackOf: standIn }));
    const records = await recordsOf(installId);
    expect(records.find((r) => r.id === rule.invocationId)).toMatchObject({
      workflowRunId: null,
      stepId: null,
      ruleSetKey: 'onboarding',
      ruleKey: 'sanctions',
      fallbackOf: null,
    });
    expect(records.find((r) => r.id === fallback.invocationId)).toMatchObject({ fallbackOf: standIn });
  });

  it('records the module’s error answer, and a trap, as errors (metered: the module ran)', async () => {
    const closed = await freePort();
    const installId = await install('down', {
      baseUrl: `http://127.0.0.1:${closed}`,
      host: `127.0.0.1:${closed}`,
    });
    const failed = await callAs('down', 'lookup', { thingId: 'x' });
    expect(failed.status).toBe('error');
    const trapped = await callAs('down', 'crash', {});
    const records = await listed(`installId=${installId}`);
    expect(records.items.map((r) => [r.id, r.status, r.error, r.output])).toEqual([
      [
        trapped.invocationId,
        'error',
        expect.objectContaining({ code: 'app_call_failed', reason: 'trapped' }),
        null,
      ],
      [
        failed.invocationId,
        'error',
        { code: 'app_call_failed', reason: 'error', message: 'vendor unreachable', retryable: true },
        null,
      ],
    ]);
    const metered = await meteringOf(installId);
    expect(metered.map((m) => [m.action, m.calls]).sort()).toEqual([
      ['crash', 1],
      ['lookup', 1],
    ]);
  });

  it('records an admission refusal (disabled install, bad input) and throws it; nothing is metered', async () => {
    const installId = await install('switched-off', { enabled: false });
    const refused = await refusal(callAs('switched-off', 'lookup', { thingId: 'x' }));
    expect(refused).toMatchObject({ statusCode: 409, code: 'install_not_configured' });
    await ok(
      await call('/app-installs/switched-off', admin, 'PUT', {
        versionId,
        enabled: true,
        config: { baseUrl: vendor.url },
      }),
    );
    const invalid = await refusal(callAs('switched-off', 'lookup', { thingId: 42 }));
    expect(invalid).toMatchObject({ statusCode: 400, code: 'validation_error' });

    const records = await listed('install=switched-off');
    expect(records.items).toMatchObject([
      {
        status: 'error',
        input: { thingId: 42 },
        output: null,
        error: { code: 'validation_error', message: invalid.message },
        durationMs: 0,
        usage: { httpRequests: 0, reusedConnections: 0, documentReads: 0, logLines: 0 },
      },
      {
        status: 'error',
        error: { code: 'install_not_configured', message: 'install switched-off is disabled' },
        durationMs: 0,
      },
    ]);
    expect(records.items[1]?.error).not.toHaveProperty('reason');
    expect(await meteringOf(installId)).toEqual([]);
  });

  it('records each attempt on a blocked module as an error app_blocked', async () => {
    const other = await published(
      platform,
      admin,
      buildFixture('vendor-app', { '"version":"1.0.0"': '"version":"1.0.1"' }),
    );
    const installId = await install('blocked', { version: other.id });
    const versions = await ok<{ items: { id: string; sha256: string }[] }>(
      await call('/apps/vendor-app/versions'),
    );
    const sha256 = versions.items.find((v) => v.id === other.id)?.sha256 as string;
    await platform.database.db.insert(appBlocks).values({ sha256, reason: 'malware', createdBy: 'op' });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const refused = await refusal(callAs('blocked', 'lookup', { thingId: 'b' }, step({ attempt })));
      expect(refused).toMatchObject({ code: 'app_blocked', details: { sha256, reason: 'malware' } });
    }
    const records = await recordsOf(installId);
    expect(records.map((r) => [r.attempt, r.status, r.error?.code, r.versionId, r.version]).sort()).toEqual([
      [1, 'error', 'app_blocked', other.id, '1.0.1'],
      [2, 'error', 'app_blocked', other.id, '1.0.1'],
    ]);
    expect(await meteringOf(installId)).toEqual([]);
  });

  it('reads a block of every version of the app with the install, and a lifted block blocks nothing', async () => {
    const installId = await install('recalled');
    const [block] = await platform.database.db
      .insert(appBlocks)
      .values({
        appName: 'vendor-app',
        publisher: 'tenant',
        publisherTenantId: tenantId,
        reason: 'recalled',
        createdBy: 'op',
      })
      .returning({ id: appBlocks.id });
    try {
      const refused = await refusal(callAs('recalled', 'lookup', { thingId: 'r' }, step({ attempt: 1 })));
      expect(refused).toMatchObject({ code: 'app_blocked', details: { reason: 'recalled' } });
    } finally {
      await platform.database.db
        .update(appBlocks)
        .set({ liftedAt: new Date(), liftedBy: 'op' })
        .where(eq(appBlocks.id, block?.id as string));
    }
    expect((await callAs('recalled', 'lookup', { thingId: 'r' }, step({ attempt: 2 }))).status).toBe(
      'success',
    );
    expect(
      (await recordsOf(installId)).map((r) => [r.attempt, r.status, r.error?.code ?? null]).sort(),
    ).toEqual([
      [1, 'error', 'app_blocked'],
      [2, 'success', null],
    ]);
  });

  it('records nothing for a quota refusal', async () => {
    const installId = await install('budgeted');
    await ok(
      await call('/app-installs/budgeted/limits', admin, 'PUT', {
        currency: null,
        prices: {},
        budgets: [{ metric: 'calls', period: 'day', max: 1 }],
      }),
    );
    await callAs('budgeted', 'remember', { value: 'within' });
    const refused = await refusal(callAs('budgeted', 'remember', { value: 'over' }));
    expect(refused).toMatchObject({ statusCode: 429, code: 'app_quota_exceeded' });
    expect((await recordsOf(installId)).map((r) => r.input)).toEqual([{ value: 'within' }]);
  });

  it('resolves an alias, recording the install’s current name and the name the call used; an unknown name throws, recorded nowhere', async () => {
    const installId = await install('kyc-old');
    const before = await callAs('kyc-old', 'lookup', { thingId: 'a-0' });
    await ok(await call('/app-installs/kyc-old/rename', admin, 'POST', { name: 'kyc-new' }));
    const outcome = await callAs('kyc-old', 'lookup', { thingId: 'a-1' });
    expect(outcome.status).toBe('success');
    const renamed = await callAs('kyc-new', 'lookup', { thingId: 'a-2' });
    const record = (await recordsOf(installId)).find((r) => r.id === outcome.invocationId);
    expect(record).toMatchObject({ installName: 'kyc-new', calledAs: 'kyc-old' });

    // The name the call used finds it, and so does the install's name at the time.
    const names = (items: InvocationView[]) => items.map((r) => [r.id, r.installName, r.calledAs]);
    expect(names((await listed('install=kyc-old')).items)).toEqual([
      [outcome.invocationId, 'kyc-new', 'kyc-old'],
      [before.invocationId, 'kyc-old', 'kyc-old'],
    ]);
    expect(names((await listed('install=kyc-new')).items)).toEqual([
      [renamed.invocationId, 'kyc-new', 'kyc-new'],
      [outcome.invocationId, 'kyc-new', 'kyc-old'],
    ]);
    expect((await listed(`install=kyc-old&installId=${randomUUID()}`)).total).toBe(0);
    const other = await platform.token({ tenant: 'recorder-other' });
    expect((await listed('install=kyc-old', other)).total).toBe(0);
    const one = await ok<InvocationView>(await call(`/app-invocations/${outcome.invocationId}`));
    expect(one).toMatchObject({ installName: 'kyc-new', calledAs: 'kyc-old' });

    const all = await listed('');
    const unknown = await refusal(callAs('nobody', 'lookup', { thingId: 'a-1' }));
    expect(unknown).toMatchObject({ statusCode: 404, code: 'unknown_install' });
    expect((await listed('')).total).toBe(all.total);
  });

  it.each([
    ['nul', 'a NUL character', 'a\u0000b'],
    ['surrogate', 'a lone surrogate', 'a\ud800b'],
  ])('stores %s input with %s (which jsonb cannot hold) as U+FFFD, and the attempt still ends', async (name, _what, value) => {
    const installId = await install(name);
    const outcome = await callAs(name, 'remember', { value, [`k${value}`]: 1 });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe('success');
    const [record] = await recordsOf(installId);
    expect(record?.input).toEqual({ value: 'a\uFFFDb', 'ka\uFFFDb': 1 });
    expect(await meteringOf(installId)).toHaveLength(1);
  });

  it('never records a test call', async () => {
    const installId = await install('tested');
    await ok(
      await call('/app-installs/tested/test', admin, 'POST', { action: 'lookup', input: { thingId: 't' } }),
    );
    expect(await recordsOf(installId)).toEqual([]);
    expect(await meteringOf(installId)).toHaveLength(1);
  });
});

describe('GET /app-invocations', () => {
  it('keeps records past their install, by its old name, across two installs of one name', async () => {
    const first = await install('reused');
    const a = await callAs('reused', 'lookup', { thingId: '1' });
    await ok(await call('/app-installs/reused', admin, 'DELETE'), 204);
    const afterRemoval = await listed('install=reused');
    expect(afterRemoval.items.map((r) => [r.id, r.installId, r.installName])).toEqual([
      [a.invocationId, first, 'reused'],
    ]);
    const second = await install('reused');
    const b = await callAs('reused', 'lookup', { thingId: '2' });
    const both = await listed('install=reused');
    expect(both).toMatchObject({ total: 2, totalIsEstimate: false });
    // Newest first.
    expect(both.items.map((r) => [r.id, r.installId])).toEqual([
      [b.invocationId, second],
      [a.invocationId, first],
    ]);
    expect((await listed(`installId=${first}`)).items.map((r) => r.id)).toEqual([a.invocationId]);
    expect((await listed(`install=reused&installId=${second}`)).items.map((r) => r.id)).toEqual([
      b.invocationId,
    ]);

    // Paging.
    const page = await listed('install=reused&limit=1&offset=1');
    expect(page).toMatchObject({ total: 2, totalIsEstimate: false });
    expect(page.items.map((r) => r.id)).toEqual([a.invocationId]);

    // from is inclusive, to exclusive.
    const [newer, older] = both.items as [InvocationView, InvocationView];
    const since = encodeURIComponent(newer.createdAt);
    expect((await listed(`install=reused&from=${since}`)).items.map((r) => r.id)).toEqual([newer.id]);
    expect((await listed(`install=reused&to=${since}`)).items.map((r) => r.id)).toEqual([older.id]);
    expect(
      (await listed(`install=reused&from=${encodeURIComponent(older.createdAt)}&to=${since}`)).items,
    ).toHaveLength(1);
  });

  it('filters by run and by status, repeated', async () => {
    const closed = await freePort();
    await install('mixed', { baseUrl: `http://127.0.0.1:${closed}`, host: `127.0.0.1:${closed}` });
    const runId = randomUUID();
    const ok1 = await callAs('mixed', 'remember', { value: 'v' }, step({ workflowRunId: runId }));
    const failed = await callAs('mixed', 'lookup', { thingId: 'x' }, step({ workflowRunId: runId }));
    const other = await callAs('mixed', 'remember', { value: 'w' });
    await refusal(callAs('mixed', 'nope', {}, step({ workflowRunId: runId })));

    const ofRun = await listed(`workflowRunId=${runId}`);
    expect(ofRun.total).toBe(3);
    expect(ofRun.items.slice(1).map((r) => r.id)).toEqual([failed.invocationId, ok1.invocationId]);
    expect(ofRun.items[0]).toMatchObject({ action: 'nope', error: { code: 'validation_error' } });
    const successes = await listed('install=mixed&status=success');
    expect(successes.items.map((r) => r.id)).toEqual([other.invocationId, ok1.invocationId]);
    const failures = await listed('install=mixed&status=error&status=timeout');
    expect(failures.items.map((r) => r.status)).toEqual(['error', 'error']);
    expect((await listed('install=mixed&status=pending')).items).toEqual([]);
    expect((await listed('install=mixed&status=success&status=error')).total).toBe(4);
  });

  it('reads input, output and error text as [redacted] without runs:context; code and reason stay', async () => {
    const closed = await freePort();
    await install('hushed', { baseUrl: `http://127.0.0.1:${closed}`, host: `127.0.0.1:${closed}` });
    const done = await callAs('hushed', 'remember', { value: 'applicant data' });
    const failed = await callAs('hushed', 'lookup', { thingId: 'applicant-9' });

    const analyst = await platform.token({ tenant: 'recorder', roles: ['analyst'] });
    const seen = await listed('install=hushed', analyst);
    expect(seen.items).toMatchObject([
      {
        id: failed.invocationId,
        input: '[redacted]',
        output: null,
        error: { code: 'app_call_failed', reason: 'error', message: '[redacted]', retryable: true },
      },
      { id: done.invocationId, input: '[redacted]', output: '[redacted]', error: null },
    ]);
    const one = await ok<InvocationView>(await call(`/app-invocations/${done.invocationId}`, analyst));
    expect(one).toMatchObject({ input: '[redacted]', output: '[redacted]', action: 'remember' });

    const reader = await platform.token({
      tenant: 'recorder',
      roles: [],
      permissions: ['apps:read', 'runs:context'],
    });
    const full = await ok<InvocationView>(await call(`/app-invocations/${failed.invocationId}`, reader));
    expect(full).toMatchObject({
      input: { thingId: 'applicant-9' },
      error: { message: 'vendor unreachable' },
    });
    const none = await platform.token({ tenant: 'recorder', roles: [], permissions: ['runs:context'] });
    expect((await errorOf(await call('/app-invocations', none), 403)).code).toBe('forbidden');
  });

  it('answers 404 for another tenant’s record and lists none of them', async () => {
    await install('private');
    const mine = await callAs('private', 'remember', { value: 'mine' });
    const stranger = await platform.token({ tenant: 'stranger' });
    const error = await errorOf(await call(`/app-invocations/${mine.invocationId}`, stranger), 404);
    expect(error.code).toBe('not_found');
    expect(await errorOf(await call(`/app-invocations/${randomUUID()}`), 404)).toMatchObject({
      code: 'not_found',
    });
    expect(await listed('', stranger)).toEqual({ items: [], total: 0, totalIsEstimate: false });
  });

  it('refuses a bad query at its parameter', async () => {
    for (const [query, path] of [
      ['colour=red', 'query.colour'],
      ['status=done', 'query.status.0'],
      ['status=success&status=finished', 'query.status.1'],
      ['from=yesterday', 'query.from'],
      ['to=2026-13-01T00:00:00Z', 'query.to'],
      ['from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'query.to'],
      ['installId=nope', 'query.installId'],
      ['workflowRunId=12', 'query.workflowRunId'],
      ['install=Not_A_Name', 'query.install'],
      ['limit=0', 'query.limit'],
      ['offset=100001', 'query.offset'],
    ]) {
      const error = await errorOf(await call(`/app-invocations?${query}`), 400);
      expect(error, query).toMatchObject({
        code: 'validation_error',
        details: { issues: expect.arrayContaining([expect.objectContaining({ path })]) },
      });
    }
    const bad = await errorOf(await call('/app-invocations/not-a-uuid'), 400);
    expect(bad.details).toMatchObject({ issues: [{ path: 'params.id' }] });
  });

  it('never holds a secret value', async () => {
    const rows = await platform.database.db.select().from(appInvocations);
    expect(rows.length).toBeGreaterThan(10);
    const text = JSON.stringify(rows);
    for (const value of [API_KEY, WEBHOOK_SECRET]) expect(text).not.toContain(value);
  });
});
