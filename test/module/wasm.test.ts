import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectModuleBytes } from '../../src/module/inspect.ts';
import {
  capMemory,
  hasWasmHeader,
  MAX_MODULE_BYTES,
  readModule,
  sha256Hex,
  WASM_PAGE_BYTES,
} from '../../src/module/wasm.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { appModule, exportedMemory, validWasm, wat } from './wat.ts';

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** The memory section's entries as readModule reads them back. */
function memoriesOf(bytes: Uint8Array) {
  const read = readModule(bytes);
  if (!read.ok) throw new Error(read.message);
  return read.memories;
}

function capped(bytes: Uint8Array, memoryMiB: number): Uint8Array {
  const result = capMemory(bytes, memoryMiB);
  if (!result.ok) throw new Error(result.message);
  return result.bytes;
}

/**
 * A module whose memory section is written with padded (longer than needed) LEB128 numbers, as some
 * toolchains leave them: the header, then section 5 holding one memory of min 1 and max 2 pages, exported.
 */
function paddedMemoryModule(): Uint8Array {
  const memorySection = [0x05, 0x87, 0x80, 0x80, 0x80, 0x00, 0x01, 0x01, 0x81, 0x80, 0x00, 0x82, 0x00];
  // Section 7 (export): one export "memory" of kind memory (2), index 0.
  const exportSection = [0x07, 0x0a, 0x01, 0x06, ...Buffer.from('memory'), 0x02, 0x00];
  return new Uint8Array([...HEADER, ...memorySection, ...exportSection]);
}

describe('readModule', () => {
  it('refuses bytes without the WebAssembly header as not_wasm', () => {
    for (const bytes of [
      randomBytes(64),
      new Uint8Array(),
      Buffer.from('\0asm'),
      Buffer.from('{"interface":2}'),
    ]) {
      expect(readModule(bytes)).toMatchObject({ ok: false, code: 'not_wasm' });
    }
    // A component (binary version 0x0d) is not a module.
    expect(readModule(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]))).toMatchObject({
      code: 'not_wasm',
    });
    expect(hasWasmHeader(new Uint8Array(HEADER))).toBe(true);
  });

  it('refuses a broken section as invalid_module', () => {
    const bytes = appModule();
    // The first section's size byte claims more bytes than the module has.
    const broken = Uint8Array.from(bytes);
    broken[9] = 0x7f;
    expect(readModule(broken)).toMatchObject({ ok: false, code: 'invalid_module' });
    // A module cut short in the middle of its code.
    expect(readModule(bytes.subarray(0, bytes.length - 3))).toMatchObject({ code: 'invalid_module' });
  });

  it('leaves validity to the engine: a header followed by garbage never passes inspection', async () => {
    for (let i = 0; i < 20; i++) {
      expect(await inspectModuleBytes(new Uint8Array([...HEADER, ...randomBytes(40)]))).toMatchObject({
        ok: false,
      });
    }
  });

  it('reads imports and exports from the bytes exactly as the engine lists them, for the release apps and the fixtures', async () => {
    const release = path.resolve(import.meta.dirname, '../../apps/build');
    const files = (await fs.readdir(release)).filter((file) => file.endsWith('.wasm'));
    expect(files.length).toBeGreaterThan(0);
    const modules = [
      ...(await Promise.all(
        files.map(async (file) => new Uint8Array(await fs.readFile(path.join(release, file)))),
      )),
      ...(await Promise.all(['echo', 'answers', 'vendor-app'].map((name) => buildFixture(name)))),
    ];
    for (const bytes of modules) {
      const compiled = await WebAssembly.compile(bytes);
      const read = readModule(bytes);
      expect(read).toMatchObject({
        ok: true,
        imports: WebAssembly.Module.imports(compiled).map(({ module, name, kind }) => ({
          module,
          name,
          kind,
        })),
        exports: WebAssembly.Module.exports(compiled).map(({ name, kind }) => ({ name, kind })),
      });
      expect(await inspectModuleBytes(bytes)).toMatchObject({ ok: true });
    }
  });

  it('refuses modules over 32 MiB as too_large, before reading them', () => {
    expect(MAX_MODULE_BYTES).toBe(33_554_432);
    const big = new Uint8Array(MAX_MODULE_BYTES + 1);
    big.set(HEADER);
    expect(readModule(big)).toMatchObject({ ok: false, code: 'too_large' });
    // At exactly the limit the size is fine; these bytes are just not WebAssembly.
    expect(readModule(big.subarray(0, MAX_MODULE_BYTES))).toMatchObject({ code: 'invalid_module' });
  });

  it('lists imports and exports with their kinds, and the memories the module defines', () => {
    const bytes = wat(`(module
      (import "extism:host/user" "log" (func (param i64)))
      (import "extism:host/env" "input_length" (func (result i64)))
      (import "env" "g" (global i32))
      (memory (export "memory") 2 10)
      (global (export "version") i32 (i32.const 2))
      (func (export "invoke") (result i32) i32.const 0))`);
    const read = readModule(bytes);
    expect(read).toEqual({
      ok: true,
      imports: [
        { module: 'extism:host/user', name: 'log', kind: 'function' },
        { module: 'extism:host/env', name: 'input_length', kind: 'function' },
        { module: 'env', name: 'g', kind: 'global' },
      ],
      exports: [
        { name: 'memory', kind: 'memory' },
        { name: 'version', kind: 'global' },
        { name: 'invoke', kind: 'function' },
      ],
      memories: [{ minPages: 2, maxPages: 10 }],
      instanceSize: { tableEntries: 0, globals: 1, elementEntries: 0, dataSegments: 0 },
    });
    expect(memoriesOf(wat('(module (memory 3))'))).toEqual([{ minPages: 3, maxPages: null }]);
    expect(memoriesOf(wat('(module)'))).toEqual([]);
  });

  it('refuses shared memory as invalid_module', () => {
    const shared = wat('(module (memory 1 4 shared))', { threads: true });
    expect(readModule(shared)).toMatchObject({
      ok: false,
      code: 'invalid_module',
      message: expect.stringMatching(/shared/),
    });
  });
});

describe('capMemory', () => {
  it('writes memoryMiB × 16 pages as the maximum and keeps the minimum', () => {
    const original = appModule({ memory: '(memory (export "memory") 3)' });
    const bytes = capped(original, 16);
    expect(memoriesOf(bytes)).toEqual([{ minPages: 3, maxPages: 256 }]);
    expect(validWasm(bytes)).toBe(true);
    // A maximum the module wrote itself is replaced, whether higher or lower.
    expect(memoriesOf(capped(appModule({ memory: '(memory 1 65536)' }), 64))).toEqual([
      { minPages: 1, maxPages: 1024 },
    ]);
    expect(memoriesOf(capped(appModule({ memory: '(memory 1 2)' }), 16))).toEqual([
      { minPages: 1, maxPages: 256 },
    ]);
    expect(memoriesOf(capped(appModule({ memory: '(memory 256)' }), 16))).toEqual([
      { minPages: 256, maxPages: 256 },
    ]);
  });

  it('bounds the running memory: it grows to the cap and no further', () => {
    const bytes = capped(appModule({ memory: '(memory (export "memory") 1)' }), 16);
    const memory = exportedMemory(bytes);
    expect(memory.buffer.byteLength).toBe(WASM_PAGE_BYTES);
    expect(memory.grow(255)).toBe(1);
    expect(memory.buffer.byteLength).toBe(16 * 1024 * 1024);
    expect(() => memory.grow(1)).toThrow(RangeError);
  });

  it('changes only the memory section', () => {
    const original = appModule({ memory: '(memory (export "memory") 1)' });
    const bytes = capped(original, 16);
    // (memory 1) is 5 03 01 00 01 in the original; the capped section is 5 05 01 01 01 80 02 (max 256).
    expect(bytes.length).toBe(original.length + 2);
    const at = original.findIndex(
      (_, i) => original[i] === 5 && original[i + 1] === 3 && original[i + 2] === 1,
    );
    expect(Buffer.from(bytes.subarray(0, at))).toEqual(Buffer.from(original.subarray(0, at)));
    expect([...bytes.subarray(at, at + 7)]).toEqual([0x05, 0x05, 0x01, 0x01, 0x01, 0x80, 0x02]);
    expect(Buffer.from(bytes.subarray(at + 7))).toEqual(Buffer.from(original.subarray(at + 5)));
  });

  it('is idempotent: capping a capped module gives the same bytes', () => {
    for (const original of [appModule(), appModule({ memory: '(memory 2 9000)' }), paddedMemoryModule()]) {
      const once = capped(original, 64);
      expect(Buffer.from(capped(once, 64))).toEqual(Buffer.from(once));
      expect(sha256Hex(capped(once, 64))).toBe(sha256Hex(once));
    }
  });

  it('re-encodes padded LEB128 sizes into a valid module', () => {
    const original = paddedMemoryModule();
    expect(validWasm(original)).toBe(true);
    expect(memoriesOf(original)).toEqual([{ minPages: 1, maxPages: 2 }]);
    const bytes = capped(original, 32);
    expect(validWasm(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(original.length);
    expect(memoriesOf(bytes)).toEqual([{ minPages: 1, maxPages: 512 }]);
    expect(exportedMemory(bytes).grow(511)).toBe(1);
  });

  it('refuses a minimum above the cap, no memory, several memories and imported memory', () => {
    expect(capMemory(appModule({ memory: '(memory 257)' }), 16)).toMatchObject({
      ok: false,
      code: 'invalid_module',
      message: expect.stringMatching(/257 pages/),
    });
    expect(capMemory(appModule({ memory: '' }), 16)).toMatchObject({
      code: 'invalid_module',
      message: expect.stringMatching(/no memory/),
    });
    expect(
      capMemory(appModule({ memory: '', imports: ['(import "env" "memory" (memory 1))'] }), 16),
    ).toMatchObject({
      code: 'imported_memory',
    });
    expect(capMemory(new Uint8Array([1, 2, 3]), 16)).toMatchObject({ code: 'not_wasm' });
  });

  it('refuses two memories, whether the engine or the cap says so', () => {
    const two = wat('(module (memory 1) (memory 1))');
    expect(capMemory(two, 16)).toMatchObject({ ok: false, code: 'invalid_module' });
  });

  it('takes memoryMiB only as a whole number of MiB a 32-bit memory can hold', () => {
    expect(() => capMemory(appModule(), 0)).toThrow(RangeError);
    expect(() => capMemory(appModule(), 1.5)).toThrow(RangeError);
    expect(() => capMemory(appModule(), 4097)).toThrow(RangeError);
    expect(memoriesOf(capped(appModule(), 4096))).toEqual([{ minPages: 1, maxPages: 65_536 }]);
  });
});

describe('sha256Hex', () => {
  it('is the lower-case hex SHA-256 of the bytes', () => {
    expect(sha256Hex(new Uint8Array())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const bytes = appModule();
    expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(sha256Hex(bytes)).toMatch(/^[0-9a-f]{64}$/);
  });
});
