// How tenants share one runner, through the real runner service: an upload's inspection counts against
// the uploading tenant (so one tenant's stuck manifests leave others' uploads alone), warm-ups count
// against the tenant whose calls asked for them, a module whose start code ran past its limit is not
// warmed again, and a tenant whose calls keep ending threads is made busy while others are served.
// Every wait is on the runner's health or on the vendor double's state, never on a clock (save one: a
// module here reads the clock itself, and the test waits for the time it was built to change at).
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunnerClient } from '../../src/runner/client.ts';
import { appModule } from '../module/wat.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  RUNNER_TOKEN,
  type RunnerHealth,
  startTestRunner,
  type TestRunner,
  waitForRunner,
} from '../support/runner.ts';
import { startVendor, type Vendor } from './egress/vendor.ts';
import { loopingStartModule, probeModule } from './isolation-modules.ts';

let platform: TestPlatform;
let vendor: Vendor;
/** Four threads, two calls a tenant, no warm instances, a 1 s start limit: inspections and ended threads. */
let limits: TestRunner;
/** Three threads, two calls a tenant, warm instances: warm-ups against a tenant's concurrency. */
let warming: TestRunner;
/** Two threads, one warm instance: start code past its limit. */
let starting: TestRunner;

beforeAll(async () => {
  vendor = await startVendor();
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  const tenantsOfTwo = { APP_RUNNER_TENANT_CONCURRENCY: '2' };
  [limits, warming, starting] = await Promise.all([
    // Start code and manifest exports limited to 1 s, not 5 (APP_RUNNER_START_LIMIT_MS): the stuck
    // inspections below end sooner.
    startTestRunner(platform, {
      ...tenantsOfTwo,
      APP_RUNNER_CONCURRENCY: '4',
      APP_RUNNER_WARM_PLUGINS: '0',
      APP_RUNNER_START_LIMIT_MS: '1000',
    }),
    startTestRunner(
      platform,
      { ...tenantsOfTwo, APP_RUNNER_CONCURRENCY: '3', APP_RUNNER_WARM_PLUGINS: '8' },
      { allowPrivateNetworks: true },
    ),
    // Start code limited to 1 s, not 5 (APP_RUNNER_START_LIMIT_MS): the tests that reach it wait less.
    startTestRunner(platform, {
      APP_RUNNER_CONCURRENCY: '2',
      APP_RUNNER_WARM_PLUGINS: '1',
      APP_RUNNER_START_LIMIT_MS: '1000',
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([limits, warming, starting].map((runner) => runner?.close()));
  await platform?.close();
  await vendor?.close();
});

type Health = RunnerHealth & { warmPreparing: number; warmBarred: number };
const health = async (runner: TestRunner) => (await (await fetch(`${runner.url}/health`)).json()) as Health;
const until = (runner: TestRunner, condition: (h: Health) => boolean) =>
  waitForRunner(runner.url, (h) => condition(h as Health));

const inspect = (runner: TestRunner, bytes: Uint8Array, tenantId?: string) =>
  fetch(`${runner.url}/v1/inspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/wasm',
      authorization: `Bearer ${RUNNER_TOKEN}`,
      ...(tenantId ? { 'x-tenant-id': tenantId } : {}),
    },
    body: bytes,
  });

async function invoke(
  runner: TestRunner,
  sha256: string,
  tenantId: string,
  options: { action?: string; input?: unknown; hosts?: string[]; timeoutMs?: number } = {},
) {
  const response = await runner.post('/v1/invoke', {
    module: { sha256 },
    call: { id: randomUUID(), tenantId },
    action: options.action ?? 'state',
    config: {},
    hosts: options.hosts ?? [],
    input: options.input ?? {},
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  // biome-ignore lint/suspicious/noExplicitAny: a runner answer, read field by field in the assertions
  return { status: response.status, body: (await response.json()) as any };
}

describe('upload inspections', () => {
  it("count against the uploading tenant: one tenant's stuck manifests make only that tenant busy", async () => {
    const [stuck, echo] = await Promise.all([buildFixture('stuck'), buildFixture('echo')]);
    const [uploader, other] = [randomUUID(), randomUUID()];
    // The api's client names the tenant; its manifest export loops until the start limit (1 s here).
    const client = createRunnerClient({ baseUrl: limits.url, token: RUNNER_TOKEN });
    try {
      const stuckOnes = [client.inspect(stuck, uploader), client.inspect(stuck, uploader)];
      await until(limits, (h) => h.inFlight === 2);

      const otherTenant = await inspect(limits, echo, other);
      expect(otherTenant.status).toBe(200);
      expect(await otherTenant.json()).toMatchObject({ accepted: true });
      // An inspection naming no tenant (an older api) counts in a bucket of its own, not the uploader's.
      expect(await (await inspect(limits, echo)).json()).toMatchObject({ accepted: true });
      expect(await client.inspect(echo, uploader)).toMatchObject({ ok: false, code: 'busy', status: 429 });

      for (const verdict of await Promise.all(stuckOnes))
        expect(verdict).toMatchObject({ ok: true, value: { accepted: false, code: 'invalid_module' } });
    } finally {
      await client.close();
    }
  });

  it('refuses a tenant header that is not a tenant id', async () => {
    const response = await inspect(limits, await buildFixture('echo'), 'not-a-tenant');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'bad_request' } });
  });
});

describe('a tenant whose calls keep ending threads', () => {
  it('is busy once its allowance (twice its concurrency) is spent, while another tenant is served', async () => {
    const [hostile, echo] = await Promise.all([
      limits.store(await buildFixture('hostile')),
      limits.store(await buildFixture('echo')),
    ]);
    const [looping, other] = [randomUUID(), randomUUID()];
    for (let i = 0; i < 4; i++)
      expect((await invoke(limits, hostile, looping, { action: 'spin', timeoutMs: 100 })).status).toBe(504);

    const refused = await invoke(limits, hostile, looping, { action: 'spin', timeoutMs: 100 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'busy',
      message: expect.stringContaining('ended too many'),
    });
    expect((await invoke(limits, echo, other, { action: 'echo' })).status).toBe(200);
  });
});

describe('warm-ups', () => {
  it('are not made for a tenant at its concurrency; they are once it is below again', async () => {
    const held: http.ServerResponse[] = [];
    let arrived = () => {};
    vendor.route('/hold', (_request, response) => {
      held.push(response);
      if (held.length === 2) arrived();
    });
    const [probe, echo] = await Promise.all([
      warming.store(probeModule()),
      warming.store(await buildFixture('echo')),
    ]);
    const [busy, other] = [randomUUID(), randomUUID()];

    // A first call shows the probe starts; two warm instances of it follow.
    expect((await invoke(warming, probe, busy)).status).toBe(200);
    await until(warming, (h) => h.warmPlugins === 2 && h.warmPreparing === 0);

    // Two calls take them and wait on the vendor: the tenant is at its concurrency (2).
    const allArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const fetchInput = { method: 'GET', url: `http://127.0.0.1:${vendor.port}/hold` };
    const hosts = [`127.0.0.1:${vendor.port}`];
    const waiting = [0, 1].map(() =>
      invoke(warming, probe, busy, { action: 'fetch', input: fetchInput, hosts }),
    );
    await allArrived;

    // Another tenant's call ends on the third thread: its module is warmed, the busy tenant's is not.
    expect((await invoke(warming, echo, other, { action: 'echo' })).status).toBe(200);
    const settled = await until(warming, (h) => h.warmPreparing === 0 && h.warmPlugins >= 2);
    expect(settled.warmPlugins).toBe(2);

    for (const response of held) response.writeHead(200, { 'content-type': 'text/plain' }).end('done');
    for (const answered of await Promise.all(waiting)) {
      expect(answered.status).toBe(200);
      expect(answered.body.warm).toBe(true);
    }
    await until(warming, (h) => h.warmPlugins === 4 && h.warmPreparing === 0);
  });
});

/**
 * A module whose start code reads the real-time clock (WASI) and, from `loopsFrom` (epoch ms) on, never
 * ends; before, it starts at once and invoke answers {"status":"ok","output":null}.
 */
function startsUntil(loopsFrom: number): Uint8Array {
  const answer = '{"status":"ok","output":null}';
  return appModule({
    imports: [
      '(import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))',
      '(import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))',
      '(import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))',
      '(import "extism:host/env" "output_set" (func $output_set (param i64 i64)))',
    ],
    exports: ['manifest'],
    extra: `
      (data (i32.const 0) ${JSON.stringify(answer)})
      (func (export "_initialize")
        (drop (call $clock (i32.const 0) (i64.const 1) (i32.const 64)))
        (if (i64.ge_u (i64.load (i32.const 64)) (i64.const ${BigInt(loopsFrom) * 1_000_000n}))
          (then (loop $forever (br $forever)))))
      (func (export "invoke") (result i32) (local $block i64) (local $i i32)
        (local.set $block (call $alloc (i64.const ${answer.length})))
        (block $done
          (loop $copy
            (br_if $done (i32.ge_u (local.get $i) (i32.const ${answer.length})))
            (call $store_u8 (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
              (i32.load8_u (local.get $i)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $copy)))
        (call $output_set (local.get $block) (i64.const ${answer.length}))
        (i32.const 0))`,
  });
}

describe('start code past its limit', () => {
  it('in a call: the module is never warmed, and only the call replaced its thread', async () => {
    const endless = await starting.store(loopingStartModule('_initialize'));
    const before = await health(starting);
    const failed = await invoke(starting, endless, randomUUID());
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toContain('did not start');
    expect(await health(starting)).toMatchObject({
      threadsReplaced: before.threadsReplaced + 1,
      warmBarred: before.warmBarred + 1,
      warmPreparing: 0,
      warmPlugins: before.warmPlugins,
    });
  }, 20_000);

  it('while warming: the module is not warmed again, not even after its next call', async () => {
    const loopsFrom = Date.now() + 3_000;
    const module = await starting.store(startsUntil(loopsFrom));
    const tenantId = randomUUID();
    expect((await invoke(starting, module, tenantId)).status).toBe(200);
    await until(starting, (h) => h.warmPlugins === 1 && h.warmPreparing === 0);
    const before = await health(starting);

    // From then on its start code never ends. The next call takes the warm instance made before.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, loopsFrom - Date.now() + 50)));
    const warm = await invoke(starting, module, tenantId);
    expect(warm).toMatchObject({ status: 200, body: { warm: true } });
    // The warm-up it asked for runs past 1 s: its thread is replaced and the module barred.
    await until(
      starting,
      (h) => h.warmBarred === before.warmBarred + 1 && h.threadsReplaced === before.threadsReplaced + 1,
    );

    const fresh = await invoke(starting, module, tenantId);
    expect(fresh.status).toBe(502);
    expect(await health(starting)).toMatchObject({
      threadsReplaced: before.threadsReplaced + 2,
      warmBarred: before.warmBarred + 1,
      warmPreparing: 0,
      warmPlugins: 0,
    });
  }, 30_000);
});
