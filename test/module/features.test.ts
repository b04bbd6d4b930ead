// The WebAssembly features a module may use (docs/module-contract.md, "WebAssembly features"): each
// accepted one through the whole upload check, the engine included; each refused one by name, from the
// bytes, before the engine sees the module.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeU32, SECTION } from '../../src/module/binary.ts';
import { inspectModuleBytes } from '../../src/module/inspect.ts';
import { readModule } from '../../src/module/wasm.ts';
import { moduleOf, section, vector } from './bytes.ts';
import { wat } from './wat.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

type Features = Parameters<typeof wat>[1];

/** An app-shaped module (memory, manifest, invoke) around `extra`, assembled with the features given. */
const app = (extra: string, features?: Features) =>
  wat(
    `(module (memory (export "memory") 1)
      (func (export "manifest") (result i32) i32.const 0)
      (func (export "invoke") (result i32) i32.const 0)
      ${extra})`,
    features,
  );

describe('accepted features', () => {
  const accepted: [string, string, Features][] = [
    ['the MVP', '(func (param f64) (result i64) local.get 0 i64.trunc_f64_s)', {}],
    ['mutable globals, exported', '(global (export "counter") (mut i32) (i32.const 0))', {}],
    ['sign extension', '(func (param i32) (result i32) local.get 0 i32.extend8_s)', {}],
    ['non-trapping float-to-int', '(func (param f32) (result i32) local.get 0 i32.trunc_sat_f32_s)', {}],
    ['multi-value', '(func (result i32 i64) i32.const 1 i64.const 2)', {}],
    ['bulk memory', '(data "abc") (func i32.const 0 i32.const 0 i32.const 3 memory.init 0)', {}],
    [
      'reference types: funcref and externref',
      '(table 2 2 externref) (func $f) (elem declare func $f) (func (param externref) (result funcref) ref.func $f)',
      {},
    ],
    ['SIMD', '(func (result v128) v128.const i32x4 1 2 3 4)', {}],
    [
      'relaxed SIMD',
      '(func (param v128 v128) (result v128) local.get 0 local.get 1 i8x16.relaxed_swizzle)',
      { relaxed_simd: true },
    ],
    [
      'extended constant expressions',
      '(global i32 (i32.add (i32.const 1) (i32.const 2)))',
      { extended_const: true },
    ],
  ];
  for (const [what, extra, features] of accepted) {
    it(`accepts ${what}`, async () => {
      expect(await inspectModuleBytes(app(extra, features))).toMatchObject({ ok: true });
    });
  }
});

describe('refused features', () => {
  const types = (...entries: number[][]) => section(SECTION.type, vector(entries));
  const withTypes = (...entries: number[][]) => moduleOf(types(...entries));
  const gc = { gc: true, reference_types: true, function_references: true } as const;

  const refused: [string, Uint8Array, string][] = [
    // Functions 0 and 1 are manifest and invoke: the first of `extra` is function 2.
    [
      'tail calls',
      app('(func $loop (result i32) return_call $loop)', { tail_call: true }),
      'tail calls (return_call in function 2)',
    ],
    [
      'exception handling (try and catch)',
      app('(tag $e (param i32)) (func (result i32) try (result i32) i32.const 1 throw $e catch $e end)', {
        exceptions: true,
      }),
      'exception handling (a tag section declaring 1)',
    ],
    [
      'exception handling (try_table and exnref)',
      app('(func (result exnref) (block $h (result exnref) (try_table (catch_all_ref $h) unreachable)) )', {
        exceptions: true,
      }),
      'exception handling (exnref in type 1)',
    ],
    [
      'a GC struct type',
      app('(type $point (struct (field i32) (field i32)))', gc),
      'GC struct types (type 0)',
    ],
    ['a GC array type', app('(type $bytes (array (mut i32)))', gc), 'GC array types (type 0)'],
    // A recursive group of one function type: (rec (type (func))).
    [
      'a rec group',
      withTypes([0x60, 0, 0], [0x4e, 0x01, 0x60, 0x00, 0x00]),
      'GC recursive type groups (type 1)',
    ],
    // (type (sub (func))) and (type (sub final (func))).
    ['a subtype', withTypes([0x50, 0x00, 0x60, 0x00, 0x00]), 'GC subtypes (type 0)'],
    ['a final subtype', withTypes([0x4f, 0x00, 0x60, 0x00, 0x00]), 'GC subtypes (type 0)'],
    ['an anyref parameter', withTypes([0x60, 0x01, 0x6e, 0x00]), 'the GC reference type anyref in type 0'],
    ['an i31ref result', withTypes([0x60, 0x00, 0x01, 0x6c]), 'the GC reference type i31ref in type 0'],
    [
      'a typed function reference',
      withTypes([0x60, 0x00, 0x00], [0x60, 0x01, 0x63, 0x00, 0x00]),
      'typed references (ref …) in type 1',
    ],
    ['stringref', withTypes([0x60, 0x01, 0x67, 0x00]), 'value type 0x67 in type 0'],
    ['shared memory', wat('(module (memory 1 2 shared))', { threads: true }), 'shared memory (threads)'],
    ['memory64', moduleOf(section(SECTION.memory, vector([[0x04, 0x01]]))), '64-bit memory (memory64)'],
    [
      'custom page sizes',
      moduleOf(section(SECTION.memory, vector([[0x08, 0x01, 0x10]]))),
      'custom page sizes',
    ],
    [
      'a 64-bit table',
      moduleOf(section(SECTION.table, vector([[0x70, 0x04, 0x01]]))),
      '64-bit tables (memory64)',
    ],
    [
      'a table of anyref',
      moduleOf(section(SECTION.table, vector([[0x6e, 0x00, 0x01]]))),
      'reference type 0x6e in a table or element segment',
    ],
    [
      'a table with an initial value',
      moduleOf(section(SECTION.table, vector([[0x40, 0x00, 0x70, 0x00, 0x01, 0xd0, 0x70, 0x0b]]))),
      'tables with initial values',
    ],
    [
      'an imported anyref global',
      moduleOf(
        section(SECTION.import, vector([[0x01, 0x65, 0x01, 0x67, 0x03, 0x6e, 0x00]])), // "e" "g" global anyref
      ),
      'the GC reference type anyref in the imported global e.g',
    ],
  ];
  for (const [what, bytes, feature] of refused) {
    it(`refuses ${what} as invalid_module, naming it, before compiling`, async () => {
      const compile = vi.spyOn(WebAssembly, 'compile');
      const refusal = {
        ok: false,
        code: 'invalid_module',
        message: `module uses ${feature}, which the platform does not accept`,
      };
      expect(readModule(bytes)).toEqual(refusal);
      expect(await inspectModuleBytes(bytes)).toEqual(refusal);
      expect(compile).not.toHaveBeenCalled();
    });
  }

  it('refuses several memories (multi-memory): one memory is what memoryMiB caps', async () => {
    const two = app('(memory $second 1)');
    expect(await inspectModuleBytes(two)).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'module defines 2 memories; it must define exactly one',
    });
  });

  it('refuses names that are not UTF-8, and sections the format does not know', () => {
    const badName = moduleOf(section(SECTION.export, vector([[0x01, 0xff, 0x00, 0x00]])));
    expect(readModule(badName)).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'bad module: a name is not valid UTF-8',
    });
    expect(readModule(moduleOf(section(14, encodeU32(0))))).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'bad module: unknown section id 14',
    });
    const twice = moduleOf(section(SECTION.type, encodeU32(0)), section(SECTION.type, encodeU32(0)));
    expect(readModule(twice)).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'bad module: section 1 appears twice',
    });
  });
});
