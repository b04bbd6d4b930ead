import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { shapedModule } from '../module/bytes.ts';
import { appModule, wat } from '../module/wat.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

let platform: TestPlatform;
let runner: TestRunner;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startTestRunner(platform);
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

const inspect = (bytes: Uint8Array, token: string | null = RUNNER_TOKEN) =>
  fetch(`${runner.url}/v1/inspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/wasm', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: bytes,
  });

describe('POST /v1/inspect', () => {
  it('accepts a valid module: its manifest parsed strictly, the hash naming the module capped at memoryMiB', async () => {
    const bytes = await buildFixture('echo');
    const response = await inspect(bytes);
    expect(response.status).toBe(200);
    const verdict = await response.json();
    const capped = capMemory(bytes, 64);
    if (!capped.ok) throw new Error(capped.message);
    expect(verdict).toMatchObject({
      accepted: true,
      sha256: sha256Hex(capped.bytes),
      sizeBytes: capped.bytes.byteLength,
      manifest: {
        interface: 2,
        name: 'echo',
        version: '1.0.0',
        memoryMiB: 64,
        capabilities: [],
        handles: { webhook: true, handoff: true },
      },
    });
  });

  it('refuses a manifest the platform does not accept, naming its path', async () => {
    const verdict = await (await inspect(await buildFixture('hostile'))).json();
    expect(verdict).toMatchObject({
      accepted: false,
      code: 'invalid_module',
      path: expect.stringMatching(/^actions\./),
    });
    expect(verdict.message).toMatch(/^manifest: actions\./);
  });

  it('refuses a module without manifest or invoke as missing_export, before running anything', async () => {
    for (const [exports, missing] of [
      [['invoke'], 'manifest'],
      [['manifest'], 'invoke'],
      [[], 'manifest, invoke'],
    ] as const) {
      expect(await (await inspect(appModule({ exports: [...exports] }))).json()).toEqual({
        accepted: false,
        code: 'missing_export',
        message: `module does not export the function${exports.length === 0 ? 's' : ''} ${missing}`,
      });
    }
  });

  it('names what the manifest export trapped on', async () => {
    const trapping = appModule({
      exports: ['invoke'],
      extra: '(func (export "manifest") (result i32) unreachable)',
    });
    expect(await (await inspect(trapping)).json()).toEqual({
      accepted: false,
      code: 'invalid_module',
      message: 'the manifest export trapped: unreachable',
    });
  });

  it('refuses GC types and a module past a count bound from its bytes, before compiling or running it', async () => {
    const gc = wat(
      `(module (type $point (struct (field i32)))
        (memory (export "memory") 1)
        (func (export "manifest") (result i32) i32.const 0)
        (func (export "invoke") (result i32) i32.const 0))`,
      { gc: true },
    );
    expect(await (await inspect(gc)).json()).toEqual({
      accepted: false,
      code: 'invalid_module',
      message: 'module uses GC struct types (type 0), which the platform does not accept',
    });
    expect(await (await inspect(shapedModule({ exports: 1_000_000 }))).json()).toEqual({
      accepted: false,
      code: 'instance_too_large',
      message: 'module has 1000000 exports; at most 1000 are accepted',
    });
  });

  it('refuses bytes that are not WebAssembly', async () => {
    expect(await (await inspect(randomBytes(100))).json()).toMatchObject({
      accepted: false,
      code: 'not_wasm',
    });
  });

  it('refuses a module whose manifest export does not answer within 5 s, and keeps serving', async () => {
    const verdict = await (await inspect(await buildFixture('stuck'))).json();
    expect(verdict).toMatchObject({
      accepted: false,
      code: 'invalid_module',
      message: expect.stringContaining('5 s'),
    });
    expect((await inspect(await buildFixture('echo'))).status).toBe(200);
  }, 20_000);

  it('answers 413 payload_too_large over 32 MiB', async () => {
    const response = await inspect(new Uint8Array(32 * 1024 * 1024 + 1));
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('payload_too_large');
  });

  it('refuses a caller without the runner bearer', async () => {
    const response = await inspect(await buildFixture('echo'), 'nope');
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('unauthorized');
  });
});
