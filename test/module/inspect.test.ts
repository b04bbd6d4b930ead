import { describe, expect, it } from 'vitest';
import { HOST_FUNCTIONS } from '../../src/module/imports.ts';
import { checkExports, inspectModuleBytes, prepareModule } from '../../src/module/inspect.ts';
import { type Manifest, parseManifest } from '../../src/module/manifest.ts';
import { readModule, sha256Hex } from '../../src/module/wasm.ts';
import { appModule, validWasm, wat } from './wat.ts';

function manifestWith(handles: { webhook: boolean; handoff?: boolean }, memoryMiB = 64): Manifest {
  const parsed = parseManifest({
    interface: 2,
    name: 'fixture',
    version: '1.0.0',
    configSchema: { type: 'object' },
    secrets: [],
    actions: [{ name: 'screen', input: {}, output: {} }],
    hosts: [],
    memoryMiB,
    handles,
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.manifest;
}

const plain = manifestWith({ webhook: false });

describe('inspectModuleBytes: imports', () => {
  it('accepts the seven host functions, the Extism kernel and WASI preview 1 without sockets and paths', async () => {
    const bytes = appModule({
      imports: [
        ...HOST_FUNCTIONS.map((name) => ['extism:host/user', name] as const),
        ['extism:host/env', 'input_length'],
        ['extism:host/env', 'output_set'],
        ['extism:host/env', 'alloc'],
        ['wasi_snapshot_preview1', 'fd_write'],
        ['wasi_snapshot_preview1', 'random_get'],
        ['wasi_snapshot_preview1', 'clock_time_get'],
        ['wasi_snapshot_preview1', 'proc_exit'],
      ],
    });
    const inspected = await inspectModuleBytes(bytes);
    expect(inspected).toMatchObject({ ok: true });
    if (!inspected.ok) return;
    expect(inspected.imports).toHaveLength(HOST_FUNCTIONS.length + 7);
    expect(inspected.exports.map((e) => e.name)).toEqual(['memory', 'manifest', 'invoke']);
  });

  const forbidden: [string, string, RegExp][] = [
    ['an unknown namespace', '(import "env" "abort" (func))', /env\.abort/],
    [
      'an eighth extism:host/user function',
      '(import "extism:host/user" "exec" (func))',
      /extism:host\/user\.exec/,
    ],
    [
      'a WASI socket',
      '(import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))',
      /sock_accept/,
    ],
    ['a WASI path', '(import "wasi_snapshot_preview1" "path_open" (func))', /path_open/],
    ['WASI preview 2', '(import "wasi:cli/environment@0.2.0" "get-environment" (func))', /wasi:cli/],
    ['a table from outside', '(import "env" "table" (table 1 funcref))', /table "env\.table"/],
    ['a global from WASI', '(import "wasi_snapshot_preview1" "g" (global i32))', /global/],
    [
      'a table in the host namespace',
      '(import "extism:host/user" "log" (table 1 funcref))',
      /only functions/,
    ],
  ];
  for (const [what, clause, named] of forbidden) {
    it(`refuses ${what} as forbidden_import, naming it`, async () => {
      const refused = await inspectModuleBytes(appModule({ imports: [['extism:host/user', 'log'], clause] }));
      expect(refused).toMatchObject({
        ok: false,
        code: 'forbidden_import',
        message: expect.stringMatching(named),
      });
    });
  }

  it('counts the other forbidden imports in its message', async () => {
    const refused = await inspectModuleBytes(
      appModule({
        imports: [
          ['env', 'a'],
          ['env', 'b'],
          ['env', 'c'],
        ],
      }),
    );
    expect(refused).toMatchObject({
      code: 'forbidden_import',
      message: expect.stringMatching(/env\.a.*2 more/),
    });
  });

  it('refuses imported memory as imported_memory, from any namespace', async () => {
    for (const namespace of ['env', 'extism:host/env', 'wasi_snapshot_preview1']) {
      const bytes = appModule({ memory: '', imports: [`(import "${namespace}" "memory" (memory 1))`] });
      expect(await inspectModuleBytes(bytes)).toMatchObject({ ok: false, code: 'imported_memory' });
    }
  });
});

describe('inspectModuleBytes: the bytes', () => {
  it('refuses not_wasm, invalid_module and too_large', async () => {
    expect(await inspectModuleBytes(new TextEncoder().encode('hello'))).toMatchObject({ code: 'not_wasm' });
    const broken = appModule();
    expect(await inspectModuleBytes(broken.subarray(0, broken.length - 1))).toMatchObject({
      code: 'invalid_module',
    });
    const big = new Uint8Array(32 * 1024 * 1024 + 1);
    expect(await inspectModuleBytes(big)).toMatchObject({ code: 'too_large' });
  });

  it("needs exactly one memory of the module's own", async () => {
    expect(await inspectModuleBytes(appModule({ memory: '' }))).toMatchObject({
      ok: false,
      code: 'invalid_module',
      message: expect.stringMatching(/no memory/),
    });
    expect(await inspectModuleBytes(wat('(module (memory 1) (memory 1))'))).toMatchObject({
      code: 'invalid_module',
    });
  });
});

describe('checkExports', () => {
  const exportsOf = (bytes: Uint8Array) => {
    const read = readModule(bytes);
    if (!read.ok) throw new Error(read.message);
    return read.exports;
  };

  it('needs manifest and invoke as functions', () => {
    expect(checkExports(plain, exportsOf(appModule()))).toBeNull();
    expect(checkExports(plain, exportsOf(appModule({ exports: ['invoke'] })))).toMatchObject({
      ok: false,
      code: 'missing_export',
      message: expect.stringMatching(/manifest/),
    });
    expect(checkExports(plain, exportsOf(appModule({ exports: ['manifest'] })))).toMatchObject({
      code: 'missing_export',
      message: expect.stringMatching(/invoke/),
    });
    const global = appModule({
      exports: ['manifest'],
      extra: '(global (export "invoke") i32 (i32.const 0))',
    });
    expect(checkExports(plain, exportsOf(global))).toMatchObject({
      code: 'missing_export',
      message: expect.stringMatching(/invoke exported, but not as functions/),
    });
  });

  it('needs handle_webhook when the manifest handles webhooks, and handoff when it hands off', () => {
    const webhook = manifestWith({ webhook: true });
    const handoff = manifestWith({ webhook: false, handoff: true });
    expect(checkExports(webhook, exportsOf(appModule()))).toMatchObject({
      code: 'missing_export',
      message: expect.stringMatching(/handle_webhook/),
    });
    expect(
      checkExports(webhook, exportsOf(appModule({ exports: ['manifest', 'invoke', 'handle_webhook'] }))),
    ).toBeNull();
    expect(checkExports(handoff, exportsOf(appModule()))).toMatchObject({
      code: 'missing_export',
      message: expect.stringMatching(/handoff/),
    });
    expect(
      checkExports(handoff, exportsOf(appModule({ exports: ['manifest', 'invoke', 'handoff'] }))),
    ).toBeNull();
    // Exports the manifest does not claim are not needed.
    expect(
      checkExports(plain, exportsOf(appModule({ exports: ['manifest', 'invoke', 'handoff'] }))),
    ).toBeNull();
  });
});

describe('prepareModule', () => {
  it('caps the memory at memoryMiB and names the capped bytes by their sha256', async () => {
    const original = appModule({ memory: '(memory (export "memory") 2)' });
    const prepared = await prepareModule(original, manifestWith({ webhook: false }, 32));
    if (!prepared.ok) throw new Error(prepared.message);
    expect(validWasm(prepared.bytes)).toBe(true);
    expect(readModule(prepared.bytes)).toMatchObject({ memories: [{ minPages: 2, maxPages: 512 }] });
    expect(prepared.sha256).toBe(sha256Hex(prepared.bytes));
    expect(prepared.sha256).not.toBe(sha256Hex(original));
    expect(prepared.sizeBytes).toBe(prepared.bytes.length);
    // Preparing the stored module again names the same module.
    const again = await prepareModule(prepared.bytes, manifestWith({ webhook: false }, 32));
    expect(again).toMatchObject({ ok: true, sha256: prepared.sha256 });
  });

  it('refuses missing exports and what inspection refuses', async () => {
    expect(await prepareModule(appModule({ exports: ['invoke'] }), plain)).toMatchObject({
      code: 'missing_export',
    });
    expect(await prepareModule(appModule({ imports: [['env', 'x']] }), plain)).toMatchObject({
      code: 'forbidden_import',
    });
    expect(
      await prepareModule(appModule({ memory: '(memory (export "memory") 2000)' }), plain),
    ).toMatchObject({
      code: 'invalid_module',
      message: expect.stringMatching(/2000 pages/),
    });
  });
});
