import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import { MAX_TABLE_ENTRIES } from '../../src/module/instance-size.ts';
import { capMemory } from '../../src/module/wasm.ts';
import { threadsAtStart } from '../../src/runner/threads/sandbox-pool.ts';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import { withTableLimits } from '../module/wat.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  insertVersionRow,
  RUNNER_TOKEN,
  startTestRunner,
  type TestRunner,
  waitForRunner,
} from '../support/runner.ts';
import { sleeper } from './hostile-modules.ts';
import { envelopeEcho } from './isolation-modules.ts';

let platform: TestPlatform;
let runner: TestRunner;
let echo: string;
let hostile: string;
/** A module the operator blocked (set by its test). */
let blocked: string;
const tenantId = randomUUID();

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startTestRunner(platform, {
    APP_RUNNER_WARM_PLUGINS: '4',
    APP_RUNNER_CONCURRENCY: '3',
    APP_RUNNER_TENANT_CONCURRENCY: '2',
  });
  echo = await runner.store(await buildFixture('echo'));
  hostile = await runner.store(await buildFixture('hostile'), 16);
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

const invoke = (sha256: string, overrides: Record<string, unknown> = {}) =>
  runner.post('/v1/invoke', {
    module: { sha256 },
    call: { id: randomUUID(), tenantId },
    action: 'echo',
    idempotencyKey: 'key-1',
    config: { greeting: 'hello {{secret:API_KEY}}' },
    secrets: { API_KEY: 'sk-live-123456' },
    hosts: ['api.vendor.test'],
    input: { n: 1 },
    timeoutMs: 5000,
    ...overrides,
  });

describe('POST /v1/invoke', () => {
  it('hands the module the envelope of the contract: call with a fresh tag, action, key, tagged config, input', async () => {
    const first = await invoke(echo);
    expect(first.status).toBe(200);
    const body = await first.json();
    const envelope = body.answer.output.envelope;
    expect(Object.keys(envelope)).toEqual(['call', 'action', 'idempotencyKey', 'config', 'input']);
    expect(envelope.call).toEqual({ id: expect.any(String), tenantId, secretTag: '[tag]' });
    expect(envelope.action).toBe('echo');
    expect(envelope.idempotencyKey).toBe('key-1');
    // The tag reached the module inside the placeholder and came back redacted.
    expect(envelope.config).toEqual({ greeting: 'hello {{secret:API_KEY:[tag]}}' });
    expect(envelope.input).toEqual({ n: 1 });
    expect(body.usage).toEqual({ httpRequests: 0, reusedConnections: 0, documentReads: 0, logLines: 0 });
    expect(body.logs).toEqual([]);
    expect(body.cacheChanges).toEqual([]);
  });

  it('hands the module its input byte for byte, short or past 100 KiB, letters of every width included', async () => {
    const byteEcho = await runner.store(envelopeEcho());
    for (const repeat of [10, 8_000]) {
      const input = { text: 'Zoë € 𝄞 漢'.repeat(repeat) };
      const body = await (await invoke(byteEcho, { input })).json();
      expect(body.answer.output.input).toEqual(input);
    }
  });

  it('draws a new 22-character base64url tag for every call', async () => {
    const tags = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const body = await (await invoke(hostile, { action: 'tag' })).json();
      const tag = [...body.answer.output.reversedTag].reverse().join('');
      expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
      tags.add(tag);
    }
    expect(tags.size).toBe(3);
  });

  it('redacts secret values the module echoes back, before the answer is parsed', async () => {
    const response = await invoke(hostile, {
      action: 'leak',
      input: { stolen: 'sk-live-123456', again: 'xsk-live-123456x' },
    });
    const body = await response.json();
    expect(body.answer.output.input).toEqual({ stolen: '[secret:API_KEY]', again: 'x[secret:API_KEY]x' });
    expect(JSON.stringify(body)).not.toContain('sk-live-123456');
  });

  it('runs the log, cache and hmac host functions and reports what the call used', async () => {
    const call = (fn: string, request: unknown, cache: unknown[] = []) =>
      invoke(echo, { input: { hostCall: { fn, request } }, cache }).then((r) => r.json());
    const logged = await call('log', { level: 'warn', message: 'key is sk-live-123456' });
    expect(logged.answer.output.answer).toEqual({ ok: true });
    expect(logged.logs).toEqual([{ level: 'warn', message: 'key is [secret:API_KEY]' }]);
    expect(logged.usage.logLines).toBe(1);

    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const read = await call('cache', { op: 'get', name: 'token' }, [
      { name: 'token', value: 'cached-value-1', expiresAt },
    ]);
    expect(read.answer.output.answer).toEqual({ value: '[cache:token]' });
    const set = await call('cache', {
      op: 'set',
      name: 'token',
      value: 'new-cached-value',
      ttlSeconds: 999_999,
    });
    expect(set.cacheChanges).toEqual([
      { op: 'set', name: 'token', value: 'new-cached-value', ttlSeconds: 86_400 },
    ]);

    // cache null: the deployment keeps no cached values (no SECRET_STORE_KEY); every operation is refused.
    for (const request of [
      { op: 'get', name: 'token' },
      { op: 'set', name: 'token', value: 'would-be-cached' },
    ]) {
      const refused = await invoke(echo, { input: { hostCall: { fn: 'cache', request } }, cache: null }).then(
        (r) => r.json(),
      );
      expect(refused.answer.output.answer).toEqual({
        error: 'cache: this deployment keeps no cached values (no secret store key)',
        refused: true,
      });
      expect(refused.cacheChanges).toEqual([]);
    }

    const signed = await call('hmac', { key: 'plain-key', message: 'body' });
    expect(signed.answer.output.answer.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a caller without the runner bearer', async () => {
    for (const token of [null, 'wrong']) {
      const response = await invoke(echo).then(() => runner.post('/v1/invoke', {}, token));
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('unauthorized');
    }
  });

  it('answers bad_request for a body outside the contract', async () => {
    const response = await invoke(echo, { timeoutMs: 50, colour: 'red' });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('bad_request');
    expect(body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['/timeoutMs', '/colour']),
    );
  });

  it('answers module_not_found for a hash the api does not serve', async () => {
    const response = await invoke('0'.repeat(64));
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('module_not_found');
  });

  it('cannot fetch a blocked module: module_not_found', async () => {
    blocked = await runner.store(await buildFixture('echo', { '"version":"1.0.0"': '"version":"9.9.9"' }));
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: blocked, reason: 'malware', createdBy: 'op' });
    const response = await invoke(blocked);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('module_not_found');
  });

  it('terminates a call past its deadline and keeps serving', async () => {
    const response = await invoke(hostile, { action: 'spin', timeoutMs: 300 });
    expect(response.status).toBe(504);
    expect((await response.json()).error).toMatchObject({
      code: 'timeout',
      details: { usage: { httpRequests: 0 } },
    });
    const next = await invoke(echo);
    expect(next.status).toBe(200);
  });

  it('runs a module whose tables are at the bound', async () => {
    const limits = `${MAX_TABLE_ENTRIES} ${MAX_TABLE_ENTRIES}`;
    const atBound = await runner.store(withTableLimits(await buildFixture('echo'), limits), 16);
    const response = await invoke(atBound, { input: { n: 2 } });
    expect(response.status).toBe(200);
    expect((await response.json()).answer.output.envelope.input).toEqual({ n: 2 });
  });

  it('does not run a stored module whose tables pass the bound (one stored before the bound existed)', async () => {
    const capped = capMemory(await buildFixture('echo', { '"version":"1.0.0"': '"version":"5.0.0"' }), 16);
    if (!capped.ok) throw new Error(capped.message);
    const unbounded = await moduleStorageOf(platform).put(withTableLimits(capped.bytes, '10000000'));
    await insertVersionRow(platform.database, unbounded);
    const response = await invoke(unbounded);
    expect(response.status).toBe(422);
    expect((await response.json()).error).toMatchObject({
      code: 'invalid_module',
      message: expect.stringMatching(/table without a maximum/),
    });
  });

  it('stops unbounded memory growth at the module cap', async () => {
    const response = await invoke(hostile, { action: 'grow', timeoutMs: 20_000 });
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('trapped');
  });

  it('carries the trap text into trapped, redacted', async () => {
    const trapped = await invoke(hostile, { action: 'trap' });
    expect(trapped.status).toBe(502);
    expect((await trapped.json()).error).toMatchObject({
      code: 'trapped',
      message: 'the module trapped: unreachable',
    });
    const failed = await invoke(hostile, { action: 'fail', input: { key: 'sk-live-123456' } });
    expect(failed.status).toBe(502);
    const error = (await failed.json()).error;
    expect(error).toMatchObject({
      code: 'trapped',
      message: 'the module trapped: Plugin-originated error: failed on "input":{"key":"[secret:API_KEY]"}}',
    });
  });

  it('hands the module a null idempotencyKey when there is none, and an empty one as it is', async () => {
    const keyOf = async (overrides: Record<string, unknown>) =>
      (await (await invoke(echo, overrides)).json()).answer.output.envelope.idempotencyKey;
    expect(await keyOf({ idempotencyKey: null })).toBeNull();
    expect(await keyOf({ idempotencyKey: undefined })).toBeNull();
    expect(await keyOf({ idempotencyKey: '' })).toBe('');
  });

  it.each([
    ['big', 'bad_output'],
    ['garbage', 'bad_output'],
    ['wrong_shape', 'bad_output'],
    ['trap', 'trapped'],
  ])('answers %s with %s', async (action, code) => {
    const response = await invoke(hostile, { action });
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe(code);
  });

  it('refuses a module whose fetched bytes do not match their hash (module_unavailable), keeping nothing', async () => {
    const sha256 = await runner.store(
      await buildFixture('echo', { '"version":"1.0.0"': '"version":"4.0.0"' }),
    );
    const stored = path.join(platform.config.dataDir, 'modules', `${sha256}.wasm`);
    const bytes = await fs.readFile(stored);
    await fs.appendFile(stored, Buffer.from([0]));
    const refused = await invoke(sha256);
    expect(refused.status).toBe(503);
    expect((await refused.json()).error).toMatchObject({
      code: 'module_unavailable',
      message: 'the fetched module does not match its hash',
    });
    // Nothing was kept: once the api holds the right bytes the call runs.
    expect(await fs.readdir(runner.cacheDir)).not.toContain(`${sha256}.wasm`);
    await fs.writeFile(stored, bytes);
    expect((await invoke(sha256)).status).toBe(200);
  });

  it('answers missing_export when the module lacks the export', async () => {
    const response = await runner.post('/v1/handoff', {
      module: { sha256: hostile },
      call: { id: randomUUID(), tenantId },
      config: {},
      externalId: 'x-1',
      returnUrl: 'https://flow.example.com/flow/1',
    });
    expect(response.status).toBe(422);
    expect((await response.json()).error.code).toBe('missing_export');
  });

  it('answers busy beyond the tenant concurrency, and serves another tenant meanwhile', async () => {
    // A tenant of its own: the two threads its calls end spend its allowance of ended threads.
    const call = () => ({ call: { id: randomUUID(), tenantId: busyTenant } });
    const busyTenant = randomUUID();
    const slow = [
      invoke(hostile, { action: 'spin', timeoutMs: 1500, ...call() }),
      invoke(hostile, { action: 'spin', timeoutMs: 1500, ...call() }),
    ];
    await waitForRunner(runner.url, (health) => health.inFlight === 2);
    const third = await invoke(echo, call());
    expect(third.status).toBe(429);
    expect((await third.json()).error.code).toBe('busy');
    const other = await invoke(echo, { call: { id: randomUUID(), tenantId: randomUUID() } });
    expect(other.status).toBe(200);
    await Promise.all(slow.map(async (p) => (await p).text()));
  });
});

describe('webhooks and hand-off', () => {
  it('runs handle_webhook and handoff with their envelopes and checks their answers', async () => {
    const webhook = await runner.post('/v1/webhooks/handle', {
      module: { sha256: echo },
      call: { id: randomUUID(), tenantId },
      config: {},
      request: {
        method: 'POST',
        headers: { 'x-signature': 'abc' },
        query: {},
        bodyBase64: Buffer.from('{}').toString('base64'),
      },
    });
    expect(webhook.status).toBe(200);
    expect((await webhook.json()).answer).toEqual({ status: 'ignored' });
    const handoff = await runner.post('/v1/handoff', {
      module: { sha256: echo },
      call: { id: randomUUID(), tenantId },
      config: {},
      externalId: 'session-1',
      returnUrl: 'https://flow.example.com/flow/1',
    });
    expect(handoff.status).toBe(200);
    expect((await handoff.json()).answer).toEqual({ status: 'ok', handoff: null });
  });
});

describe('health', () => {
  it('reports in-flight calls, capacity, cached modules and warm instances', async () => {
    // The pool tops itself up after each call, in the background: wait (boundedly) until it has.
    const body = await waitForRunner(runner.url, (health) => health.warmPlugins > 0);
    expect(body).toMatchObject({ status: 'ok', inFlight: 0, concurrency: 3 });
    const cached = (await fs.readdir(runner.cacheDir)).filter((f) => f.endsWith('.wasm'));
    expect(body.cachedModules).toBe(cached.length);
    expect(cached).toEqual(expect.arrayContaining([`${echo}.wasm`, `${hostile}.wasm`]));
    expect(cached).not.toContain(`${blocked}.wasm`); // never fetched
    expect(body.warmPlugins).toBeGreaterThan(0);
    expect((await fetch(`${runner.url}/health/ready`)).status).toBe(200);
  });
});

describe('sandbox threads', () => {
  it('starts one per core (APP_RUNNER_CONCURRENCY at most), another when a call finds none idle, never more', async () => {
    const own = await startTestRunner(platform, {
      APP_RUNNER_CONCURRENCY: '3',
      APP_RUNNER_TENANT_CONCURRENCY: '3',
      APP_RUNNER_WARM_PLUGINS: '0',
    });
    try {
      expect(await waitForRunner(own.url, (health) => health.inFlight === 0)).toMatchObject({
        threads: threadsAtStart(3),
      });
      // Calls that hold their thread (a sleep far past their deadline), each of another tenant.
      const sleeping = await own.store(sleeper(20), 16);
      const sleep = () =>
        own.post('/v1/invoke', {
          module: { sha256: sleeping },
          call: { id: randomUUID(), tenantId: randomUUID() },
          action: 'attack',
          config: {},
          secrets: {},
          hosts: [],
          input: {},
          timeoutMs: 3_000,
        });
      const held = [sleep(), sleep(), sleep()];
      // Each on a thread of its own: the pool grew to three.
      await waitForRunner(own.url, (health) => health.inFlight === 3 && health.threads === 3);
      const fourth = await sleep();
      expect(fourth.status).toBe(429);
      expect((await fourth.json()).error.code).toBe('busy');
      for (const answered of await Promise.all(held)) expect(answered.status).toBe(504);
      // The three ended at their deadline and were replaced: the pool keeps what it grew to.
      expect(await waitForRunner(own.url, (health) => health.inFlight === 0)).toMatchObject({
        threads: 3,
        threadsReplaced: 3,
      });
    } finally {
      await own.close();
    }
  });
});

// After the health check, which counts the modules fetched so far.
describe('which modules the runner may fetch', () => {
  const variant = (version: string) =>
    buildFixture('echo', { '"version":"1.0.0"': `"version":"${version}"` });
  const versionIdOf = async (sha256: string) => {
    const [row] = await platform.database.db
      .select({ id: appVersions.id })
      .from(appVersions)
      .where(eq(appVersions.sha256, sha256));
    if (!row) throw new Error('no version row');
    return row.id;
  };
  const expectNotFound = async (sha256: string) => {
    const response = await invoke(sha256);
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatchObject({
      code: 'module_not_found',
      message: 'no published module of that hash, or blocked',
    });
  };

  it('refuses stored bytes that no published version uses: an upload, a withdrawn version, bytes alone', async () => {
    await expectNotFound(await runner.store(await variant('2.0.0'), 16, null));
    await expectNotFound(await runner.store(await variant('2.0.1'), 16, 'uploaded'));
    await expectNotFound(await runner.store(await variant('2.0.2'), 16, 'withdrawn'));
  });

  it('serves a withdrawn version while an install runs it or a pending vendor session waits on it', async () => {
    const installed = await runner.store(await variant('3.0.0'), 16, 'withdrawn');
    const [install] = await platform.database.db
      .insert(appInstalls)
      .values({
        tenantId,
        name: 'still-running',
        appName: 'echo',
        versionId: await versionIdOf(installed),
        enabled: true,
        config: {},
        hosts: [],
      })
      .returning();
    expect((await invoke(installed)).status).toBe(200);

    const waited = await runner.store(await variant('3.0.1'), 16, 'withdrawn');
    const session = {
      tenantId,
      installId: install?.id as string,
      installName: 'still-running',
      versionId: await versionIdOf(waited),
      action: 'echo',
    };
    await platform.database.db
      .insert(appCallbacks)
      .values({ ...session, externalId: 'done-1', status: 'completed' });
    await expectNotFound(waited);
    await platform.database.db.insert(appCallbacks).values({ ...session, externalId: 'open-1' });
    expect((await invoke(waited)).status).toBe(200);
  });
});
